"""Regression: a block written again with a changed module header sends the passing blocks
that use it back to verification, whether the rewrite came from `agent-host resume RUN
--redo BLOCK` or from the run itself (a dependent's failure traced to its interface)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import yaml

from silicon_agent.host.cli import main
from silicon_agent.host.run_setup import create_run
from silicon_agent.host.runs import execute_run
from silicon_agent.host.state import BlockStatus, StateStore
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.server import build as build_iverilog
from silicon_agent.servers.verilator.server import build as build_verilator

from .scenario import (
    code_reply,
    counter_code,
    make_workspace,
    tick_code,
    write_config,
    write_mcp_json,
)


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


WIDENED = (
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
BLAME_COUNTER = {
    "structured": {
        "hypotheses": [
            {
                "cause": "wrap_o is derived locally one count early: the counter has no wrap_o",
                "evidence": "wrap_o rises at count 8'hfe, the spec wants it at all ones",
                "suspect_signal": "wrap_o",
            }
        ],
        "fix_plan": "take wrap_o from the counter",
        "blame": "dependency",
        "dependency": "counter",
        "dependency_change": "add output logic wrap_o, high while count_o is all ones",
    }
}


@pytest.mark.slow
def test_dependency_blamed_is_reworked_and_dependents_reverified(tmp_path: Path) -> None:
    """No --redo: Reflection traces tick's failure to the counter's interface, the counter is
    sent back once and passes with a new header, gray (passing) is re-verified, tick is
    released to fix its own code; a second request for the same dependency is refused."""
    blocks = ["counter", "gray", "tick"]
    design = make_workspace(tmp_path, blocks)
    config = write_config(tmp_path, blocks, parallel=1)
    script = tmp_path / "script.yaml"
    rules = yaml.safe_load(script.read_text())["rules"]
    rules[:0] = [
        {
            "match": ["Block: counter\n", "needs a change to this block's interface"],
            "reply": code_reply(WIDENED),
        },
        {"match": ["Block: tick\n", "Step: reflect"], "reply": BLAME_COUNTER},
        {
            "match": ["Block: tick\n", "Attempt: 1 of"],
            "reply": code_reply(tick_code("count_o == 8'hfe")),
        },
        {
            "match": ["Block: tick\n", "Attempt: 2 of"],
            "reply": code_reply(tick_code("count_o == 8'hfd")),
        },
        {"match": ["Block: tick\n", "Attempt: 3 of"], "reply": code_reply(tick_code())},
    ]
    script.write_text(yaml.safe_dump({"rules": rules}))
    mcp = write_mcp_json(tmp_path, [])
    run = create_run(design, tmp_path / "runs", str(config), str(mcp), run_id="rework")
    workspace = Workspace.open(tmp_path)
    servers = {"iverilog": build_iverilog(workspace), "verilator": build_verilator(workspace)}
    states = asyncio.run(execute_run(run, in_process=servers))

    store = StateStore(run / "state.sqlite")
    steps = store.steps()
    prompts = [
        "\n".join(m.content for m in x.messages)
        for _, x in store.exchanges()
        if x.role in ("rtl_engineer", "reflection_debug")
        and x.correlation_id.startswith(("tick/", "counter/"))
    ]
    store.close()
    of = {b: [(r.kind, r.outcome) for _, r in steps if r.block == b] for b in blocks}
    seq = {(r.block, r.kind, r.step_no): s for s, r in steps}
    assert of["counter"] == [
        ("write", "submitted"),
        ("check", "clean"),
        ("simulate", "PASS"),
        ("synth", "passed"),
        ("rework", "requested"),  # committed with tick's reflect step
        ("write", "submitted"),
        ("check", "clean"),
        ("simulate", "PASS"),
        ("synth", "passed"),
    ]
    assert of["tick"] == [
        ("write", "submitted"),
        ("check", "clean"),
        ("simulate", "SIM_FAIL"),
        ("reflect", "dependency_blamed"),
        ("debug", "submitted"),  # after the counter came back
        ("check", "clean"),
        ("simulate", "SIM_FAIL"),
        ("reflect", "dependency_blamed"),  # asked again: refused, tick fixes its own code
        ("debug", "submitted"),
        ("check", "clean"),
        ("simulate", "PASS"),
        ("synth", "passed"),
    ]
    # gray had passed on the old counter; it is checked and simulated again, not rewritten.
    assert of["gray"][-5:] == [
        ("simulate", "PASS"),
        ("synth", "passed"),
        ("check", "clean"),
        ("simulate", "PASS"),
        ("synth", "passed"),
    ]
    assert [k for k, _ in of["gray"]].count("write") == 3
    store = StateStore(run / "state.sqlite")
    details = {(r.block, r.step_no): r.detail for _, r in store.steps()}
    store.close()
    assert details[("tick", 3)]["rework"] == "sent counter back"
    assert details[("tick", 7)]["rework"].startswith("refused: counter was already sent back 1")
    assert details[("counter", 4)] == {
        "by": "tick",
        "change": BLAME_COUNTER["structured"]["dependency_change"],
    }
    assert seq[("counter", "rework", 4)] == seq[("tick", "reflect", 3)] + 1
    # The counter's rewrite got the request and the interface-change rule; tick's next fix
    # got the counter's new header.
    rework = next(p for p in prompts if "needs a change to this block's interface" in p)
    assert "add output logic wrap_o" in rework and "Make exactly that" in rework
    release = next(p for p in prompts if "Block: tick\nStep: debug\nAttempt: 2 of" in p)
    assert "counter was reworked at this block's request" in release
    assert "output logic wrap_o" in release
    assert "output logic wrap_o )  (changed at this block's request)" in release
    assert states["counter"].reworks == 1 and "wrap_o" in (states["counter"].interface_sig or "")
    assert all(states[b].status == BlockStatus.PASSED for b in blocks)
    assert states["tick"].rework is not None and states["tick"].rework["status"] == "refused"
