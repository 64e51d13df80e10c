"""`agent-host bench`: the same problems with and without the reference, reported apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from host.cli import main

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
