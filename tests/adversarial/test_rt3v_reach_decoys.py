"""Red team rt3v, reach on the text and on the bound tree: the text check (every dotted name's
first part declared in the design) over-approximates, so a design that declares the testbench's
name anywhere (a local of an unused function, a dead generate block's label) passes it. The
upward name must then be caught on slang's bound tree wherever it hides: constraints,
assertions, sequences, clocking blocks, let, covergroups, checkers, final blocks, default
arguments, wait, event controls, a dead generate branch of the same label (defended)."""

from __future__ import annotations

from pathlib import Path

import pytest

from silicon_agent.servers.core.sv.slang_check import analyze
from silicon_agent.servers.core.workspace import Workspace

from .conftest import TB_COUNTER

HEAD = (
    "module counter #(parameter int WIDTH = 8) (input logic clk, input logic rst_n,\n"
    "    input logic en_i, output logic [WIDTH-1:0] count_o);\n"
    # The decoy: the testbench's top name declared where no use can see it.
    "  function automatic int unused_f(); int tb_counter; return tb_counter; endfunction\n"
)
HIDING_PLACES = {
    "randomize_with": "logic [7:0] r; always @(posedge clk) "
    "void'(std::randomize(r) with { r == tb_counter.model_r; }); assign count_o = r;",
    "assert_property": "logic [7:0] r; assert property (@(posedge clk) tb_counter.model_r == r);"
    " assign count_o = r;",
    "clocking_input": "clocking cb @(posedge clk); input m = tb_counter.model_r; endclocking "
    "assign count_o = cb.m;",
    "let_body": "let m = tb_counter.model_r; assign count_o = m;",
    "sequence": "sequence s; tb_counter.model_r == 1; endsequence "
    "cover property (@(posedge clk) s); assign count_o = 0;",
    "covergroup": "covergroup cg @(posedge clk); coverpoint tb_counter.model_r; endgroup "
    "cg c = new; assign count_o = 0;",
    "event_control": "logic [7:0] r; always @(tb_counter.model_r) r = 1; assign count_o = r;",
    "wait": "logic [7:0] r; initial begin wait (tb_counter.model_r == 3); r = 1; end "
    "assign count_o = r;",
    "checker": "checker ck; logic [7:0] q = tb_counter.model_r; endchecker ck c1(); "
    "assign count_o = 0;",
    "final_block": "logic [7:0] r; final r = tb_counter.model_r; assign count_o = r;",
    "default_argument": "function automatic logic [7:0] g(logic [7:0] a = tb_counter.model_r);"
    " return a; endfunction assign count_o = g();",
    "cast_output": "logic [7:0] r; always @(posedge clk) void'($cast(r, tb_counter.model_r)); "
    "assign count_o = r;",
    "dead_generate_label": "if (0) begin : tb_counter logic [7:0] model_r; end "
    "assign count_o = tb_counter.model_r;",
    "empty_generate_loop": "for (genvar i = 0; i < 0; i++) begin : tb_counter "
    "logic [7:0] model_r; end assign count_o = tb_counter[0].model_r;",
    "type_of": "var type(tb_counter.model_r) r = '0; assign count_o = r;",
}


@pytest.mark.parametrize("place", sorted(HIDING_PLACES))
def test_an_upward_name_behind_a_decoy_declaration_is_refused(place: str, adv_root: Path) -> None:
    path = adv_root / f"rt3v_decoy_{place}.sv"
    path.write_text(HEAD + "  " + HIDING_PLACES[place] + "\nendmodule\n")
    path.chmod(0o644)
    report = analyze(
        Workspace.open(adv_root),
        [path, adv_root / TB_COUNTER],
        design=[path],
        top="tb_counter",
        predefines={"__ICARUS__": "1"},
    )
    refusals = report.design_errors + [d for d in report.forbidden if d.code == "design-reach"]
    assert refusals, (place, [d.message for d in report.diagnostics][:5])
