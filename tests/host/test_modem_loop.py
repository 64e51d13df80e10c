"""The receiver's registry as a design the host runs (`agent-host run hdl/blocks.yaml`): real
simulator and waveform servers over MCP stdio, a scripted team."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from silicon_agent.hdl.mutations import MUTATIONS
from silicon_agent.hdl.registry import load_registry
from silicon_agent.host.run_setup import create_run
from silicon_agent.host.runs import execute_run
from silicon_agent.host.state import BlockStatus, StateStore

from .modem_scenario import (
    ALT_CRC,
    BLOCKS_YAML,
    MUTANT,
    hidden_markers,
    leaks,
    mutant_then_fix_rules,
    reference,
    write_config,
    write_rules,
)
from .scenario import write_mcp_json


def steps(run: Path, block: str) -> list[tuple[str, str, int, dict]]:
    store = StateStore(run / "state.sqlite")
    try:
        return [(r.kind, r.outcome, r.iteration, r.detail) for _, r in store.steps(block)]
    finally:
        store.close()


def prompts(run: Path, role: str) -> list[str]:
    store = StateStore(run / "state.sqlite")
    try:
        return [
            "\n".join(m.content for m in x.messages) for _, x in store.exchanges() if x.role == role
        ]
    finally:
        store.close()


def assert_failed_debugged_passed(run: Path, block: str) -> None:
    """The first answer fails on the hidden testbench; the debug prompt holds the first
    mismatch and the explain_mismatch digest; the second answer passes."""
    states = asyncio.run(execute_run(run))
    assert states[block].status == BlockStatus.PASSED
    assert states[block].iteration == 2
    kinds = [(k, o, i) for k, o, i, _ in steps(run, block)]
    assert kinds[:8] == [
        ("librarian", "skipped", 0),
        ("write", "submitted", 1),
        ("check", "clean", 1),
        ("simulate", "SIM_FAIL", 1),
        ("distill", "explained", 1),
        ("reflect", "hypotheses", 1),
        ("debug", "submitted", 2),
        ("check", "clean", 2),
    ]
    assert kinds[8][:2] == ("simulate", "PASS")
    debug = prompts(run, "reflection_debug")[-1]
    assert "First mismatch: signal=" in debug and "expected=" in debug
    assert "Waveform explanation of the first mismatch" in debug and '"cone"' in debug
    # the same digest as verify_block's: the input beats and the source lines of the cone
    assert '"inputs":[{"port":"s_axis"' in debug and f'"lines":["{block}.sv:' in debug


@pytest.mark.slow
def test_a_mutant_fails_is_debugged_and_nothing_hidden_reaches_a_model(tmp_path: Path) -> None:
    assert MUTANT != ALT_CRC.read_text()
    rules = mutant_then_fix_rules()
    config = write_config(tmp_path, rules)
    mcp = write_mcp_json(tmp_path, ["iverilog", "verilator", "vcd"])
    run = create_run(
        BLOCKS_YAML, tmp_path / "runs", str(config), str(mcp), only=["crc_checker"], run_id="mut"
    )
    assert_failed_debugged_passed(run, "crc_checker")
    # The other blocks were not designed: verified dependencies, and the run says so.
    store = StateStore(run / "state.sqlite")
    staging = store.meta()["staging"]
    store.close()
    assert staging["designed"] == ["crc_checker"] and "turbo_decoder" in staging["provided"]
    # The workspace holds the candidate where the reference would be, never the reference.
    written = run / "hidden" / "workspace" / "hdl" / "rtl" / "crc_checker.sv"
    assert written.read_text() == ALT_CRC.read_text()
    # Nothing of the hidden testbench or the reference RTL anywhere outside the hidden area.
    markers = hidden_markers(["crc_checker"])
    assert len(markers) > 20
    assert leaks(run, markers) == []


# One compare bound off by one: the descrambler leaves its warm-up a beat late.
BOUND = next(m for m in MUTATIONS if m[:2] == ("descrambler", "off-by-one warm-up length"))
BOUND_REFLECTION = {
    "structured": {
        "hypotheses": [
            {
                "cause": "the warm-up ends one count late",
                "evidence": "every output differs from the first beat on",
                "suspect_signal": "warm_cnt_r",
            }
        ],
        "fix_plan": "end the warm-up at the count the specification gives",
    }
}


@pytest.mark.slow
def test_a_wrong_bound_fails_is_debugged_and_the_reference_passes(tmp_path: Path) -> None:
    fixed = reference("descrambler")
    assert fixed.count(BOUND[3]) == 1
    rules = mutant_then_fix_rules(
        "descrambler", fixed.replace(BOUND[3], BOUND[4]), fixed, BOUND_REFLECTION
    )
    config = write_config(tmp_path, rules)
    mcp = write_mcp_json(tmp_path, ["iverilog", "vcd"])
    run = create_run(
        BLOCKS_YAML, tmp_path / "runs", str(config), str(mcp), only=["descrambler"], run_id="b"
    )
    assert_failed_debugged_passed(run, "descrambler")
    # The answers are reference RTL here; the testbench and its vectors stayed hidden.
    assert leaks(run, hidden_markers(["descrambler"], rtl=False)) == []


@pytest.mark.slow
def test_two_runs_draw_different_vector_seeds(tmp_path: Path) -> None:
    config = write_config(tmp_path, [])
    seeds = []
    for run_id in ("a", "b"):
        run = create_run(BLOCKS_YAML, tmp_path, str(config), only=["crc_checker"], run_id=run_id)
        store = StateStore(run / "state.sqlite")
        staging = store.meta()["staging"]
        store.close()
        (case,) = [r for r in staging["runs"]["crc_checker"] if r["simulator"] == "iverilog"][:1]
        seeds.append((staging["seed"], Path(case["directory"]).joinpath("stimulus_bits.hex")))
    assert seeds[0][0] != seeds[1][0]
    assert seeds[0][1].read_text() != seeds[1][1].read_text()


@pytest.mark.slow
def test_replay_of_the_references_passes_every_block_in_dependency_order(tmp_path: Path) -> None:
    """Each block's reference RTL as the RTL Engineer's answer: every block passes at its
    first iteration, after the blocks it depends on, and the integration blocks last (the
    whole receiver on its R.2 case on Verilator). The cases and simulators are the
    registry's `judge` entries."""
    registry = load_registry()
    names = [b.name for b in registry.blocks]
    config = write_config(tmp_path, write_rules(names), parallel=2)
    mcp = write_mcp_json(tmp_path, ["iverilog", "verilator", "vcd"])
    run = create_run(BLOCKS_YAML, tmp_path / "runs", str(config), str(mcp), run_id="replay")
    states = asyncio.run(execute_run(run))
    assert {n: (s.status, s.iteration) for n, s in states.items()} == {
        n: (BlockStatus.PASSED, 1) for n in names
    }
    store = StateStore(run / "state.sqlite")
    records = store.steps()
    store.close()
    started = {r.block: seq for seq, r in reversed(records) if r.kind == "write"}
    passed = {r.block: seq for seq, r in records if r.kind == "simulate" and r.outcome == "PASS"}
    for block in registry.blocks:
        for dep in block.depends_on:
            assert passed[dep] < started[block.name], (dep, block.name)
    integration = {"pdsch_rx_backend", "lte_baseband_top"}
    assert max(passed[n] for n in names if n not in integration) < min(
        passed[n] for n in integration
    )
    assert max(passed, key=passed.__getitem__) == "lte_baseband_top"
    top = [d for k, o, _, d in steps(run, "lte_baseband_top") if k == "simulate"][-1]
    assert top["runs"] == [{"run": "r2_awgn20@verilator", "status": "PASS"}]
    # The answers were the references; the testbenches and vectors stayed hidden all the same.
    assert leaks(run, hidden_markers(names, rtl=False)) == []
