"""The `mcp-verilator` tool registry: what each tool is, over `Verilator`'s methods."""

from __future__ import annotations

from silicon_agent.servers.core import toolchain
from silicon_agent.servers.core.registry import BUILDS, Registry, Tool
from silicon_agent.servers.core.server_info import tool_info
from silicon_agent.servers.core.sv import tools as sv

INSTRUCTIONS = """Verilator for SystemVerilog: lint (-Wall, every warning with its code and
category) and run_testbench (--binary --timing --assert). Paths are relative to the workspace
root. A Verilator build takes several seconds; for long runs use
job_start(operation='run_testbench', arguments={...}) and poll job_status / job_result."""

REGISTRY = Registry(
    server="verilator",
    title="Verilator",
    instructions=INSTRUCTIONS,
    settings=("VERILATOR_ROOT",),
    toolchain=lambda: [tool_info(toolchain.verilator())],
    tools=(
        Tool(
            name="lint",
            method="lint",
            title="Lint with Verilator",
            description="""verilator --lint-only -Wall, merged with slang's diagnostics: file,
line, column, Verilator code, category and a hint for each finding.""",
            hints=BUILDS,
            job=True,
            limits={"sources": sv.SOURCE_LIMIT, "timeout": "120 s"},
        ),
        sv.run_testbench(
            "Build with verilator --binary --timing --assert, run and judge. `design` files "
            "are checked for anything that could forge the verdict."
        ),
    ),
)
