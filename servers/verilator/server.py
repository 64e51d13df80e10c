"""MCP server `mcp-verilator`: a thin layer over servers.verilator.api."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

from host.roles.prompts import register_role_prompts
from servers.core.jobs import JobManager
from servers.core.mcp_app import add_job_tools, mcp_progress, serve
from servers.core.models import ToolResult
from servers.core.sv.mcp_tools import add_run_testbench
from servers.core.workspace import Workspace
from servers.verilator.api import Verilator

INSTRUCTIONS = """Verilator for SystemVerilog: lint (-Wall, every warning with its code and
category) and run_testbench (--binary --timing --assert). Paths are relative to the workspace
root. A Verilator build takes several seconds; for long runs use
job_start(operation='run_testbench', arguments={...}) and poll job_status / job_result."""


def build(workspace: Workspace) -> MCPServer:
    api = Verilator(workspace)
    server = MCPServer("silicon-agent-verilator", instructions=INSTRUCTIONS)
    jobs = JobManager(
        {
            "lint": lambda args, progress: api.lint(**args, progress=progress),
            "run_testbench": lambda args, progress: api.run_testbench(**args, progress=progress),
        }
    )

    @server.tool()
    async def lint(
        sources: list[str],
        top: str | None = None,
        defines: dict[str, str] = {},  # noqa: B006 - the published contract's default
        include_dirs: list[str] = [],  # noqa: B006
        ctx: Context | None = None,
    ) -> ToolResult:
        """verilator --lint-only -Wall, merged with slang's diagnostics: file, line, column,
        Verilator code, category and a hint for each finding."""
        return await api.lint(sources, top, defines, include_dirs, mcp_progress(ctx))

    add_run_testbench(
        server,
        api,
        "Build with verilator --binary --timing --assert, run and judge. `design` files "
        "are checked for anything that could forge the verdict.",
    )

    add_job_tools(server, jobs)
    register_role_prompts(server)
    return server


def main() -> None:
    serve(build, "mcp-verilator")


if __name__ == "__main__":
    main()
