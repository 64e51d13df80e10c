"""The MCP layer: golden manifest, in-process client, and the console script over stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from silicon_agent.servers.core.manifest import live_manifest, manifest_path, render
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.openlane.server import build

sys.path.insert(0, str(Path(__file__).parent))
import runfolders

pytestmark = pytest.mark.anyio
REPO = Path(__file__).resolve().parents[2]


async def test_manifest_matches_the_committed_golden_file() -> None:
    live = render(await live_manifest("openlane"))
    assert manifest_path("openlane").read_text() == live
    tools = json.loads(live)["tools"]
    assert {
        "check_environment",
        "generate_config",
        "run_flow",
        "read_reports",
        "advise",
        "synthesize",
        "job_start",
        "job_status",
        "job_result",
        "job_cancel",
    } <= set(tools)


async def test_in_process_tools(ws: Workspace, yosys_warm: float) -> None:
    runfolders.openlane2_run(ws.root)
    async with Client(build(ws)) as client:
        env = await client.call_tool("check_environment", {})
        assert not env.is_error
        names = {t["name"]: t for t in env.structured_content["tools"]}
        assert {"openlane", "pdk", "openroad", "magic", "netgen", "klayout", "sta"} <= set(names)
        for tool in names.values():
            assert tool["present"] or tool["install"], tool

        report = await client.call_tool("read_reports", {"run_dir": "runs/RUN_2026"})
        assert report.structured_content["worst_setup_slack_ns"] == pytest.approx(-1.31)

        advice = await client.call_tool(
            "advise", {"summary": report.structured_content, "area_budget_um2": 5000}
        )
        rules = {r["rule"] for r in advice.structured_content["recommendations"]}
        assert {"setup_wns", "area_budget"} <= rules

        bad = await client.call_tool("read_reports", {"run_dir": "../outside"})
        assert bad.structured_content["status"] == "INVALID_INPUT"

        synth = await client.call_tool(
            "synthesize",
            {"sources": ["hdl/counter/counter.sv"], "top": "counter", "clock_period_ns": 5},
        )
        assert synth.structured_content["status"] == "PASS", synth.structured_content
        assert synth.structured_content["area_um2"] > 0

        config = await client.call_tool(
            "generate_config",
            {
                "design_name": "counter",
                "verilog_files": ["hdl/counter/counter.sv"],
                "clock_port": "clk",
                "extra": {"NOT_A_VARIABLE": 1},
            },
        )
        assert config.structured_content["status"] == "INVALID_INPUT"


async def test_run_flow_without_openlane_is_a_tool_error(ws: Workspace) -> None:
    async with Client(build(ws)) as client:
        env = (await client.call_tool("check_environment", {})).structured_content
        if env["openlane_ready"]:
            pytest.skip("a full OpenLane installation is present")
        missing = await client.call_tool("run_flow", {"design_dir": "hdl/counter"})
        assert missing.structured_content["status"] == "INVALID_INPUT"  # no config.json yet
        assert missing.structured_content["error"]["argument"] == "config"
        await client.call_tool(
            "generate_config",
            {
                "design_name": "counter",
                "verilog_files": ["hdl/counter/counter.sv"],
                "clock_port": "clk",
            },
        )
        flow = await client.call_tool("run_flow", {"design_dir": "hdl/counter"})
        result = flow.structured_content
        assert result["status"] == "TOOL_ERROR"
        assert result["environment"]["missing_for_openlane"]
        assert result["error"]["message"].startswith("OpenLane cannot run here")
        started = await client.call_tool(
            "job_start", {"operation": "run_flow", "arguments": {"design_dir": "hdl/counter"}}
        )
        job_id = started.structured_content["job_id"]
        done = await client.call_tool("job_result", {"job_id": job_id, "wait_s": 30})
        assert done.structured_content["state"] == "done"
        assert done.structured_content["result"]["status"] == "TOOL_ERROR"


async def test_console_script_over_stdio(tmp_path: Path) -> None:
    runfolders.openlane1_run(tmp_path)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "silicon_agent.servers.openlane.server", "--workspace", str(tmp_path)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )
    async with Client(params) as client:
        result = await client.call_tool("read_reports", {"run_dir": "designs/spm/runs/RUN_OL1"})
        assert result.structured_content["flavor"] == "openlane1"
        assert result.structured_content["magic_drc_errors"] == 1450


def _processes_in(root: Path) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if Path(os.readlink(proc / "cwd")) == root:
                found.append(int(proc.name))
        except OSError:
            continue
    return found


async def test_job_cancel_kills_the_synthesis_tree(ws: Workspace, yosys_warm: float) -> None:
    import anyio

    async with Client(build(ws)) as client:
        started = await client.call_tool(
            "job_start",
            {
                "operation": "synthesize",
                "arguments": {
                    "sources": ["hdl/fifo/fifo.sv"],
                    "top": "fifo",
                    "clock_period_ns": 1.5,
                    "params": {"WIDTH": 64, "DEPTH": 64},
                },
            },
        )
        job_id = started.structured_content["job_id"]
        for _ in range(100):  # until yosys runs with the workspace as its cwd
            if _processes_in(ws.root):
                break
            await anyio.sleep(0.05)
        assert _processes_in(ws.root), "yosys never started"
        cancelled = await client.call_tool("job_cancel", {"job_id": job_id})
        assert cancelled.structured_content["state"] == "cancelled"
        await anyio.sleep(0.5)
        assert _processes_in(ws.root) == []
