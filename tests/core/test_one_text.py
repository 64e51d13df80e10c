"""One text for all judges: the design reaches the compiler as the text the checks read.

Each attack below got through when the checks preprocessed the design one way and the
simulator another; now it is refused at the user's own line, or the simulator never sees it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.sv.flow import SimulatorFlow
from silicon_agent.servers.core.sv.one_text import preprocess
from silicon_agent.servers.core.workspace import Workspace

from .conftest import (
    BODY_LINE,
    FORGED,
    TB,
    assert_refused_at,
    off_by_three,
    put,
    run,
)

FORGE = f"initial begin #1; $display({FORGED}); $finish; end"


def test_a_branch_only_one_simulator_takes_is_checked_as_that_simulator_reads_it(
    sim: SimulatorFlow, rules_root: Path
) -> None:
    body = f"`ifdef __ICARUS__\n  {FORGE}\n`endif\n`ifdef VERILATOR\n  {FORGE}\n`endif"
    design = put(rules_root, "one/predefined.sv", off_by_three(body))
    line = BODY_LINE + (1 if sim.name == "iverilog" else 4)
    assert_refused_at(run(sim, [design]), design, line, 21)


def test_an_escaped_name_of_a_system_task_is_refused(sim: SimulatorFlow, rules_root: Path) -> None:
    design = put(rules_root, "one/escaped.sv", off_by_three(f"  initial \\$display ({FORGED});"))
    assert_refused_at(run(sim, [design]), design, BODY_LINE, 11)


@pytest.mark.slow  # a Verilator build
def test_a_line_continued_comment_in_a_define_hides_nothing_from_the_checks(
    sim: SimulatorFlow, rules_root: Path
) -> None:
    # slang reads the continued line as the (unused) macro's body; iverilog read it as code.
    body = f"`define NOTE(x) x // note \\\n  {FORGE}"
    design = put(rules_root, "one/continued.sv", off_by_three(body))
    result = run(sim, [design])
    assert result.status == Status.SIM_FAIL, result.summary
    assert result.mismatch_count and result.mismatch_count > 500


@pytest.mark.slow  # a Verilator build
def test_an_include_is_the_file_the_checks_read(sim: SimulatorFlow, rules_root: Path) -> None:
    # Next to the design: harmless. In the workspace root, where iverilog looked first: a forger.
    put(rules_root, "one/inc/shared.svh", "localparam int SHARED = 1;\n")
    put(rules_root, "shared.svh", f"{FORGE}\n")
    design = put(rules_root, "one/inc/design.sv", off_by_three('  `include "shared.svh"'))
    result = run(sim, [design])
    assert result.status == Status.SIM_FAIL, result.summary


def test_a_macro_that_defines_a_macro_is_expanded_once(
    sim: SimulatorFlow, rules_root: Path
) -> None:
    head = "`define MAKE(name) `define name(x) $display(x)\n`MAKE(SAY)\n"
    design = put(rules_root, "one/nested.sv", off_by_three(f"  initial `SAY({FORGED});", head))
    assert_refused_at(run(sim, [design]), design, BODY_LINE + 2, 11)


def test_line_directives_cannot_make_design_text_look_like_the_testbench(
    sim: SimulatorFlow, rules_root: Path
) -> None:
    body = f'`line 20 "{TB}" 0\n  initial force tb_counter.errors = 0;'
    design = put(rules_root, "one/line.sv", off_by_three(body))
    assert_refused_at(run(sim, [design]), design, BODY_LINE, 1)


def test_diagnostics_on_the_text_point_at_the_users_file(
    sim: SimulatorFlow, rules_root: Path
) -> None:
    # An error the compiler finds in the preprocessed text, inside an included file, after a
    # macro expanded over several lines: reported where the user wrote it.
    put(rules_root, "one/map/part.svh", "localparam int PART = 2;\n  wire w = undeclared_net;\n")
    head = "`define TWO_LINES \\\n  localparam int A = 1; \\\n  localparam int B = 2;\n"
    body = '  `TWO_LINES\n  `include "part.svh"'
    design = put(rules_root, "one/map/design.sv", off_by_three(body, head))
    result = run(sim, [design])
    assert result.status == Status.COMPILE_FAIL, result.summary
    places = {(d.file, d.line) for d in result.diagnostics if d.severity == "error"}
    assert ("one/map/part.svh", 2) in places, result.diagnostics


def test_the_text_keeps_every_token_where_the_user_wrote_it(
    rules_workspace: Workspace, rules_root: Path
):
    design = put(rules_root, "one/plain.sv", off_by_three("  // a comment\n  wire unused_w;"))
    text = preprocess(rules_workspace, [rules_root / design], predefines={})
    assert not text.refused and not text.errors
    for number, line in enumerate(text.text.splitlines(), 1):
        column = line.find("unused_w")
        if column >= 0:
            origin = text.origin(number, column + 1)
            assert origin is not None
            assert (origin.file, origin.line, origin.column) == (design, BODY_LINE + 1, 8)
            break
    else:
        raise AssertionError(text.text)
    assert "a comment" not in text.text


def test_directives_the_design_leaves_open_are_closed_before_the_testbench(
    rules_workspace: Workspace, rules_root: Path
) -> None:
    head = '`begin_keywords "1364-2005"\n`unconnected_drive pull1\n`celldefine\n'
    design = put(rules_root, "one/open.sv", head + "module open_ended; endmodule\n")
    text = preprocess(rules_workspace, [rules_root / design], predefines={})
    tail = text.text.split("endmodule", 1)[1].split()
    assert tail == ["`end_keywords", "`nounconnected_drive", "`endcelldefine"]
