"""`agent-host bench`: the same problems with and without the reference, reported apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from silicon_agent.host.cli import main

from .modem_scenario import BLOCKS_YAML, mutant_then_fix_rules, write_rules
from .modem_scenario import write_config as modem_config
from .scenario import code_reply, gray_code, make_workspace, write_config, write_mcp_json


@pytest.mark.slow
def test_bench_reports_modes_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    design = make_workspace(tmp_path, ["gray"])
    config = write_config(tmp_path, ["gray"], parallel=1)
    script = tmp_path / "script.yaml"
    rules = yaml.safe_load(script.read_text())["rules"]
    # With the reference in its prompt the scripted engineer gets it right first time.
    rules.insert(
        0, {"match": ["Block: gray\n", "Reference (given"], "reply": code_reply(gray_code(0))}
    )
    script.write_text(yaml.safe_dump({"rules": rules}))
    (tmp_path / "gray_ref.sv").write_text(gray_code(0))
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        yaml.safe_dump(
            {
                "name": "gray",
                "problems": [{"design": design.name, "reference": "gray_ref.sv"}],
            }
        )
    )
    mcp = write_mcp_json(tmp_path, ["iverilog", "verilator"])
    runs = tmp_path / "runs"
    args = ["--runs-dir", str(runs), "bench", str(suite), "--config", str(config)]
    assert main([*args, "--mcp-config", str(mcp)]) == 0
    summary = json.loads(capsys.readouterr().out)
    without = summary["modes"]["without_reference"]
    with_ref = summary["modes"]["with_reference"]
    assert without["pass_rate"] == 1.0 and with_ref["pass_rate"] == 1.0
    assert without["mean_iterations"] == 3.0 and with_ref["mean_iterations"] == 1.0
    assert without["tokens"] > with_ref["tokens"] > 0
    assert without["cost_usd"] > with_ref["cost_usd"] > 0
    assert (runs / "bench-gray.json").exists()


@pytest.mark.slow
def test_bench_of_the_registry_gives_a_pass_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`agent-host bench hdl/blocks.yaml`: each block a problem designed alone, oracle-free;
    per block outcome, iterations, tokens and cost."""
    rules = mutant_then_fix_rules() + write_rules(["qam_demodulator"])
    config = modem_config(tmp_path, rules)
    mcp = write_mcp_json(tmp_path, ["iverilog", "verilator", "vcd"])
    runs = tmp_path / "runs"
    args = ["--runs-dir", str(runs), "bench", str(BLOCKS_YAML), "--config", str(config)]
    blocks = ["--block", "crc_checker", "--block", "qam_demodulator"]
    assert main([*args, "--mcp-config", str(mcp), *blocks]) == 0
    bench = json.loads(capsys.readouterr().out)
    table = {row["block"]: row for row in bench["blocks"]}
    assert [(n, r["passed"], r["iterations"]) for n, r in table.items()] == [
        ("crc_checker", True, 2),
        ("qam_demodulator", True, 1),
    ]
    assert table["crc_checker"]["tokens"] > table["qam_demodulator"]["tokens"] > 0
    assert all(r["cost_usd"] > 0 and r["wall_s"] > 0 for r in table.values())
    assert bench["pass_rate"] == 1.0 and bench["mean_iterations"] == 1.5
    assert (runs / "bench-lte_baseband_rx.json").exists()
