"""A seed given back to `verify_block` replays its cases, and a PASS on a replayed seed is
never given on those vectors alone: the caller has seen their expected values in earlier
replies, so a fresh draw confirms it. Over MCP stdio, as a client calls it."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from silicon_agent.hdl.registry import REPO, load_registry

from .test_verify_block_mutants import serve_on_icarus, verify

pytestmark = pytest.mark.anyio


async def test_a_pass_on_a_replayed_seed_is_confirmed_on_a_fresh_draw(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    rel = load_registry().block("qam_demodulator").rtl_file
    (workspace / Path(rel).name).write_text((REPO / rel).read_text())
    params = serve_on_icarus(tmp_path, workspace, tmp_path)
    call = {"block": "qam_demodulator", "rtl_files": [Path(rel).name]}
    async with Client(params) as client:
        fresh = await verify(client, call)
        assert fresh["status"] == "PASS", fresh
        assert "confirmed" not in fresh["summary"]
        replayed = await verify(client, {**call, "seed": fresh["seed"]})
    assert replayed["status"] == "PASS" and replayed["seed"] == fresh["seed"], replayed
    confirmed = replayed["summary"].rsplit("(confirmed on a fresh seed ", 1)
    assert len(confirmed) == 2, replayed["summary"]
    other = int(confirmed[1].rstrip(")"))
    assert other != fresh["seed"]
    # Both draws' runs are listed: the replayed seed's, then the fresh one's.
    assert len(replayed["runs"]) == 2 * len(fresh["runs"])
