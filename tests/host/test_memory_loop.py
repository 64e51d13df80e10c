"""Task memory in the design loop: real iverilog over MCP, real SQLite and ChromaDB, the
packaged MiniLM; only the LLM is scripted."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from silicon_agent.host.memory.embedding import PackagedMiniLM
from silicon_agent.host.memory.notes import Outcome
from silicon_agent.host.memory.store import MemoryStore
from silicon_agent.host.run_setup import create_run
from silicon_agent.host.runs import execute_run
from silicon_agent.host.state import BlockStatus, StateStore
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.server import build as build_iverilog

from .memory_scenario import TAG, write_config, write_design
from .scenario import TB_MARKER, write_mcp_json


def run_design(
    root: Path, design: Path, run_id: str, memory: dict | None, mode: str | None = None
) -> tuple[Path, dict]:
    config = write_config(root, memory)
    mcp = write_mcp_json(root, [])
    run = create_run(design, root / "runs", str(config), str(mcp), run_id=run_id, memory=mode)
    servers = {"iverilog": build_iverilog(Workspace.open(root))}
    states = asyncio.run(execute_run(run, in_process=servers))
    return run, states


def debug_prompts(run: Path, block: str) -> list[str]:
    return prompts_of(run, block, "Step: debug")


def prompts_of(run: Path, block: str, step: str) -> list[str]:
    store = StateStore(run / "state.sqlite")
    try:
        return [
            "\n".join(m.content for m in x.messages)
            for _, x in store.exchanges()
            if x.correlation_id.startswith(block + "/") and step in x.messages[-1].content
        ]
    finally:
        store.close()


def open_store(folder: Path) -> MemoryStore:
    return MemoryStore(folder, PackagedMiniLM())


@pytest.mark.slow
def test_note_of_a_reaches_b_and_saves_an_iteration(tmp_path: Path) -> None:
    with_memory = tmp_path / "on"
    without = tmp_path / "off"
    for root in (with_memory, without):
        root.mkdir()
    run_on, on = run_design(
        with_memory, write_design(with_memory, ["counter_a", "counter_b"]), "on", {"enabled": True}
    )
    _, off = run_design(without, write_design(without, ["counter_a", "counter_b"]), "off", None)
    assert on["counter_a"].status == off["counter_a"].status == BlockStatus.PASSED
    assert on["counter_b"].status == off["counter_b"].status == BlockStatus.PASSED
    assert on["counter_a"].iteration == off["counter_a"].iteration == 2
    # B's Debug prompt held A's note with its fix: one iteration sooner.
    assert on["counter_b"].iteration == 2 and off["counter_b"].iteration == 3
    prompts = debug_prompts(run_on, "counter_b")
    assert TAG in prompts[0] and "outcome: FIXED" in prompts[0]
    assert "Task memory: 1 note(s) offered" in prompts[0]
    assert not any(TAG in p for p in debug_prompts(without / "runs" / "off", "counter_b"))
    # The run folder keeps which notes were offered; the step record too.
    offered = json.loads(
        (run_on / "attempts" / "counter_b" / "iter01" / "memory_offered.json").read_text()
    )
    assert [o["block"] for o in offered] == ["counter_a"]
    store = StateStore(run_on / "state.sqlite")
    steps = store.steps("counter_b")
    kinds = {seq: (r.block, r.kind, r.iteration) for seq, r in store.steps()}
    embeds = [(kinds[seq], e) for seq, e in store.events() if e.kind == "memory_embed"]
    events = [e for _, e in embeds]
    store.close()
    # Retrieval: at most one embedding per attempt (the others embed the notes written).
    retrievals = [where for where, _ in embeds if where[1] != "remember"]
    assert sorted((b, i) for b, _, i in retrievals) == [("counter_a", 1), ("counter_b", 1)]
    assert any(r.detail.get("memory_offered") == [offered[0]["id"]] for _, r in steps)
    assert "remember" in [r.kind for _, r in steps]
    # Memory calls are cost events; retrieval embeds once per failed attempt (B failed once,
    # A once): writes embed once per note.
    recalls = [e for e in events if e.correlation_id.startswith("counter_b/")]
    assert recalls and all(e.component == "memory" and e.input_tokens > 0 for e in events)
    memory = open_store(run_on / "memory")
    try:
        notes = {n.block: n for n in memory.notes()}
        assert notes["counter_a"].outcome == Outcome.FIXED
        assert "+" in notes["counter_a"].fix_diff and notes["counter_a"].signature.signal
        # A's note helped B's passing attempt: the later outcome proves it right.
        assert memory.get(notes["counter_a"].id).confirmed == 1
        # The design context: A's interface reached B's prompts.
        assert "counter_a" in memory.context("on")
        assert TB_MARKER not in memory.dump_text()
    finally:
        memory.close()
    # The design context: A's interface decision reached B's first write.
    writes = prompts_of(run_on, "counter_b", "Step: write")
    assert "Design context" in writes[0]
    assert "- counter_a: #( parameter int WIDTH = 8 )" in writes[0]


@pytest.mark.slow
def test_project_store_carries_notes_across_runs(tmp_path: Path) -> None:
    results = {}
    for mode in ("project", "run"):
        root = tmp_path / mode
        root.mkdir()
        first = write_design(root, ["counter_a"], "design_a.yaml")
        second = write_design(root, ["counter_b"], "design_b.yaml")
        run_design(root, first, "first", None, mode)
        run2, states = run_design(root, second, "second", None, mode)
        results[mode] = (states["counter_b"].iteration, debug_prompts(run2, "counter_b"))
    assert results["project"][0] == 2 and TAG in results["project"][1][0]
    assert results["run"][0] == 3 and not any(TAG in p for p in results["run"][1])
    # Without A's note B's first fix made things worse: recorded, and offered to the next
    # Debug prompt with that outcome.
    memory = open_store(tmp_path / "run" / "runs" / "second" / "memory")
    try:
        outcomes = [(n.iteration, n.outcome) for n in memory.notes("counter_b")]
    finally:
        memory.close()
    assert outcomes == [(1, Outcome.MADE_WORSE), (2, Outcome.FIXED)]
    assert "outcome: MADE WORSE" in results["run"][1][1]
