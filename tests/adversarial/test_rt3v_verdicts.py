"""Red team rt3v: the verdict rules of issue 29 attacked through run_testbench over MCP stdio.

Holes, all fixed: a package member named like the testbench's file-level functions is
refused, a line past the cap is kept as its start, a VerilogEval hint counts only at the start
of a line, and a package the testbench uses is the testbench's (a design defining it is refused):
- Package shadowing of the harness tag. A design package that the block testbench imports
  (`import lte_baseband_pkg::*`) defines `tb_verdict_tag`: the wildcard import binds the
  harness's calls to the design's function before the compilation unit's, so every harness line
  starts with text the design chose. It pushes each MISMATCH and summary off the start of its
  line, writes one clean summary itself, and with no tagged line the judge reads plain lines: a
  crc_checker with no logic at all PASSes on both simulators. The same shadow forges the first
  mismatch (the testbench's `expected`). With the server's trace the PASS is withheld.
- A design report past the runner's 64 KiB line cap loses its `ERROR:` header (the capture
  drops an unfinished line past the cap and starts afresh), so the judge believes the design
  printed nothing and reads the report's later lines as the testbench's: a forged MISMATCH
  naming the testbench's model is the first_mismatch again (iverilog; Verilator's own
  `Verilog $stop` line still marks the report).
- Package constants narrow the testbench: the block testbench sizes its vectors and compares
  by the design package's widths; with LLR_W = 1 the descrambler's check reads one bit that
  descrambling never changes, and a pass-through with no scrambling sequence PASSes (a fix
  that only refuses the harness's name in a package leaves this open). Both simulators PASSed
  it; with the trace the verdict was withheld.
- A VerilogEval hint inside the design's one-line $error is read as a mismatch (the hint is
  searched anywhere in a line, before the line is seen as a design report): the first mismatch
  names the testbench's model (iverilog).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.servers.core.workspace import Workspace

from .conftest import TB_COUNTER, put
from .test_rt2_includes import DESIGN, REPO, TB, crc_workspace
from .test_rt3_verdicts import IVERILOG, SIMS, VERILATOR, call, verilator_or_skip

# The harness's tag, shadowed from the package: the first call (the first harness line) starts
# with a clean summary and a newline, every call puts "# " before the harness's own text.
SHADOW_TAG = """
  int rt3v_calls = 0;
  function automatic string tb_verdict_tag();
    rt3v_calls++;
    if (rt3v_calls == 1) return $sformatf("Mismatches: 0 in 8 samples%c# ", 8'd10);
    return "# ";
  endfunction
"""
# A crc_checker with no CRC logic: one all-zero beat per block.
NULL_CRC = """`default_nettype none
module crc_checker (
    input  logic clk, input logic rst_n, input logic s_axis_tdata_i, input logic s_axis_tuser_i,
    input  logic s_axis_tvalid_i, output logic s_axis_tready_o, input logic s_axis_tlast_i,
    output logic [lte_baseband_pkg::CRC_TDATA_W-1:0] m_axis_tdata_o,
    output logic m_axis_tvalid_o, input logic m_axis_tready_i, output logic m_axis_tlast_o);
  logic v_r = 1'b0;
  always_ff @(posedge clk)
    if (!rst_n) v_r <= 1'b0;
    else if (s_axis_tvalid_i && s_axis_tlast_i) v_r <= 1'b1;
    else if (m_axis_tready_i) v_r <= 1'b0;
  assign s_axis_tready_o = 1'b1;
  assign m_axis_tvalid_o = v_r;
  assign m_axis_tdata_o = '0;
  assign m_axis_tlast_o = 1'b1;
endmodule
`default_nettype wire
"""


@pytest.fixture(scope="module")
def crc() -> Iterator[tuple[Path, Workspace, object]]:
    made = crc_workspace(plant=False)
    yield made
    shutil.rmtree(made[0], ignore_errors=True)


def crc_arguments(case: object, design: list[str], bench: tuple[str, ...] = (TB,)) -> dict:
    return {"design": design, "testbench": list(bench), "top": "tb_crc_checker",
            "include_dirs": ["hdl/tb"], "plusargs": [*case.plusargs, "SEED=1"],  # type: ignore[attr-defined]
            "timeout_s": 300}  # fmt: skip


@pytest.mark.anyio
async def test_the_null_crc_checker_fails_with_the_suite_package(crc) -> None:
    """The baseline: the design below fails its block testbench on the real package."""
    root, _, case = crc
    null = put(root, "rt3v/null_crc.sv", NULL_CRC)
    out = await call(IVERILOG, root, crc_arguments(case, [null], (DESIGN[0], TB)))
    assert out["status"] == "SIM_FAIL" and out["mismatch_count"], out["summary"]


@pytest.mark.anyio
@pytest.mark.parametrize("module", SIMS)
async def test_a_design_package_cannot_shadow_the_harness_tag(module: str, crc) -> None:
    root, _, case = crc
    if module == VERILATOR:
        verilator_or_skip(root)
    package = (REPO / DESIGN[0]).read_text().replace("endpackage", SHADOW_TAG + "endpackage")
    pkg = put(root, "rt3v/shadow_pkg.sv", package)
    null = put(root, "rt3v/null_crc.sv", NULL_CRC)
    out = await call(module, root, crc_arguments(case, [pkg, null]))
    # Safe: refused by name (a package member named like the harness's function), or at least
    # never PASS for a design with no CRC logic.
    assert out["status"] != "PASS", out["summary"]
    assert out["status"] == "COMPILE_FAIL", out["summary"]


# The same shadow, used to forge the first mismatch instead: the first harness line starts with a
# MISMATCH naming the testbench's expected signal (what explain_mismatch would then describe).
FORGE_TAG = """
  int rt3v_calls = 0;
  function automatic string tb_verdict_tag();
    rt3v_calls++;
    if (rt3v_calls == 1)
      return $sformatf("MISMATCH time=1 cycle=1 signal=tb_crc_checker.expected %s%c",
                       "expected=1 actual=2", 8'd10);
    return "";
  endfunction
"""


@pytest.mark.anyio
async def test_a_design_package_cannot_forge_the_first_mismatch(crc) -> None:
    root, _, case = crc
    package = (REPO / DESIGN[0]).read_text().replace("endpackage", FORGE_TAG + "endpackage")
    pkg = put(root, "rt3v/forge_pkg.sv", package)
    out = await call(IVERILOG, root, crc_arguments(case, [pkg, DESIGN[1]]))
    assert out["status"] in ("SIM_FAIL", "COMPILE_FAIL"), out["summary"]
    first = out.get("first_mismatch") or {}
    assert "tb_crc_checker" not in str(first.get("signal")), first


@pytest.mark.anyio
async def test_the_trace_judge_withholds_the_shadowed_pass(crc) -> None:
    """Defended on hidden runs: with the server's trace the same null design gets no PASS
    (the trace of its beats disagrees with the forged report, so the verdict is withheld)."""
    from silicon_agent.hdl.registry import block_trace, load_registry

    root, _, case = crc
    block = next(b for b in load_registry().blocks if b.name == "crc_checker")
    spec = block_trace(block).spec(case.expected).model_dump()  # type: ignore[union-attr]
    package = (REPO / DESIGN[0]).read_text().replace("endpackage", SHADOW_TAG + "endpackage")
    pkg = put(root, "rt3v/shadow_pkg.sv", package)
    null = put(root, "rt3v/null_crc.sv", NULL_CRC)
    out = await call(IVERILOG, root, {**crc_arguments(case, [pkg, null]), "trace": spec})
    assert out["status"] != "PASS", out["summary"]
    # Refused by name before it runs now; a run would have its trace disagree.
    assert out["status"] == "COMPILE_FAIL" or (out["trace"] and not out["trace"]["passed"]), out


# A right counter whose $error line is longer than the runner's 64 KiB line cap, so that its
# `ERROR: .../design.sv` header is dropped by the capture; its next line forges a mismatch.
LONG_FORGE = """`default_nettype none
module counter #(parameter int WIDTH = 8) (
    input  logic             clk,
    input  logic             rst_n,
    input  logic             en_i,
    output logic [WIDTH-1:0] count_o
);
  logic [WIDTH-1:0] count_r = '0;
  always_ff @(posedge clk)
    if (!rst_n) count_r <= '0; else if (en_i) count_r <= count_r + 1'b1;
  assign count_o = count_r;
  string pad = {32768{"        "}};
  initial #1 $error("%s%cMISMATCH time=1 cycle=1 signal=tb_counter.model_r expected=1 actual=2",
                    pad, 8'd10);
endmodule
`default_nettype wire
"""


@pytest.mark.anyio
@pytest.mark.parametrize(
    "module",
    # Verilator's $error also prints a `%Error: design.sv: Verilog $stop` line: defended.
    [IVERILOG, pytest.param(VERILATOR, marks=pytest.mark.slow)],
)
async def test_a_design_report_past_the_line_cap_is_still_a_design_report(
    module: str, adv_root
) -> None:
    if module == VERILATOR:
        verilator_or_skip(adv_root)
    design = put(adv_root, f"rt3v/long_forge_{module.split('.')[2]}.sv", LONG_FORGE)
    out = await call(module, adv_root, {"design": [design], "testbench": [TB_COUNTER],
                                          "timeout_s": 240})  # fmt: skip
    assert out["status"] == "SIM_FAIL", out["summary"]
    first = out.get("first_mismatch") or {}
    assert "tb_counter" not in str(first.get("signal")), first
    # The design printed: its report counts, as an assertion/$error report.
    assert any(d["category"] == "ASSERTION_FAILED" for d in out["diagnostics"]), out["diagnostics"]


# A right counter whose one-line $error carries a VerilogEval hint: the judge reads a hint
# anywhere in a line, before it asks whether the line is a simulator report of the design's.
HINT_FORGE = """`default_nettype none
module counter #(parameter int WIDTH = 8) (
    input  logic             clk,
    input  logic             rst_n,
    input  logic             en_i,
    output logic [WIDTH-1:0] count_o
);
  logic [WIDTH-1:0] count_r = '0;
  always_ff @(posedge clk)
    if (!rst_n) count_r <= '0; else if (en_i) count_r <= count_r + 1'b1;
  assign count_o = count_r;
  initial #1 $error("Hint: Output 'tb_counter.model_r' has 3 mismatches. %s",
                    "First mismatch occurred at time 40.");
endmodule
`default_nettype wire
"""


@pytest.mark.anyio
@pytest.mark.parametrize(
    "module",
    [
        IVERILOG,
        pytest.param(VERILATOR, marks=pytest.mark.slow),
    ],
)
async def test_a_hint_in_a_design_report_is_never_the_first_mismatch(module: str, adv_root) -> None:
    if module == VERILATOR:
        verilator_or_skip(adv_root)
    design = put(adv_root, f"rt3v/hint_forge_{module.split('.')[2]}.sv", HINT_FORGE)
    out = await call(module, adv_root, {"design": [design], "testbench": [TB_COUNTER],
                                          "timeout_s": 240})  # fmt: skip
    assert out["status"] == "SIM_FAIL", out["summary"]
    first = out.get("first_mismatch") or {}
    assert "tb_counter" not in str(first.get("signal")), first
    assert any(d["category"] == "ASSERTION_FAILED" for d in out["diagnostics"]), out["diagnostics"]


# The package's constants shape the testbench: with LLR_W = 1 the descrambler's testbench reads
# only each expected LLR's lowest bit, which descrambling never changes (x and -x share it), so a
# wire from input to output, with no scrambling sequence at all, meets every check.
PASS_THROUGH = """`default_nettype none
module descrambler import lte_baseband_pkg::*; (
    input  logic clk, input logic rst_n,
    input  logic [RNTI_W-1:0] rnti_i, input logic [N_CELL_ID_W-1:0] cell_id_i,
    input  logic [SUBFRAME_W-1:0] subframe_i, input logic codeword_i,
    input  logic [LLR_W-1:0] s_axis_tdata_i, input logic s_axis_tvalid_i,
    output logic s_axis_tready_o, input logic s_axis_tlast_i,
    output logic [LLR_W-1:0] m_axis_tdata_o, output logic m_axis_tvalid_o,
    input  logic m_axis_tready_i, output logic m_axis_tlast_o);
  assign m_axis_tdata_o = s_axis_tdata_i;
  assign m_axis_tvalid_o = s_axis_tvalid_i;
  assign s_axis_tready_o = m_axis_tready_i;
  assign m_axis_tlast_o = s_axis_tlast_i;
endmodule
`default_nettype wire
"""


@pytest.fixture(scope="module")
def descrambler() -> Iterator[tuple[Path, object]]:
    from silicon_agent.hdl.registry import load_registry
    from silicon_agent.hdl.sim import VectorSet
    from tests.conftest import make_world_readable_dir

    root = make_world_readable_dir("sa-rt3v-")
    for sub in ("hdl/tb", "hdl/pkg"):
        shutil.copytree(REPO / sub, root / sub)
    for path in [root / "hdl", *(root / "hdl").rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    block = next(b for b in load_registry().blocks if b.name == "descrambler")
    case = VectorSet(Workspace.open(root)).generate(block, only=None)[0]
    yield root, case
    shutil.rmtree(root, ignore_errors=True)


def descrambler_arguments(case: object, design: list[str], bench: list[str]) -> dict:
    return {"design": design, "testbench": [*bench, "hdl/tb/tb_descrambler.sv"],
            "top": "tb_descrambler", "include_dirs": ["hdl/tb"],
            "plusargs": [*case.plusargs, "SEED=1"], "timeout_s": 300}  # type: ignore[attr-defined]  # fmt: skip


@pytest.mark.anyio
async def test_the_pass_through_fails_with_the_suite_package(descrambler) -> None:
    """The baseline: with the suite's package among the testbench files the wire fails."""
    root, case = descrambler
    wire = put(root, "rt3v/pass_through.sv", PASS_THROUGH)
    out = await call(IVERILOG, root, descrambler_arguments(case, [wire], [DESIGN[0]]))
    assert out["status"] == "SIM_FAIL" and out["mismatch_count"], out["summary"]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("module", "beside"),
    [
        (IVERILOG, False),
        (IVERILOG, True),
        (VERILATOR, False),
        # Verilator's whole build runs before slang's refusal: about a minute.
        pytest.param(VERILATOR, True, marks=pytest.mark.slow),
    ],
)
async def test_design_package_constants_cannot_narrow_the_testbench(
    module: str, beside: bool, descrambler
) -> None:
    """A design that brings the package the testbench imports (narrowed to LLR_W = 1) is
    refused by construction, whether or not the suite's own copy is among the testbench files:
    a package the testbench uses is the testbench's."""
    root, case = descrambler
    if module == VERILATOR:
        verilator_or_skip(root)
    package = (REPO / DESIGN[0]).read_text()
    assert "localparam int LLR_W = 8;" in package
    narrow = put(
        root,
        "rt3v/pkg_narrow.sv",
        package.replace("localparam int LLR_W = 8;", "localparam int LLR_W = 1;"),
    )
    wire = put(root, "rt3v/pass_through.sv", PASS_THROUGH)
    bench = [DESIGN[0]] if beside else []
    out = await call(module, root, descrambler_arguments(case, [narrow, wire], bench))
    assert out["status"] == "COMPILE_FAIL", out["summary"]
    refused = [d for d in out["diagnostics"] if d.get("code") == "design-package"]
    line = package.splitlines().index("package lte_baseband_pkg;") + 1
    assert refused and refused[0]["file"] == narrow and refused[0]["line"] == line, out
    assert "'lte_baseband_pkg'" in refused[0]["message"], refused[0]
    assert "do not redefine" in refused[0]["hint"], refused[0]
