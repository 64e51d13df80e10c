"""The MCP layer: golden manifest, every tool through an in-process client, jobs, and the
console script over stdio."""

from __future__ import annotations

import base64
import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from silicon_agent.servers.core.manifest import live_manifest, manifest_path, render
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.vcd.server import build

from .vcdgen import write_vcd

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.anyio


def _dump(root: Path) -> None:
    changes = [(0, "clk", "0"), (0, "s_axis_tvalid_i", "0"), (0, "s_axis_tready_o", "1"),
               (0, "s_axis_tdata_i", "0" * 8)]  # fmt: skip
    for c in range(30):
        changes += [(10 * c + 5, "clk", "1"), (10 * c + 10, "clk", "0")]
    for c in range(3, 20, 2):
        changes += [(10 * c + 1, "s_axis_tvalid_i", "1"),
                    (10 * c + 1, "s_axis_tdata_i", format(c, "08b")),
                    (10 * c + 11, "s_axis_tvalid_i", "0")]  # fmt: skip
    write_vcd(
        root / "w.vcd",
        [("clk", 1), ("s_axis_tvalid_i", 1), ("s_axis_tready_o", 1), ("s_axis_tdata_i", 8)],
        changes,
        scope="top",
        end=300,
    )


async def test_manifest_matches_the_golden_file() -> None:
    live = render(await live_manifest("vcd"))
    assert manifest_path("vcd").read_text() == live


async def test_every_tool_in_process(tmp_path: Path) -> None:
    _dump(tmp_path)
    (tmp_path / "gold.hex").write_text("// beats\n@0\n03 05 07\n09 /* gap */\n0b 0d 0f 11 14\n")
    server = build(Workspace.open(tmp_path))
    async with Client(server) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"list_signals", "values_at", "window", "find_event", "compare",
                "explain_mismatch", "handshake_stats", "render", "summary"} <= names  # fmt: skip

        listed = await client.call_tool("list_signals", {"file": "w.vcd", "pattern": "*tvalid*"})
        assert [s["name"] for s in listed.structured_content["signals"]] == ["top.s_axis_tvalid_i"]
        values = await client.call_tool(
            "values_at", {"file": "w.vcd", "signals": ["s_axis_tdata_i"], "cycles": [4, 6]}
        )
        rows = values.structured_content["rows"]
        assert [r["values"]["top.s_axis_tdata_i"] for r in rows] == ["8'h03", "8'h05"]
        window = await client.call_tool(
            "window", {"file": "w.vcd", "signals": ["s_axis_tvalid_i"], "start": 0,
                       "end": 300, "clock": "clk", "max_rows": 5},
        )  # fmt: skip
        assert window.structured_content["truncated"] is True
        assert len(window.structured_content["rows"]) == 5
        event = await client.call_tool(
            "find_event",
            {"file": "w.vcd", "condition": "s_axis_tvalid_i && s_axis_tdata_i == 'h09",
             "clock": "clk"},
        )  # fmt: skip
        assert event.structured_content["found"] and event.structured_content["time"] == 95
        compared = await client.call_tool(
            "compare",
            {"file": "w.vcd", "reference": "gold.hex", "vector_signal": "s_axis_tdata_i",
             "when": "s_axis_tvalid_i && s_axis_tready_o", "clock": "clk"},
        )  # fmt: skip
        first = compared.structured_content["first"]
        assert compared.structured_content["compared"] == 9
        assert first["beat"] == 8 and first["expected"] == "8'h14" and first["actual"] == "8'h13"
        stats = await client.call_tool("handshake_stats", {"file": "w.vcd", "prefix": "s_axis"})
        (one,) = stats.structured_content["interfaces"]
        assert one["beats"] == 9 and one["stalls"] == 0 and one["bubbles"] > 0
        explained = await client.call_tool(
            "explain_mismatch", {"file": "w.vcd", "signal": "s_axis_tdata_i", "time": "95"}
        )
        assert explained.structured_content["value"] == "8'h09"
        assert explained.structured_content["changed_at"] == 91
        assert explained.structured_content["handshakes"][0]["beats"] >= 1
        summary = await client.call_tool("summary", {"file": "w.vcd"})
        assert summary.structured_content["busiest"][0]["name"] == "top.clk"

        picture = await client.call_tool(
            "render", {"file": "w.vcd", "signals": ["clk", "s_axis_tdata_i"], "end": 120}
        )
        assert not picture.is_error
        image = picture.content[0]
        assert image.type == "image" and image.mime_type == "image/png"
        assert base64.b64decode(image.data).startswith(b"\x89PNG")
        meta = json.loads(picture.content[1].text)
        assert (tmp_path / meta["path"]).is_file()

        # refusals: structured errors, nothing raised
        missing = await client.call_tool("summary", {"file": "../etc/passwd"})
        assert missing.structured_content["ok"] is False
        assert "outside the workspace" in missing.structured_content["error"]["message"]
        unknown = await client.call_tool(
            "values_at", {"file": "w.vcd", "signals": ["nope"], "times": [0]}
        )
        assert unknown.structured_content["error"]["argument"] == "signals"
        bad_render = await client.call_tool("render", {"file": "w.vcd", "signals": ["nope"]})
        assert bad_render.is_error and "no signal 'nope'" in bad_render.content[0].text


async def test_summary_as_a_job(tmp_path: Path) -> None:
    _dump(tmp_path)
    server = build(Workspace.open(tmp_path))
    async with Client(server) as client:
        started = await client.call_tool(
            "job_start", {"operation": "summary", "arguments": {"file": "w.vcd"}}
        )
        job = started.structured_content["job_id"]
        done = await client.call_tool("job_result", {"job_id": job, "wait_s": 30})
        assert done.structured_content["state"] == "done"
        assert done.structured_content["result"]["end"] == 300


async def test_console_script_over_stdio(tmp_path: Path) -> None:
    _dump(tmp_path)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "silicon_agent.servers.vcd.server", "--workspace", str(tmp_path)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )
    with anyio.fail_after(60):
        async with Client(params) as client:
            result = await client.call_tool(
                "values_at", {"file": "w.vcd", "signals": ["clk"], "times": [5, 10]}
            )
            rows = result.structured_content["rows"]
            assert [r["values"]["top.clk"] for r in rows] == ["1'b1", "1'b0"]
