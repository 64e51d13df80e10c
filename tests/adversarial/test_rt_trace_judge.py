"""Red team, class 4 of issue 16: designs that make their testbench print a wrong summary, or
whose outputs pass one judge and not the other. On a hidden-asset run (`trace`) the server's
own trace of the DUT's output beats must disagree, and the verdict be withheld."""

from __future__ import annotations

import asyncio

import pytest

from silicon_agent.servers.core.models import Category, Status, ToolResult
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.verilator.api import Verilator
from tests.conftest import example_trace

from .conftest import TB_COUNTER, WRONG_COUNTER, put

# The counter the testbench wants (+1), with room for an attack on its output.
RIGHT_COUNTER = WRONG_COUNTER.replace("count_r + 2'd2", "count_r + 1'b1").replace(
    "  assign count_o = count_r;\n", ""
)
FIFO_TB = "examples/fifo/tb_fifo.sv"

# Correct while the testbench samples (negedge), wrong around the rising edge the trace uses:
# the testbench prints "Mismatches: 0" for outputs that were wrong at every clock edge.
GLITCH = """  logic glitch = 1'b0;
  always @(negedge clk) begin #4 glitch = 1'b1; #2 glitch = 1'b0; end
  assign count_o = glitch ? ~count_r : count_r;"""
X_AT_EDGE = """  logic hide = 1'b0;
  always @(negedge clk) begin #3 hide = 1'b1; #4 hide = 1'b0; end
  assign count_o = hide ? 'x : count_r;"""
# A correct counter that fails its own run: the trace finds no mismatch, so the two disagree.
SELF_ERROR = """  assign count_o = count_r;
  initial begin #3000; $error("design gave up"); end"""
SELF_FATAL = """  assign count_o = count_r;
  initial begin #3000; $fatal(0, "design stops the run"); end"""


def verilator(workspace: Workspace) -> Verilator:
    tool = Verilator(workspace)
    if not tool.tool.available:
        pytest.skip("verilator is not installed")
    return tool


def withheld(result: ToolResult) -> None:
    assert result.status == Status.INVALID_INPUT, result.summary
    assert "withheld" in result.summary
    assert result.trace is not None and not result.trace.agrees, result.trace
    assert result.diagnostics[0].category == Category.INVALID_INPUT
    assert "trace" in result.diagnostics[0].message


def counter_run(tool: Icarus | Verilator, adv_root, name: str, body: str) -> ToolResult:
    design = put(adv_root, f"c4/{name}.sv", RIGHT_COUNTER.format(extra=body))
    return asyncio.run(
        tool.run_testbench(
            [design], [TB_COUNTER], top="tb_counter", trace=example_trace("counter"),
            timeout_s=180,
        )
    )  # fmt: skip


@pytest.mark.parametrize(
    "name,body,trace_passes",
    [
        ("glitch_at_edge", GLITCH, False),
        ("x_at_edge", X_AT_EDGE, False),
        ("self_error", SELF_ERROR, True),
        ("self_fatal", SELF_FATAL, True),
    ],
)
def test_counter_forgery_is_withheld_on_iverilog(
    name: str, body: str, trace_passes: bool, workspace: Workspace, adv_root
) -> None:
    result = counter_run(Icarus(workspace), adv_root, name, body)
    withheld(result)
    assert result.trace is not None and result.trace.passed is trace_passes


# The design forces its own input: the trace's "sent" stream sees the forced beats, the
# testbench's scoreboard the beats it drove; the output follows the forced input.
FIFO_FORCED_INPUT = """`default_nettype none
module fifo #(parameter int WIDTH = 8, parameter int DEPTH = 8) (
    input  logic clk, input logic rst_n,
    input  logic [WIDTH-1:0] s_axis_tdata_i, input logic s_axis_tvalid_i,
    output logic s_axis_tready_o,
    output logic [WIDTH-1:0] m_axis_tdata_o, output logic m_axis_tvalid_o,
    input  logic m_axis_tready_i
);
  initial force s_axis_tdata_i = '0;
  logic [$clog2(DEPTH):0] level_r;
  assign s_axis_tready_o = level_r < DEPTH;
  assign m_axis_tvalid_o = level_r != 0;
  assign m_axis_tdata_o = '0;
  always_ff @(posedge clk)
    if (!rst_n) level_r <= '0;
    else level_r <= level_r + (s_axis_tvalid_i && s_axis_tready_o)
                            - (m_axis_tvalid_o && m_axis_tready_i);
endmodule
"""


def fifo_forced_run(tool: Icarus | Verilator, adv_root) -> ToolResult:
    design = put(adv_root, "c4/fifo_forced.sv", FIFO_FORCED_INPUT)
    return asyncio.run(
        tool.run_testbench(
            [design], [FIFO_TB], top="tb_fifo", trace=example_trace("fifo"), timeout_s=180
        )
    )


@pytest.mark.slow
def test_counter_glitch_is_withheld_on_verilator(workspace: Workspace, adv_root) -> None:
    withheld(counter_run(verilator(workspace), adv_root, "glitch_at_edge_vl", GLITCH))


# The same gap without a stream: forcing its enable input to 0 stops the testbench's own
# reference model (iverilog collapses the port onto the testbench's variable), so a counter
# that outputs a constant 0 is judged correct by the testbench and by the trace (no beats).
COUNTER_FORCES_ENABLE = """`default_nettype none
module counter #(parameter int WIDTH = 8) (
    input  logic             clk,
    input  logic             rst_n,
    input  logic             en_i,
    output logic [WIDTH-1:0] count_o
);
  initial force en_i = 1'b0;
  assign count_o = '0;
endmodule
"""


def forced_enable_run(tool: Icarus | Verilator, adv_root) -> ToolResult:
    design = put(adv_root, "c4/counter_forces_enable.sv", COUNTER_FORCES_ENABLE)
    return asyncio.run(
        tool.run_testbench(
            [design], [TB_COUNTER], top="tb_counter", trace=example_trace("counter"),
            timeout_s=180,
        )
    )  # fmt: skip


FORCED_INPUT = {"fifo_forces_data_in": fifo_forced_run, "counter_forces_enable": forced_enable_run}


@pytest.mark.parametrize("sim", ["iverilog", pytest.param("verilator", marks=pytest.mark.slow)])
@pytest.mark.parametrize("case", sorted(FORCED_INPUT))
def test_design_forcing_its_input_is_not_a_pass(
    case: str, sim: str, workspace: Workspace, adv_root
) -> None:
    tool = Icarus(workspace) if sim == "iverilog" else verilator(workspace)
    result = FORCED_INPUT[case](tool, adv_root)
    assert result.status == Status.COMPILE_FAIL, result.summary
    # Refused on the design text, at the line the design wrote, before anything ran.
    forced = [d for d in result.diagnostics if d.category == Category.FORBIDDEN_CONSTRUCT]
    assert forced and forced[0].file.startswith("c4/") and "force" in forced[0].message
    assert forced[0].line is not None and forced[0].hint and "testbench" in forced[0].hint
    assert result.trace is None
