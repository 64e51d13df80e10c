"""`agent-host memory list|show|search|forget` and the modem server's `memory_search`, on a
project store written through the run's memory (real SQLite, ChromaDB, MiniLM, MCP)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from silicon_agent.host.cli import main
from silicon_agent.host.memory.embedding import PackagedMiniLM
from silicon_agent.host.memory.guard import AnswerKeyGuard
from silicon_agent.host.memory.memory import PROJECT_DIR, TaskMemory
from silicon_agent.host.memory.notes import NoteDraft, Outcome, Signature
from silicon_agent.host.modem_server import build
from silicon_agent.servers.core.workspace import Workspace

from .scenario import write_mcp_json


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, list[str]]:
    memory = TaskMemory(
        "r1",
        tmp_path / "runs" / "r1" / "memory",
        tmp_path / PROJECT_DIR,
        AnswerKeyGuard([]),
        3,
        PackagedMiniLM(),
    )
    ids = []
    for signal, cause, outcome in (
        ("llr_o", "LLR sign inverted: bit one must give a positive LLR", Outcome.FIXED),
        ("tready", "handshake stalls: tready held low while the buffer is full", Outcome.NOT_FIXED),
    ):
        note = memory.write(
            "blk",
            1,
            Signature(category="SIM_MISMATCH", signal=signal),
            NoteDraft(hypothesis=cause, fix_summary="negated the LLR", keywords=[signal]),
            outcome,
        )
        assert note is not None
        ids.append(note.id)
    memory.close()
    return tmp_path, ids


def test_memory_commands(workspace: tuple[Path, list[str]], capsys: pytest.CaptureFixture) -> None:
    root, ids = workspace
    where = ["memory", "--project", str(root)]
    assert main([*where, "list"]) == 0
    listed = capsys.readouterr().out
    assert all(i in listed for i in ids) and "not_fixed" in listed
    assert main([*where, "show", ids[0]]) == 0
    assert '"outcome": "fixed"' in capsys.readouterr().out
    assert main([*where, "search", "LLR", "has", "the", "wrong", "sign", "-k", "1"]) == 0
    assert ids[0] in capsys.readouterr().out
    assert main([*where, "forget", ids[0]]) == 0
    capsys.readouterr()
    assert main([*where, "list"]) == 0
    assert ids[0] not in capsys.readouterr().out
    assert main([*where, "forget", ids[0]]) == 2
    # A run's own store by its id.
    assert main(["--runs-dir", str(root / "runs"), "memory", "--run", "r1", "show", ids[1]]) == 0


@pytest.mark.anyio
async def test_memory_search_tool(workspace: tuple[Path, list[str]]) -> None:
    root, ids = workspace
    # The server's state folder holds the runs (here the fixture's folder, runs/r1).
    server = build(Workspace.open(root), state=root, mcp_path=write_mcp_json(root, []))
    async with Client(server) as client:
        reply = await client.call_tool("memory_search", {"query": "valid stalls on tready", "k": 1})
        assert not reply.is_error, reply.content
        hits = reply.structured_content["result"]
        assert [h["id"] for h in hits] == [ids[1]] and hits[0]["outcome"] == "not_fixed"
        bad = await client.call_tool("memory_search", {"query": "x", "k": 50})
        assert bad.is_error and "k: INVALID_INPUT" in str(bad.content)
