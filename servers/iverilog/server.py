"""MCP server `mcp-iverilog`: a thin layer over servers.iverilog.api."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

from host.roles.prompts import register_role_prompts
from servers.core.jobs import JobManager
from servers.core.mcp_app import add_job_tools, mcp_progress, serve
from servers.core.models import ToolResult
from servers.core.sv.mcp_tools import Waves, add_run_testbench
from servers.core.workspace import Workspace
from servers.iverilog.api import Icarus

INSTRUCTIONS = """Icarus Verilog (-g2012) for SystemVerilog: compile, simulate, run_testbench.
Paths are relative to the workspace root. run_testbench gives the trusted verdict: PASS needs
the testbench's one line 'Mismatches: 0 in <m> samples' (m > 0), no MISMATCH line, no
$error/$fatal and a clean exit; design files may not print or end the simulation.
For runs longer than ~50 s use job_start(operation='run_testbench', arguments={...}) and poll
job_status / job_result; job_cancel kills the run."""


def build(workspace: Workspace) -> MCPServer:
    api = Icarus(workspace)
    server = MCPServer("silicon-agent-iverilog", instructions=INSTRUCTIONS)
    jobs = JobManager(
        {
            "compile": lambda args, progress: api.compile(**args, progress=progress),
            "simulate": lambda args, progress: api.simulate(**args, progress=progress),
            "run_testbench": lambda args, progress: api.run_testbench(**args, progress=progress),
        }
    )

    @server.tool()
    async def compile(
        sources: list[str],
        top: str | None = None,
        defines: dict[str, str] = {},  # noqa: B006 - the published contract's default
        include_dirs: list[str] = [],  # noqa: B006
        ctx: Context | None = None,
    ) -> ToolResult:
        """Compile SystemVerilog sources with iverilog -g2012; diagnostics carry file, line,
        column (from slang where iverilog has none), category and a hint.
        artifacts.image is the vvp image for simulate."""
        return await api.compile(sources, top, defines, include_dirs, mcp_progress(ctx))

    @server.tool()
    async def simulate(
        image: str,
        plusargs: list[str] = [],  # noqa: B006
        timeout_s: float = 60,
        waves: Waves = "none",
        ctx: Context | None = None,
    ) -> ToolResult:
        """Run a compiled vvp image and judge the testbench output; waves 'vcd'/'fst' dumps
        every signal to artifacts.waves."""
        return await api.simulate(image, plusargs, timeout_s, waves, mcp_progress(ctx))

    add_run_testbench(
        server,
        api,
        "Compile, simulate and judge in one call. `design` files are checked for anything "
        "that could forge the verdict (output system tasks, references into the testbench).",
    )

    add_job_tools(server, jobs)
    register_role_prompts(server)
    return server


def main() -> None:
    serve(build, "mcp-iverilog")


if __name__ == "__main__":
    main()
