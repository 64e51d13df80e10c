"""The Verification Engineer in the loop: it writes a visible smoke testbench from the block's
spec and interface, every attempt runs it (real servers) before the hidden testbench, its
mismatches go back to the RTL side, a broken or wrong bench is repaired once and then set
aside, and it never sees a hidden asset. The verdict stays the hidden testbench's."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import yaml

from silicon_agent.host.run_setup import create_run
from silicon_agent.host.runs import execute_run
from silicon_agent.host.state import BlockState, BlockStatus, StateStore
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.server import build as build_iverilog
from silicon_agent.servers.vcd.server import build as build_vcd
from silicon_agent.servers.verilator.server import build as build_verilator

from .scenario import (
    REFLECTION,
    code_reply,
    gray_code,
    hidden_leaks,
    make_workspace,
    smoke_counter_tb,
    smoke_gray_tb,
    smoke_reply,
    write_config,
    write_mcp_json,
)


def run_blocks(
    root: Path, blocks: list[str], rules: list[dict[str, Any]] | None = None, vcd: bool = False
) -> tuple[Path, dict[str, BlockState]]:
    design = make_workspace(root, blocks)
    config = write_config(root, blocks, parallel=1, smoke=True)
    if rules is not None:
        (root / "script.yaml").write_text(yaml.safe_dump({"rules": rules}, sort_keys=False))
    run = create_run(design, root / "runs", str(config), str(write_mcp_json(root, [])), None, "ve")
    workspace = Workspace.open(root)
    servers = {"iverilog": build_iverilog(workspace), "verilator": build_verilator(workspace)}
    if vcd:
        servers["vcd"] = build_vcd(workspace)
    return run, asyncio.run(execute_run(run, in_process=servers))


def record_of(run: Path) -> tuple[list[tuple[str, str]], list[dict[str, Any]], list[dict]]:
    store = StateStore(run / "state.sqlite")
    try:
        steps = [(r.kind, r.outcome) for _, r in store.steps()]
        exchanges = [json.loads(x.model_dump_json()) for _, x in store.exchanges()]
        calls = [c for _, c in store.tool_calls()]
        return steps, exchanges, calls
    finally:
        store.close()


def prompts(exchanges: list[dict[str, Any]], role: str) -> list[str]:
    return ["\n".join(m["content"] for m in x["messages"]) for x in exchanges if x["role"] == role]


def test_smoke_testbench_written_and_used(tmp_path: Path) -> None:
    run, states = run_blocks(tmp_path, ["counter"])
    steps, exchanges, calls = record_of(run)
    assert steps == [
        ("testbench", "written"),
        ("write", "submitted"),
        ("check", "clean"),
        ("smoke", "PASS"),
        ("simulate", "PASS"),
        ("synth", "passed"),
    ]
    state = states["counter"]
    assert state.status == BlockStatus.PASSED and state.smoke is not None
    assert state.smoke.version == 1 and state.smoke.set_aside is None
    # Kept in the run folder, run from the workspace by the real simulator.
    archived = run / "attempts" / "counter" / "testbench" / "v01_tb_smoke_counter.sv"
    assert archived.read_text() == smoke_counter_tb("counter")
    bench = ".silicon-agent/smoke/counter/tb_smoke_counter.sv"
    assert (tmp_path / bench).read_text() == smoke_counter_tb("counter")
    runs = [c for c in calls if c["tool"] == "iverilog.run_testbench"]
    assert [c["arguments"]["testbench"] for c in runs] == [[bench], ["verif/tb_counter.sv"]]
    assert runs[0]["arguments"]["top"] == "tb_smoke_counter"
    smoke = json.loads((run / "attempts" / "counter" / "iter01" / "smoke.json").read_text())
    assert smoke["status"] == "PASS" and smoke["samples"] > 10 and smoke["mismatch_count"] == 0
    # It was built against the interface before any RTL existed.
    compiled = [c for c in calls if c["tool"] == "iverilog.compile"]
    assert compiled[0]["arguments"]["sources"][0].endswith("stub_counter.sv")
    assert json.loads(compiled[0]["result"])["status"] == "PASS"
    # The VE wrote from the spec and interface alone: no code, no hidden asset.
    (brief,) = prompts(exchanges, "verification_engineer")
    assert "An 8-bit up-counter" in brief and "output logic [WIDTH-1:0] count_o" in brief
    assert "count_r" not in brief and "endmodule" not in brief
    assert hidden_leaks(exchanges) == []


def test_smoke_testbench_catches_a_bug_before_the_hidden_run(tmp_path: Path) -> None:
    run, states = run_blocks(tmp_path, ["counter_fix"], vcd=True)
    steps, exchanges, calls = record_of(run)
    assert steps == [
        ("testbench", "written"),
        ("write", "submitted"),
        ("check", "clean"),
        ("smoke", "SIM_FAIL"),
        ("distill", "explained"),
        ("reflect", "hypotheses"),
        ("debug", "submitted"),
        ("check", "clean"),
        ("smoke", "PASS"),
        ("simulate", "PASS"),
        ("synth", "passed"),
    ]
    state = states["counter_fix"]
    assert state.status == BlockStatus.PASSED and state.iteration == 2
    # The hidden testbench never saw the buggy first attempt.
    hidden = [c for c in calls if c["arguments"].get("testbench") == ["verif/tb_counter_fix.sv"]]
    assert len(hidden) == 1 and json.loads(hidden[0]["result"])["status"] == "PASS"
    # The smoke bench's own mismatch and its code reached Reflection/Debug.
    reflect, debug = prompts(exchanges, "reflection_debug")
    assert "the smoke testbench failed" in reflect and "signal=count_o" in reflect
    assert "module tb_smoke_counter_fix" in reflect and "Waveform explanation" in reflect
    assert "module tb_smoke_counter_fix" in debug and "Fix ONLY" in debug
    error_log = [e["signature"] for e in StateStore(run / "state.sqlite").error_log()]
    assert error_log[0].startswith("smoke ")
    assert hidden_leaks(exchanges) == []


def test_broken_testbench_is_repaired_once_then_set_aside(tmp_path: Path) -> None:
    broken = smoke_gray_tb(broken=True)
    rules = [
        {"match": ["Block: gray\n", "Step: testbench"], "reply": smoke_reply(broken)},
        {"match": ["Block: gray\n", "Step: write"], "reply": code_reply(gray_code(0))},
    ]
    run, states = run_blocks(tmp_path, ["gray"], rules)
    steps, exchanges, _ = record_of(run)
    assert steps == [
        ("testbench", "broken"),
        ("testbench", "set_aside"),
        ("write", "submitted"),
        ("check", "clean"),
        ("simulate", "PASS"),  # no smoke run: the hidden testbench alone judges
        ("synth", "passed"),
    ]
    state = states["gray"]
    assert state.status == BlockStatus.PASSED and state.smoke is not None
    assert state.smoke.repairs == 1 and state.smoke.version == 2
    assert "still broken after 1 repair" in (state.smoke.set_aside or "")
    first, repair = prompts(exchanges, "verification_engineer")
    assert "Problem with it" not in first
    # The repair saw its own bench and the compiler's complaint about it.
    assert "Problem with it" in repair and "does not compile against the interface" in repair
    assert "tb_smoke_gray.sv" in repair and "module tb_smoke_gray" in repair
    assert hidden_leaks(exchanges) == []


def test_wrong_testbench_is_blamed_repaired_then_set_aside(tmp_path: Path) -> None:
    blamed = {
        "structured": {
            **REFLECTION["structured"],
            "hypotheses": [
                {
                    "cause": "the smoke testbench shifts left; the spec says bin >> 1",
                    "evidence": "gray_o matches bin ^ (bin >> 1) for the failing input",
                }
            ],
            "blame": "testbench",
        }
    }
    rules = [
        {"match": ["Block: gray\n", "Step: testbench"], "reply": smoke_reply(smoke_gray_tb(True))},
        {"match": ["Block: gray\n", "Step: reflect"], "reply": blamed},
        {"match": ["Block: gray\n", "Step: write"], "reply": code_reply(gray_code(0))},
    ]
    run, states = run_blocks(tmp_path, ["gray"], rules)
    steps, exchanges, _ = record_of(run)
    assert steps == [
        ("testbench", "written"),
        ("write", "submitted"),
        ("check", "clean"),
        ("smoke", "SIM_FAIL"),
        ("reflect", "testbench_blamed"),
        ("testbench", "repaired"),  # still wrong
        ("smoke", "SIM_FAIL"),
        ("reflect", "testbench_blamed"),
        ("simulate", "PASS"),  # the same, right code goes to the hidden testbench
        ("synth", "passed"),
    ]
    state = states["gray"]
    assert state.status == BlockStatus.PASSED and state.iteration == 1
    assert state.smoke is not None and "judged the testbench wrong" in (state.smoke.set_aside or "")
    repair = prompts(exchanges, "verification_engineer")[1]
    assert "shifts left" in repair and "Fix ONLY this problem in the testbench" in repair
    assert prompts(exchanges, "rtl_engineer") and len(prompts(exchanges, "rtl_engineer")) == 1
    assert hidden_leaks(exchanges) == []
