"""Red team, classes 1-3 of issue 16: the checks and the compiler reading different text, the
design reading the answer key, and Verilator-only escape hatches. Every attack is glued onto a
counter that fails its testbench, so any PASS comes from the attack; each must be refused
before the simulator runs, as FORBIDDEN_CONSTRUCT at the user's file and line, on both
simulators."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Category, Status, ToolResult
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.verilator.api import Verilator

from .conftest import TB_COUNTER, put, wrong_counter

W = wrong_counter


@dataclass(frozen=True)
class Attack:
    files: dict[str, str]
    design: tuple[str, ...]
    where: dict[str, tuple[str, int]]  # simulator -> (file, line) of the refusal
    defines: dict[str, str] = field(default_factory=dict)
    include_dirs: tuple[str, ...] = ()


def both(file: str, line: int) -> dict[str, tuple[str, int]]:
    return {"iverilog": (file, line), "verilator": (file, line)}


def one(name: str, text: str, line: int, **kw: object) -> Attack:
    return Attack({name: text}, (name,), both(name, line), **kw)  # type: ignore[arg-type]


ATTACKS: dict[str, Attack] = {
    # -- class 1: checks vs compiler reading different text --
    "c1_branch_per_simulator": Attack(
        {
            "c1a.sv": W(
                "`ifdef __ICARUS__\n  initial #1 $finish;\n`elsif VERILATOR\n"
                "  initial #1 $finish;\n`endif"
            )
        },
        ("c1a.sv",),
        {"iverilog": ("c1a.sv", 12), "verilator": ("c1a.sv", 14)},
    ),
    "c1_escaped_system_name": one("c1b.sv", W("  initial #1 \\$finish ;"), 11),
    "c1_comment_continues_define": one(
        "c1c.sv",
        W("`define QUIET 1 // harmless \\\n  initial #1 $finish;\n  initial if (`QUIET) ;"),
        13,
    ),
    "c1_macro_defines_macro": one(
        "c1d.sv", W("`define MK(n, b) `define n b\n`MK(STOP, $stop)\n  initial #1 `STOP;"), 13
    ),
    "c1_line_claims_testbench": one(
        "c1e.sv",
        W(
            '`line 30 "examples/counter/tb_counter.sv" 0\n'
            "  always @(negedge clk) tb_counter.errors = 0;"
        ),
        11,
    ),
    "c1_pragma_envelope": one(
        "c1f.sv", W("`pragma protect begin\n  initial #1 $finish;\n`pragma protect end"), 11
    ),
    "c1_slang_own_macro_undefined": one(
        "c1h.sv", W("`ifndef __slang__\n  initial #1 $finish;\n`endif"), 12
    ),
    "c1_nested_include_hides_call": Attack(
        {
            "c1j.sv": W('`include "c1j_a.svh"'),
            "c1j_a.svh": '`include "c1j_b.svh"\n',
            "c1j_b.svh": "\n\n  initial #1 $finish;\n",
        },
        ("c1j.sv",),
        both("c1j_b.svh", 3),
    ),
    "c1_call_define_carries_task": one(
        "c1m.sv", W("  initial #1 `EVIL;"), 11, defines={"EVIL": "$finish"}
    ),
    "c1_token_paste_builds_name": one(
        "c1n.sv", W("`define J(a,b) a``b\n  initial #1 `J($fin,ish);"), 12
    ),
    "c1_stringified_rom_path": one(
        "c1k.sv",
        W(
            '`define S(x) `"x`"\n  logic [7:0] m[0:0];\n'
            "  initial $readmemh(`S(examples/counter/counter.sv), m);"
        ),
        13,
    ),
    "c1_file_macro_as_rom": one(
        "c1l.sv", W("  logic [7:0] m[0:0];\n  initial $readmemh(`__FILE__, m);"), 12
    ),
    # -- class 2: the design reads the answer key --
    "c2_plusarg_vectors_dir": one(
        "c2a.sv",
        W(
            "  string d; logic [7:0] m[0:0];\n"
            '  initial if ($value$plusargs("VEC=%s", d)) $readmemh({d, "/exp.hex"}, m);'
        ),
        12,
    ),
    "c2_test_plusargs": one(
        "c2b.sv", W('  logic k = 0; initial k = $test$plusargs("CYCLES");'), 11
    ),
    "c2_fopen_fscanf": one(
        "c2c.sv",
        W(
            '  integer fd, v; initial begin fd = $fopen("examples/counter/tb_counter.sv", "r");\n'
            '  v = $fscanf(fd, "%d", fd); end'
        ),
        11,
    ),
    "c2_sformatf_path": one(
        "c2d.sv",
        W('  logic [7:0] m[0:0];\n  initial $readmemb($sformatf("%s.hex", "answers"), m);'),
        12,
    ),
    "c2_hier_read_of_model": one("c2e.sv", W("  wire [7:0] peek = tb_counter.model_r;"), 11),
    "c2_sdf_annotate_reads_file": one("c2f.sv", W('  initial $sdf_annotate("x.sdf");'), 11),
    "c2_fgets": one(
        "c2g.sv", W("  string s; integer r; initial r = $fgets(s, 32'h8000_0000);"), 11
    ),
    "c2_unlisted_literal_rom": Attack(
        {
            "c2h.sv": W('  logic [7:0] m[0:0];\n  initial $readmemh("c2h_rom.hex", m);'),
            "c2h_rom.hex": "01\n",
        },
        ("c2h.sv",),
        both("c2h.sv", 12),
    ),
    # -- class 3: Verilator-only paths --
    "c3_testbench_module_twice": one("c3a.sv", W("") + "module tb_counter; endmodule\n", 14),
    "c3_testbench_name_as_program": one("c3k.sv", W("") + "program tb_counter; endprogram\n", 14),
    "c3_systemc_passthrough": one(
        "c3b.sv", W("`systemc_imp_header\n#include <stdlib.h>\n`verilog"), 11
    ),
    "c3_systemc_ctor": one("c3j.sv", W("`systemc_ctor\n exit(0);\n`verilog"), 11),
    "c3_public_metacomment": one(
        "c3c.sv", W("  logic [7:0] probe_r /*verilator public_flat_rw*/;"), 11
    ),
    "c3_metacomment_in_macro": one(
        "c3i.sv", W("`define PUB /*verilator public*/\n  logic [7:0] x_r `PUB;"), 11
    ),
    "c3_bind_into_testbench": one(
        "c3d.sv",
        W("") + "module spy(input logic [7:0] e); endmodule\nbind tb_counter spy s(.e(count));\n",
        15,
    ),
    "c3_dpi_import": one("c3e.sv", W('  import "DPI-C" function int system(input string s);'), 11),
    "c3_dpi_export": one(
        "c3h.sv", W('  function void f(); endfunction\n  export "DPI-C" function f;'), 12
    ),
    "c3_config": one("c3f.sv", W("") + "config cfg; design counter; endconfig\n", 14),
    "c3_library": one("c3l.sv", "library evil *.sv;\n" + W(""), 1),
    "c3_c_through_macro": one("c3g.sv", W('`define CC $c\n  initial #1 `CC("exit(0);");'), 12),
}


def simulator(name: str, workspace: Workspace) -> Icarus | Verilator:
    tool = Icarus(workspace) if name == "iverilog" else Verilator(workspace)
    if not tool.tool.available:
        pytest.skip(f"{name} is not installed")
    return tool


def run(tool: Icarus | Verilator, attack: Attack, root: Path) -> ToolResult:
    for relative, text in attack.files.items():
        put(root, relative, text)
    return asyncio.run(
        tool.run_testbench(
            list(attack.design),
            [TB_COUNTER],
            defines=attack.defines or None,
            include_dirs=list(attack.include_dirs) or None,
            timeout_s=120,
        )
    )


@pytest.mark.parametrize("sim", ["iverilog", "verilator"])
@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_design_text_attack_is_refused(name: str, sim: str, workspace: Workspace, adv_root) -> None:
    attack = ATTACKS[name]
    result = run(simulator(sim, workspace), attack, adv_root)
    assert result.status == Status.COMPILE_FAIL, (name, sim, result.summary)
    places = [
        (d.file, d.line) for d in result.diagnostics if d.category == Category.FORBIDDEN_CONSTRUCT
    ]
    assert attack.where[sim] in places, (name, sim, places, result.summary)
    # Refused on the text: no simulation ran, so nothing of a verdict was read.
    assert result.mismatch_count in (None, 0) and result.first_mismatch is None


def test_call_define_cannot_name_an_option(workspace: Workspace, adv_root) -> None:
    put(adv_root, "c3n.sv", W(""))
    for sim in ("iverilog", "verilator"):
        tool = simulator(sim, workspace)
        result = asyncio.run(
            tool.run_testbench(["c3n.sv"], [TB_COUNTER], defines={"-CFLAGS": "1"}, timeout_s=60)
        )
        assert result.status == Status.INVALID_INPUT, (sim, result.summary)
        assert any(d.code == "defines" for d in result.diagnostics)


# The ROM loader's literal is judged by slang's reading of its escapes; iverilog reads the
# unknown escape \x2e as a plain 'x' and so opens another file than the one listed.
ESCAPED_ROM = """`default_nettype none
module counter #(parameter int WIDTH = 8) (
    input  logic             clk,
    input  logic             rst_n,
    input  logic             en_i,
    output logic [WIDTH-1:0] count_o
);
  logic [7:0] step[0:0];
  initial $readmemh("c2x_rom\\x2ehex", step);
  logic [WIDTH-1:0] count_r = '0;
  always_ff @(posedge clk) if (!rst_n) count_r <= '0; else if (en_i) count_r <= count_r + step[0];
  assign count_o = count_r;
endmodule
"""


def test_rom_literal_escape_reads_the_listed_file_only(workspace: Workspace, adv_root) -> None:
    put(adv_root, "c2x/counter.sv", ESCAPED_ROM)
    put(adv_root, "c2x_rom.hex", "02\n")  # the listed ROM: the wrong step
    put(adv_root, "c2x_romx2ehex", "01\n")  # not listed: the step the testbench wants
    result = asyncio.run(
        simulator("iverilog", workspace).run_testbench(
            ["c2x/counter.sv", "c2x_rom.hex"], [TB_COUNTER], timeout_s=60
        )
    )
    assert result.status != Status.PASS, result.summary


# The design is preprocessed in the server's own process, outside the sandbox: an include of
# the suite's private files (the hidden expected values, 0700; the trace module's secret, 0600)
# is read there, and the diagnostic on its text quotes the line to the caller.
PRIVATE = {
    "hidden_answers": (".silicon-agent/hidden/rt_answers.json", '{"beats": ["a1", "b2"]}\n'),
    "trace_secret": (".silicon-agent/trace/secret", None),
}


@pytest.mark.parametrize("sim", ["iverilog", "verilator"])
@pytest.mark.parametrize(
    "which",
    ["hidden_answers", "trace_secret"],
)
def test_include_never_reads_the_suites_private_files(
    which: str, sim: str, workspace: Workspace, adv_root
) -> None:
    tool = simulator(sim, workspace)
    relative, text = PRIVATE[which]
    path = adv_root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.parent.chmod(0o700)
    if text is not None:
        path.write_text(text)
        path.chmod(0o600)
    if not path.exists():
        # The trace secret is made on the first trace run; make it the way the server does.
        from silicon_agent.servers.core.sv.trace import _secret

        _secret(workspace)
    secret = path.read_text().strip()
    design = put(adv_root, f"c2/include_{which}.sv", W(f'`include "{relative}"'))
    result = asyncio.run(tool.run_testbench([design], [TB_COUNTER], timeout_s=120))
    assert result.status in (Status.COMPILE_FAIL, Status.INVALID_INPUT), result.summary
    shown = result.model_dump_json()
    for fragment in (secret[:12], "a1"):
        assert fragment not in shown, (which, fragment)
