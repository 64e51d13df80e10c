"""The iverilog and verilator servers over MCP: in-process clients for every tool, progress,
jobs, golden manifests; and every server launched exactly as mcp.json says, over stdio."""

from __future__ import annotations

import asyncio
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
from silicon_agent.servers.iverilog.server import build as build_iverilog
from silicon_agent.servers.verilator.server import build as build_verilator
from tests.conftest import REPO, processes_mentioning

pytestmark = pytest.mark.anyio
COUNTER = ["examples/counter/counter.sv"]
COUNTER_TB = ["examples/counter/tb_counter.sv"]


@pytest.mark.parametrize("name", ["iverilog", "verilator"])
async def test_manifest_matches_golden_file(name: str) -> None:
    assert render(await live_manifest(name)) == manifest_path(name).read_text(), (
        f"the {name} tool contract changed: if on purpose, run "
        f"python -m silicon_agent.servers.core.manifest {name} --write"
    )


async def test_iverilog_tools_in_process(workspace_dir: Path) -> None:
    server = build_iverilog(Workspace.open(workspace_dir))
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    async with Client(server) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {
            "compile",
            "simulate",
            "run_testbench",
            "job_start",
            "job_status",
            "job_result",
            "job_cancel",
        } <= names
        compiled = await client.call_tool(
            "compile", {"sources": COUNTER + COUNTER_TB, "top": "tb_counter"}
        )
        assert not compiled.is_error
        image = compiled.structured_content["artifacts"]["image"]
        ran = await client.call_tool("simulate", {"image": image, "plusargs": ["CYCLES=40"]})
        assert ran.structured_content["status"] == "PASS"
        verdict = await client.call_tool(
            "run_testbench",
            {"design": ["examples/counter/counter_broken.sv"], "testbench": COUNTER_TB},
            progress_callback=on_progress,
        )
        body = verdict.structured_content
        assert body["status"] == "SIM_FAIL"
        assert body["first_mismatch"]["signal"] == "count_o"
        assert progress and any("simulating" in (m or "") for _, m in progress)
        bad = await client.call_tool("compile", {"sources": ["../x.sv"]})
        assert bad.structured_content["status"] == "INVALID_INPUT"
        wrong_type = await client.call_tool("compile", {"sources": 5})
        assert wrong_type.is_error


async def test_jobs_poll_and_cancel(workspace_dir: Path) -> None:
    root = workspace_dir
    (root / "slow_tb.sv").write_text(
        "module slow_tb; logic clk = 0; always #1 clk = ~clk; endmodule\n"
    )
    (root / "slow_tb.sv").chmod(0o644)
    server = build_iverilog(Workspace.open(root))
    async with Client(server) as client:
        started = await client.call_tool(
            "job_start",
            {
                "operation": "run_testbench",
                "arguments": {"design": COUNTER, "testbench": COUNTER_TB},
            },
        )
        job_id = started.structured_content["job_id"]
        done = await client.call_tool("job_result", {"job_id": job_id, "wait_s": 30})
        assert done.structured_content["state"] == "done"
        assert done.structured_content["result"]["status"] == "PASS"

        endless = await client.call_tool(
            "job_start",
            {
                "operation": "run_testbench",
                "arguments": {
                    "design": COUNTER,
                    "testbench": ["slow_tb.sv"],
                    "top": "slow_tb",
                    "timeout_s": 600,
                },
            },
        )
        endless_id = endless.structured_content["job_id"]
        await anyio.sleep(1.5)
        status = await client.call_tool("job_status", {"job_id": endless_id})
        assert status.structured_content["state"] == "running"
        cancelled = await client.call_tool("job_cancel", {"job_id": endless_id})
        assert cancelled.structured_content["state"] == "cancelled"
        await asyncio.sleep(0.3)
        marker = str(root / ".silicon-agent")
        assert processes_mentioning(marker) == []
        unknown = await client.call_tool("job_status", {"job_id": "nope"})
        assert unknown.is_error and "no job" in unknown.content[0].text
        bad_op = await client.call_tool("job_start", {"operation": "rm", "arguments": {}})
        assert bad_op.is_error and "unknown operation" in bad_op.content[0].text


async def test_verilator_lint_in_process(workspace_dir: Path) -> None:
    server = build_verilator(Workspace.open(workspace_dir))
    async with Client(server) as client:
        result = await client.call_tool("lint", {"sources": ["sv/width_mismatch.sv"]})
        body = result.structured_content
        assert body["status"] == "PASS" and body["tool"] == "verilator"
        assert any(d["code"] == "WIDTHTRUNC" for d in body["diagnostics"])


def _mcp_servers() -> dict[str, dict]:
    return json.loads((REPO / "mcp.json").read_text())["mcpServers"]


@pytest.mark.parametrize("name", sorted(_mcp_servers()))
async def test_servers_launch_as_mcp_json_says(name: str) -> None:
    """Start each server with the command, args and env of mcp.json, from the repo root."""
    entry = _mcp_servers()[name]
    command = REPO / entry["command"]
    if not command.exists():
        pytest.fail(f"{entry['command']} is missing: run make setup")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **entry.get("env", {})}
    params = StdioServerParameters(
        command=str(command), args=entry.get("args", []), env=env, cwd=str(REPO)
    )
    with anyio.fail_after(120):
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            assert tools, f"{name} lists no tools"
            if name == "iverilog":
                result = await client.call_tool(
                    "run_testbench",
                    {
                        "design": ["hdl/examples/fifo/fifo.sv"],
                        "testbench": ["hdl/examples/fifo/tb_fifo.sv"],
                    },
                )
                assert result.structured_content["status"] == "PASS"
            elif name == "verilator":
                result = await client.call_tool("lint", {"sources": ["hdl/examples/fifo/fifo.sv"]})
                assert result.structured_content["status"] == "PASS"
    assert sys.executable


@pytest.mark.slow
async def test_verilator_run_testbench_in_process(workspace_dir: Path) -> None:
    server = build_verilator(Workspace.open(workspace_dir))
    async with Client(server) as client:
        result = await client.call_tool(
            "run_testbench",
            {
                "design": ["examples/fifo/fifo_broken.sv"],
                "testbench": ["examples/fifo/tb_fifo.sv"],
                "waves": "vcd",
                "timeout_s": 120,
            },
        )
        body = result.structured_content
        assert body["status"] == "SIM_FAIL" and body["tool"] == "verilator"
        assert body["first_mismatch"]["signal"] == "m_axis_tdata_o"
        assert (workspace_dir / body["artifacts"]["waves"]).read_text().startswith("$")
