"""MCP tools that both simulator servers expose with one contract."""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import Context, MCPServer

from ..mcp_app import mcp_progress
from ..models import ToolResult
from .flow import SimulatorFlow
from .trace import TraceSpec

Waves = Literal["none", "vcd", "fst"]


def add_run_testbench(server: MCPServer, api: SimulatorFlow, description: str) -> None:
    async def run_testbench(
        design: list[str],
        testbench: list[str],
        top: str | None = None,
        defines: dict[str, str] = {},  # noqa: B006 - the published contract's default
        include_dirs: list[str] = [],  # noqa: B006
        plusargs: list[str] = [],  # noqa: B006
        timeout_s: float = 60,
        waves: Waves = "none",
        trace: TraceSpec | None = None,
        ctx: Context | None = None,
    ) -> ToolResult:
        return await api.run_testbench(
            design,
            testbench,
            top,
            defines,
            include_dirs,
            plusargs,
            timeout_s,
            waves,
            mcp_progress(ctx),
            trace,
        )

    server.add_tool(run_testbench, name="run_testbench", description=description)
