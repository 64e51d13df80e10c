"""Regression: a block written again with a changed module header sends the passing blocks
that use it back to verification (`agent-host resume RUN --redo BLOCK`)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from host.cli import main
from host.state import BlockStatus, StateStore

from .scenario import code_reply, counter_code, make_workspace, write_config, write_mcp_json


@pytest.mark.slow
def test_interface_change_reverifies_dependents(tmp_path: Path) -> None:
    blocks = ["counter", "gray"]
    design = make_workspace(tmp_path, blocks)
    config = write_config(tmp_path, blocks)
    mcp = write_mcp_json(tmp_path, ["iverilog", "verilator"])
    runs = ["--runs-dir", str(tmp_path / "runs")]
    args = [str(design), "--config", str(config), "--mcp-config", str(mcp), "--run-id", "reg"]
    assert main([*runs, "run", *args]) == 0

    # The counter is rewritten with one more output: its module header changes.
    widened = (
        counter_code("counter")
        .replace(
            "output logic [WIDTH-1:0] count_o\n",
            "output logic [WIDTH-1:0] count_o,\n    output logic             wrap_o\n",
        )
        .replace(
            "  assign count_o = count_r;\n",
            "  assign count_o = count_r;\n  assign wrap_o = &count_r;\n",
        )
    )
    script = tmp_path / "script.yaml"
    rules = yaml.safe_load(script.read_text())["rules"]
    rules = [r for r in rules if "Block: counter\n" not in r["match"]]
    rules.insert(0, {"match": ["Block: counter\n", "Step: write"], "reply": code_reply(widened)})
    script.write_text(yaml.safe_dump({"rules": rules}))
    assert main([*runs, "resume", "reg", "--redo", "counter"]) == 0
    assert main([*runs, "resume", "reg", "--redo", "nosuch"]) == 2

    store = StateStore(tmp_path / "runs" / "reg" / "state.sqlite")
    steps = store.steps()
    states = store.blocks()
    store.close()
    counter = [(r.kind, r.outcome) for _, r in steps if r.block == "counter"]
    gray = [(r.kind, r.outcome) for _, r in steps if r.block == "gray"]
    assert counter[4:] == [
        ("redo", "requested"),
        ("write", "submitted"),
        ("check", "clean"),
        ("simulate", "PASS"),
        ("synth", "passed"),
    ]
    # gray had passed; it is checked and simulated again against the new counter.
    assert gray[-3:] == [("check", "clean"), ("simulate", "PASS"), ("synth", "passed")]
    assert len([k for k, _ in gray if k == "write"]) == 3  # no new code was asked for
    assert states["gray"].status == BlockStatus.PASSED and not states["gray"].recheck
    assert "wrap_o" in (states["counter"].interface_sig or "")
