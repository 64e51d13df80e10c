"""A design that is right only for the first cycles reaches into the testbench to end the
check early (a task call, `disable`, `defparam`): the verdict must not be PASS."""

from __future__ import annotations

import asyncio

import pytest

from silicon_agent.servers.core.models import Category, Status
from silicon_agent.servers.iverilog.api import Icarus

from .conftest import put

# Trusted testbench in a common shape: a parameter for the run length, a named check loop and
# a report task.
TB = """module tb_short;
  parameter int CYCLES = 200;
  logic clk = 0;
  logic [7:0] q;
  int errors = 0, samples = 0;
  ramp dut (.clk(clk), .q(q));
  always #5 clk = ~clk;
  task automatic report;
    $display("Mismatches: %0d in %0d samples", errors, samples);
    $finish;
  endtask
  initial begin : check_loop
    for (int i = 1; i <= CYCLES; i++) begin
      @(negedge clk);
      samples++;
      if (q !== 8'(i)) begin
        errors++;
        $display("MISMATCH time=%0t cycle=%0d signal=q expected=%h actual=%h", $time, i, 8'(i), q);
      end
    end
  end
  initial begin
    #(10 * CYCLES + 20);
    report();
  end
endmodule
"""

# Counts 1, 2, 3 ... but goes wrong after cycle 20: it fails the full testbench.
RAMP = """module ramp (input logic clk, output logic [7:0] q);
  logic [7:0] n = 0;
  always @(posedge clk) n <= n + 1;
  assign q = (n > 20) ? 8'hEE : n;
{extra}
endmodule
"""


def run(icarus: Icarus, root, name: str, extra: str):
    tb = put(root, "short/tb_short.sv", TB)
    design = put(root, f"short/{name}.sv", RAMP.format(extra=extra))
    return design, asyncio.run(icarus.run_testbench([design], [tb], timeout_s=60))


def test_the_ramp_fails_the_full_testbench(icarus: Icarus, adv_root) -> None:
    _, result = run(icarus, adv_root, "honest", "")
    assert result.status == Status.SIM_FAIL
    assert result.mismatch_count == 180


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("task_call", "  initial #(10 * 15 + 2) tb_short.report();"),
        ("disable_checks", "  initial #(10 * 15 + 2) disable tb_short.check_loop;"),
        ("defparam_length", "  defparam tb_short.CYCLES = 15;"),
    ],
)
def test_reaching_into_the_testbench_to_end_it_early_is_refused(
    icarus: Icarus, adv_root, name: str, extra: str
) -> None:
    design, result = run(icarus, adv_root, name, extra)
    assert result.status == Status.COMPILE_FAIL, result.summary
    assert any(
        d.category == Category.FORBIDDEN_CONSTRUCT and d.file == design and d.line == 5
        for d in result.diagnostics
    )


# The same testbench with its length in a guarded macro, a common way to make it adjustable.
TB_MACRO = TB.replace(
    "module tb_short;", "`ifndef CYCLES\n`define CYCLES 200\n`endif\nmodule tb_short;"
)
TB_MACRO = TB_MACRO.replace("parameter int CYCLES = 200;", "localparam int CYCLES = `CYCLES;")


def test_a_design_macro_cannot_shorten_the_testbench(icarus: Icarus, adv_root) -> None:
    tb = put(adv_root, "short/tb_macro.sv", TB_MACRO)
    design = put(adv_root, "short/macro.sv", "`define CYCLES 15\n" + RAMP.format(extra=""))
    honest = put(adv_root, "short/macro_honest.sv", RAMP.format(extra=""))
    assert asyncio.run(icarus.run_testbench([honest], [tb], timeout_s=60)).status == Status.SIM_FAIL
    result = asyncio.run(icarus.run_testbench([design], [tb], timeout_s=60))
    assert result.status != Status.PASS, result.summary
