"""The design reads nothing it was not given, and has no way out of the simulation's rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.sv.flow import SimulatorFlow

from .conftest import (
    BODY_LINE,
    FORGED,
    assert_refused_at,
    off_by_three,
    put,
    run,
)

# The answer key a block's testbench reads: the design finds it as the testbench does.
ANSWER_KEY = """  string where;
  logic [7:0] key [0:1023];
  initial if ($value$plusargs("VECTORS=%s", where)) $readmemh({where, "/expected.hex"}, key);"""

READERS = {
    "plusarg": '  string s;\n  initial void\'($value$plusargs("VECTORS=%s", s));',
    "test_plusarg": '  initial if ($test$plusargs("GOLDEN")) ;',
    "fopen": '  int fd;\n  initial fd = $fopen("expected.hex", "r");',
    "fgets": "  int fd; string s;\n  initial void'($fgets(s, fd));",
    "fscanf": '  int fd, v;\n  initial void\'($fscanf(fd, "%h", v));',
    "readmem_unlisted": '  logic [7:0] m [0:3];\n  initial $readmemh("rom/step.hex", m);',
    "readmemb_computed": '  logic [7:0] m [0:3];\n  initial $readmemb($sformatf("r/%s", "x"), m);',
    "system": '  initial void\'($system("cat expected.hex"));',
}


def test_the_answer_key_cannot_be_read_through_a_plusarg(sim: SimulatorFlow, rules_root: Path):
    design = put(rules_root, "reads/answer_key.sv", off_by_three(ANSWER_KEY))
    result = run(sim, [design])
    last = ANSWER_KEY.splitlines()[-1]
    assert_refused_at(result, design, BODY_LINE + 2, last.index("$value") + 1)
    assert_refused_at(result, design, BODY_LINE + 2, last.index("$readmemh") + 1)
    assert any("take the data on a port" in d.hint for d in result.diagnostics)


@pytest.mark.parametrize("name", sorted(READERS))
def test_file_and_plusarg_functions_are_refused(sim: SimulatorFlow, rules_root: Path, name: str):
    body = READERS[name]
    design = put(rules_root, f"reads/{name}.sv", off_by_three(body))
    line = BODY_LINE + body.count("\n")
    assert_refused_at(run(sim, [design]), design, line)


@pytest.mark.slow  # a Verilator build
def test_a_rom_image_listed_among_the_design_loads(sim: SimulatorFlow, rules_root: Path) -> None:
    image = put(rules_root, "rom/step.hex", "01\n")
    design = put(
        rules_root,
        "rom/counter_rom.sv",
        """module counter #(parameter int WIDTH = 8) (
  input logic clk, input logic rst_n, input logic en_i,
  output logic [WIDTH-1:0] count_o
);
  logic [7:0] step [0:0];
  initial $readmemh("rom/step.hex", step);
  always_ff @(posedge clk)
    if (!rst_n) count_o <= '0;
    else if (en_i) count_o <= count_o + WIDTH'(step[0]);
endmodule
""",
    )
    result = run(sim, [design, image])
    assert result.status == Status.PASS, (result.summary, result.diagnostics)
    unlisted = run(sim, [design])
    assert_refused_at(unlisted, design, 6, 11)


ESCAPES = {
    "systemc": ("`systemc_header\n#include <cstdlib>\n`systemc_header_end", 0, 1),
    "metacomment": ("  logic hidden /*verilator public_flat_rw*/;", 0, 16),
    "inline_cpp": ('  initial $c("exit(0);");', 0, 11),
    "bind": ("  bind tb_counter counter spy (.*);", 0, 3),
    "dpi_import": ('  import "DPI-C" function void exit(int code);', 0, 10),
    "dpi_export": ('  function void f(); endfunction\n  export "DPI-C" function f;', 1, 10),
    "protect": ("`pragma protect begin\n`pragma protect end", 0, 1),
    "config": ("", -BODY_LINE + 1, 1),
}


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_tool_escape_hatches_are_refused(sim: SimulatorFlow, rules_root: Path, name: str) -> None:
    body, offset, column = ESCAPES[name]
    head = "config cfg;\n  design counter;\nendconfig\n" if name == "config" else ""
    design = put(rules_root, f"escapes/{name}.sv", off_by_three(body, head))
    line = BODY_LINE + offset if name != "config" else 1
    assert_refused_at(run(sim, [design]), design, line, column)


@pytest.mark.slow  # a Verilator build
def test_a_design_cannot_take_a_testbench_module_name(sim: SimulatorFlow, rules_root: Path) -> None:
    # A module named like the testbench's top would replace it on Verilator (a warning only).
    head = (
        f"module tb_counter;\n  initial begin $display({FORGED}); $finish; end\nendmodule\n"
    ).replace(f"$display({FORGED}); $finish;", "")
    design = put(rules_root, "names/takes_tb.sv", off_by_three("", head))
    assert_refused_at(run(sim, [design]), design, 1, 8)
