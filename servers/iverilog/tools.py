"""The `mcp-iverilog` tool registry: what each tool is, over `Icarus`'s methods."""

from __future__ import annotations

from silicon_agent.servers.core import toolchain
from silicon_agent.servers.core.registry import BUILDS, Registry, Tool
from silicon_agent.servers.core.server_info import tool_info
from silicon_agent.servers.core.sv import tools as sv

INSTRUCTIONS = """Icarus Verilog (-g2012) for SystemVerilog: compile, simulate, run_testbench.
Paths are relative to the workspace root. run_testbench gives the trusted verdict: PASS needs
the testbench's one line 'Mismatches: 0 in <m> samples' (m > 0), no MISMATCH line, no
$error/$fatal and a clean exit; design files may not print or end the simulation.
For runs longer than ~50 s use job_start(operation='run_testbench', arguments={...}) and poll
job_status / job_result; job_cancel kills the run."""

REGISTRY = Registry(
    server="iverilog",
    title="Icarus Verilog",
    instructions=INSTRUCTIONS,
    settings=("IVERILOG_PATH", "VVP_PATH"),
    toolchain=lambda: [tool_info(toolchain.iverilog()), tool_info(toolchain.vvp())],
    tools=(
        Tool(
            name="compile",
            method="compile",
            title="Compile with iverilog",
            description="""Compile SystemVerilog sources with iverilog -g2012; diagnostics carry
file, line, column (from slang where iverilog has none), category and a hint.
artifacts.image is the vvp image for simulate.""",
            hints=BUILDS,
            job=True,
            limits={"sources": sv.SOURCE_LIMIT},
        ),
        Tool(
            name="simulate",
            method="simulate",
            title="Simulate a vvp image",
            description="""Run a compiled vvp image and judge the testbench output; waves
'vcd'/'fst' dumps every signal to artifacts.waves.""",
            hints=BUILDS,
            job=True,
            limits={"timeout": sv.TIMEOUT_LIMIT},
        ),
        sv.run_testbench(
            "Compile, simulate and judge in one call. `design` files are checked for anything "
            "that could forge the verdict (output system tasks, references into the testbench)."
        ),
    ),
)
