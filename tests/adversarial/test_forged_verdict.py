"""A design that fails its testbench tries to make run_testbench say PASS (iverilog)."""

from __future__ import annotations

import asyncio

import pytest

from silicon_agent.servers.core.models import Category, Status, ToolResult
from silicon_agent.servers.iverilog.api import Icarus

from .conftest import TB_COUNTER, put, wrong_counter

FORGED = '"Mismatches: 0 in 600 samples"'


def run(icarus: Icarus, design: list[str], tb: list[str] | None = None, **kw: object) -> ToolResult:
    return asyncio.run(icarus.run_testbench(design, tb or [TB_COUNTER], timeout_s=60, **kw))


def forbidden(result: ToolResult) -> list[tuple[str | None, int | None, int | None]]:
    return [
        (d.file, d.line, d.column)
        for d in result.diagnostics
        if d.category == Category.FORBIDDEN_CONSTRUCT
    ]


def test_the_wrong_counter_fails_without_any_attack(icarus: Icarus, adv_root) -> None:
    result = run(icarus, [put(adv_root, "base/counter.sv", wrong_counter())])
    assert result.status == Status.SIM_FAIL
    assert result.mismatch_count and result.mismatch_count > 500


@pytest.mark.parametrize(
    ("name", "extra", "line", "column"),
    [
        ("display_finish", f"  initial begin $display({FORGED}); $finish; end", 11, 17),
        ("spaced", f"  initial\n      $display   (\n {FORGED}) ;", 12, 7),
        ("macro", f"`define SAY $display\n  initial `SAY({FORGED});", 12, None),
        ("strobe", f"  initial $strobe({FORGED});", 11, 11),
        ("fwrite_stdout", f"  initial $fwrite(32'h8000_0001, {FORGED});", 11, 11),
        ("monitor", f"  initial $monitor({FORGED});", 11, 11),
        ("info", f"  initial $info({FORGED});", 11, 11),
        ("system", '  initial $system("echo Mismatches: 0 in 600 samples");', 11, 11),
        ("dpi", '  import "DPI-C" function int puts(input string s);', 11, 10),
        ("hier_write", "  always @(negedge clk) tb_counter.errors = 0;", 11, 25),
        ("root_write", "  always @(negedge clk) $root.tb_counter.errors = 0;", 11, 25),
        ("force_tb", "  initial force tb_counter.errors = 0;", 11, 17),
    ],
)
def test_forging_constructs_are_refused_at_their_place(
    icarus: Icarus, adv_root, name: str, extra: str, line: int, column: int | None
) -> None:
    design = put(adv_root, f"blocked/{name}.sv", wrong_counter(extra))
    result = run(icarus, [design])
    assert result.status == Status.COMPILE_FAIL
    # A macro expansion keeps its line; its column is not reported (None matches any).
    places = {(f, ln, c if column is not None else None) for f, ln, c in forbidden(result)}
    assert (design, line, column) in places, result.diagnostics


def test_define_argument_cannot_smuggle_a_print_into_the_design(icarus: Icarus, adv_root) -> None:
    design = put(adv_root, "blocked/define_arg.sv", wrong_counter("  initial begin `EVIL end"))
    result = run(icarus, [design], defines={"EVIL": f"$display({FORGED}); $finish;"})
    assert result.status == Status.COMPILE_FAIL
    assert forbidden(result) and all(f[0] == design for f in forbidden(result))


def test_hierarchical_write_from_a_submodule_is_refused(icarus: Icarus, adv_root) -> None:
    head = (
        "module helper(input logic clk);\n"
        "  always @(negedge clk) tb_counter.errors = 0;\n"
        "endmodule\n"
    )
    design = put(
        adv_root, "blocked/submodule.sv", wrong_counter("  helper h (.clk(clk));", head=head)
    )
    result = run(icarus, [design])
    assert result.status == Status.COMPILE_FAIL
    assert (design, 2, 25) in forbidden(result)


@pytest.mark.parametrize(
    ("name", "extra", "head"),
    [
        # $error's text may hold a forged summary on its second line; the $error itself fails.
        ("error_newline", f'  initial $error("x\\n" + {FORGED});', ""),
        ("fatal_early", '  initial #1 $fatal(0, "bye");', ""),
        # A compilation-unit variable named like the testbench's counter changes nothing.
        ("unit_errors", "", "int errors = 0;\n"),
        # A port forced inside the design only breaks the design further.
        ("force_port", "  initial force count_o = 0;", ""),
        # bind into the testbench with a port that drives its error counter.
        (
            "bind_tb",
            "  bind tb_counter spy s (.e(errors));",
            "module spy(output int e);\n  assign e = 0;\nendmodule\n",
        ),
        # A second definition of the testbench module, or of the suite's wave-dump module.
        ("tb_twin", "", "module tb_counter;\nendmodule\n"),
        ("wave_twin", "", "module sa_wave_dump;\nendmodule\n"),
        # Unterminated conditionals/comments swallow the testbench instead of forging it.
        ("open_ifdef", "", ""),
        ("open_comment", "", ""),
        # $readmemh of a file outside the workspace is read-only and reported, not a pass.
        ("readmem_outside", '  logic [7:0] m[0:3];\n  initial $readmemh("/etc/hostname", m);', ""),
    ],
)
def test_other_tricks_never_pass(
    icarus: Icarus, adv_root, name: str, extra: str, head: str
) -> None:
    text = wrong_counter(extra, head=head)
    text += {"open_ifdef": "`ifdef NEVER_DEFINED\n", "open_comment": "/* never closed\n"}.get(
        name, ""
    )
    result = run(icarus, [put(adv_root, f"tricks/{name}.sv", text)])
    assert result.status in (Status.SIM_FAIL, Status.COMPILE_FAIL), result.summary


def test_top_argument_naming_a_design_wrapper_does_not_pass(icarus: Icarus, adv_root) -> None:
    head = "module evil_top;\n  tb_counter t ();\nendmodule\n"
    result = run(icarus, [put(adv_root, "tricks/top.sv", wrong_counter(head=head))], top="evil_top")
    assert result.status == Status.SIM_FAIL


# -- holes the red team found, closed in the core ---------------------------------------


def test_hex_variant_print_plus_finish_and_return_cannot_forge_pass(
    icarus: Icarus, adv_root
) -> None:
    extra = f"  initial begin #1 $fdisplayh(32'h8000_0001, {FORGED}); $finish_and_return(0); end"
    design = put(adv_root, "holes/fdisplayh.sv", wrong_counter(extra))
    result = run(icarus, [design])
    assert result.status != Status.PASS
    assert (design, 11, 20) in forbidden(result)


def test_include_that_slang_cannot_find_cannot_forge_pass(icarus: Icarus, adv_root) -> None:
    put(adv_root, "holes/inc/printer.svh", f"  initial begin #1 $display({FORGED}); $finish; end\n")
    design = put(adv_root, "holes/inc/design.sv", wrong_counter('`include "holes/inc/printer.svh"'))
    result = run(icarus, [design])
    assert result.status != Status.PASS
