"""Bounded before parse: every hostile waveform is refused naming the limit it breaks, by the
real console server over stdio, and the same server process answers a good call after each."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.vcd import limits
from silicon_agent.servers.vcd.api import Waves

from . import hostile
from .vcdgen import write_vcd

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.anyio


def _good(root: Path) -> None:
    changes = [(0, "clk", "0"), (0, "bus", "0" * 300)]
    for c in range(10):
        changes += [(10 * c + 5, "clk", "1"), (10 * c + 10, "clk", "0")]
    changes += [(25, "bus", "1" * 300)]
    write_vcd(root / "good.vcd", [("clk", 1), ("bus", 300)], changes, scope="top", end=100)


@pytest.mark.slow
async def test_each_limit_refused_and_the_server_still_answers(tmp_path: Path) -> None:
    expected = hostile.write_all(tmp_path)
    _good(tmp_path)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "silicon_agent.servers.vcd.server", "--workspace", str(tmp_path)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )
    with anyio.fail_after(600):
        async with Client(params) as client:
            for name, limit in expected.items():
                refused = await client.call_tool("summary", {"file": name})
                error = refused.structured_content["error"]
                assert refused.structured_content["ok"] is False, name
                assert limit in error["message"], (name, error)
                assert error["argument"] == "file"
                after = await client.call_tool(
                    "values_at", {"file": "good.vcd", "signals": ["bus"], "times": [30]}
                )
                assert after.structured_content["ok"] is True, (name, after.structured_content)
                value = after.structured_content["rows"][0]["values"]["top.bus"]
                assert value.startswith("300'h") and value.endswith("f" * 8)
            fst = await client.call_tool("list_signals", {"file": "good.fst"})
            assert fst.structured_content["ok"] is True
            assert {s["name"] for s in fst.structured_content["signals"]} >= {"t.clk", "t.w"}


async def test_wide_signals_below_the_budget_still_load(tmp_path: Path) -> None:
    """The limits refuse what would exhaust the reader, not wide signals as such."""
    width = limits.MAX_SIGNAL_WIDTH
    changes = [(0, "wide", "0" * width)] + [(t, "wide", str(t & 1)) for t in range(1, 200)]
    write_vcd(tmp_path / "ok.vcd", [("wide", width)], changes, scope="top", end=200)
    waves = Waves(Workspace.open(tmp_path))
    table = await waves.values_at("ok.vcd", ["wide"], times=[3])
    assert table.ok, table.error
    assert table.rows[0].values["top.wide"].endswith("1")
