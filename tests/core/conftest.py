"""For the design-rule tests: a workspace (rules_root, rules_workspace), both simulators (sim),
and a counter that fails tb_counter.

Every design the tests try is glued onto OFF_BY_THREE, which tb_counter fails on every
sample: a PASS can only come from what the test glued on.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Category, Status, ToolResult
from silicon_agent.servers.core.sv.flow import SimulatorFlow
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.verilator.api import Verilator
from tests.conftest import EXAMPLES, make_tree_readable, make_world_readable_dir

TB = "examples/counter/tb_counter.sv"
FORGED = '"Mismatches: 0 in 594 samples"'
OFF_BY_THREE = """module counter #(parameter int WIDTH = 8) (
  input logic clk, input logic rst_n, input logic en_i,
  output logic [WIDTH-1:0] count_o
);
  always_ff @(posedge clk)
    if (!rst_n) count_o <= '0;
    else if (en_i) count_o <= count_o + WIDTH'(3);
{body}
endmodule
"""
# The line of {body} in OFF_BY_THREE (1-based), after any text put in front of it.
BODY_LINE = 8


def off_by_three(body: str = "", head: str = "") -> str:
    return head + OFF_BY_THREE.format(body=body)


@pytest.fixture(scope="module")
def rules_root() -> Iterator[Path]:
    path = make_world_readable_dir("sa-rules-")
    shutil.copytree(EXAMPLES, path / "examples")
    make_tree_readable(path)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def rules_workspace(rules_root: Path) -> Workspace:
    return Workspace.open(rules_root)


@pytest.fixture(scope="module", params=["iverilog", "verilator"])
def sim(request: pytest.FixtureRequest, rules_workspace: Workspace) -> SimulatorFlow:
    flow: SimulatorFlow = (Icarus if request.param == "iverilog" else Verilator)(rules_workspace)
    if not flow.tool.available:
        pytest.skip(f"{request.param} is not installed")
    return flow


def put(root: Path, relative: str, text: str) -> str:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.parent.chmod(0o755)
    path.write_text(text)
    path.chmod(0o644)
    return relative


def run(sim: SimulatorFlow, design: list[str], tb: list[str] | None = None, **kw) -> ToolResult:
    return asyncio.run(sim.run_testbench(design, tb or [TB], timeout_s=120, **kw))


def refusals(result: ToolResult) -> list[tuple[str | None, int | None, int | None]]:
    return [
        (d.file, d.line, d.column)
        for d in result.diagnostics
        if d.category == Category.FORBIDDEN_CONSTRUCT
    ]


def assert_refused_at(result: ToolResult, file: str, line: int, column: int | None = None):
    """A refusal is a COMPILE_FAIL with a FORBIDDEN_CONSTRUCT at the user's own place."""
    assert result.status == Status.COMPILE_FAIL, (result.status, result.summary)
    places = refusals(result)
    wanted = (file, line, column)
    found = places if column is not None else [(f, ln, None) for f, ln, _ in places]
    assert wanted in found, result.diagnostics
    assert all(d.hint for d in result.diagnostics)
