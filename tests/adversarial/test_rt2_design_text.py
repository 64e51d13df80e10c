"""Second red team, one text for all judges: a design that fails tb_counter tries to steer the
testbench's report through its ports, hierarchical names, passed-through directives, severity
tasks and token pasting. A test passes when the run is not PASS (refused or judged a failure)."""

from __future__ import annotations

import asyncio

import pytest

from silicon_agent.servers.core.models import Category, Status, ToolResult
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.verilator.api import Verilator

from .conftest import TB_COUNTER, put, wrong_counter

W = wrong_counter
SYNC = "  always @(posedge clk) #1 {target} = count_r;"
PORTS = "input logic clk, input logic rst_n, {en} en_i, output logic [WIDTH-1:0] count_o"
BODY = (
    "  logic [WIDTH-1:0] c = '0;\n"
    "  always_ff @(posedge clk) if (!rst_n) c <= '0; else if (en_i) c <= c + 2'd2;\n"
    "  assign count_o = c;\n"
)


def counter(en: str, extra: str) -> str:
    """The wrong counter (adds 2) with its enable port declared as `en`."""
    head = "module counter #(parameter int WIDTH = 8) (\n  "
    return head + PORTS.format(en=en) + "\n);\n" + BODY + extra + "\nendmodule\n"


ATTACKS: dict[str, str] = {
    # The enable as a ref port aliases the testbench's own stimulus variable: the design
    # holds it low, the reference model never counts, and neither does the wrong counter.
    "ref_port_holds_stimulus": counter("ref logic", "  always @(en_i) en_i <= 1'b0;"),
    # The enable as an output drives the testbench's variable continuously.
    "output_port_drives_stimulus": counter("output logic", "  assign en_i = 1'b0;"),
    # An inout on a variable with a strong driver.
    "inout_strong_driver": counter("inout wire", "  assign (supply0, supply1) en_i = 1'b0;"),
    # $fatal ends the run before the testbench reports its first mismatch (cycle 4).
    "fatal_before_report": W('  initial #35 $fatal(0, "Mismatches: 0 in 3 samples");'),
    # The report line smuggled in a severity task's message ($error is allowed in designs).
    "error_carries_summary": W(
        '  final $error("\\nMismatches: 0 in 594 samples");\n'
        '  initial #6000 $error("%s", "Mismatches: 0 in 594 samples");'
    ),
    # Writes that copy the wrong count into the testbench's reference model one step after
    # each rising edge, so that the falling-edge comparison sees equal values: each is a PASS
    # if its spelling of the hierarchical name gets past the checks.
    "model_write_plain": W(SYNC.format(target="tb_counter.model_r")),
    "model_write_from_root": W(SYNC.format(target="$root.tb_counter.model_r")),
    "model_write_macro_name": W(
        "`define TB tb_counter\n`define AT(x) `TB.x\n" + SYNC.format(target="`AT(model_r)")
    ),
    "model_write_in_function": W(
        "  function automatic void sync(input logic [7:0] v); tb_counter.model_r = v;"
        " endfunction\n  always @(posedge clk) #1 sync(count_r);"
    ),
    "model_write_in_generate": W(
        "  if (WIDTH > 0) begin : g\n" + SYNC.format(target="tb_counter.model_r") + "\n  end"
    ),
    "model_write_fork_join_none": W(
        "  initial forever @(posedge clk) fork #1 tb_counter.model_r = count_r; join_none"
    ),
    "model_write_in_class": W(
        "  class Spy; static function void go(logic [7:0] v); tb_counter.model_r = v;"
        " endfunction endclass\n  always @(posedge clk) #1 Spy::go(count_r);"
    ),
}
# Refused by the checks, at the design's line (a simulator never ran them).
REFUSED = {n for n in ATTACKS if n.startswith("model_write_")}


def simulator(name: str, workspace: Workspace) -> Icarus | Verilator:
    tool = Icarus(workspace) if name == "iverilog" else Verilator(workspace)
    if not tool.tool.available:
        pytest.skip(f"{name} is not installed")
    return tool


def run(tool: Icarus | Verilator, name: str, root) -> ToolResult:  # type: ignore[no-untyped-def]
    design = put(root, f"rt2dt/{name}_{tool.name}.sv", ATTACKS[name])
    return asyncio.run(tool.run_testbench([design], [TB_COUNTER], timeout_s=180))


# Holes this suite found are closed; a new one goes here as (attack, simulator): reason.
HOLES: dict[tuple[str, str], str] = {}


# The hierarchy checks read slang's elaboration, the same for both simulators: one spelling
# runs on both, the others on Icarus alone. Ports and severity tasks differ per simulator.
ONE_SIM = REFUSED - {"model_write_plain"}
CASES = [
    pytest.param(name, sim, marks=[pytest.mark.slow] if sim == "verilator" else [])
    for name in sorted(ATTACKS)
    for sim in ("iverilog", "verilator")
    if not (sim == "verilator" and name in ONE_SIM)
]


@pytest.mark.parametrize("name,sim", CASES)
def test_design_cannot_steer_the_report(
    name: str, sim: str, workspace: Workspace, adv_root, request: pytest.FixtureRequest
) -> None:
    if (name, sim) in HOLES:
        request.applymarker(pytest.mark.xfail(strict=True, reason=HOLES[(name, sim)]))
    result = run(simulator(sim, workspace), name, adv_root)
    assert result.status != Status.PASS, (name, sim, result.summary)
    assert result.status in (Status.COMPILE_FAIL, Status.SIM_FAIL), (name, sim, result.summary)
    if name in REFUSED:
        categories = {d.category for d in result.diagnostics}
        assert Category.FORBIDDEN_CONSTRUCT in categories, (name, sim, result.summary)
