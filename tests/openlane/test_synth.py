"""synthesize: real Yosys (yosys-slang) onto the OSU 0.18 um stand-in, timed by OpenSTA."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Category, Status
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.openlane.environment import osu018_liberty
from silicon_agent.servers.openlane.synth import Synthesizer

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("yosys_warm")]

if osu018_liberty() is None or shutil.which("sta") is None:
    pytest.skip("needs the OSU 0.18 um liberty (.deps/osu018) and OpenSTA", allow_module_level=True)

MAC = """// A registered multiply-accumulate: one long combinational path per cycle.
module mac #(parameter int W = 12) (
    input  logic           clk,
    input  logic [W-1:0]   a_i, b_i,
    input  logic [2*W-1:0] c_i,
    output logic [2*W-1:0] y_o
);
  logic [W-1:0] a_r, b_r;
  logic [2*W-1:0] c_r;
  always_ff @(posedge clk) begin
    a_r <= a_i;
    b_r <= b_i;
    c_r <= c_i;
    y_o <= a_r * b_r + c_r;
  end
endmodule
"""

SV_FEATURES = """package cfg_pkg;
  typedef enum logic [1:0] {IDLE, RUN, DONE} state_t;
  function automatic logic is_busy(state_t s);
    return s inside {RUN};
  endfunction
endpackage

module fsm import cfg_pkg::*; (input logic clk, rst_n, go_i, output logic busy_o);
  state_t state_q;
  always_ff @(posedge clk) begin
    if (!rst_n) state_q <= IDLE;
    else unique case (state_q)
      IDLE: if (go_i) state_q <= RUN;
      RUN: state_q <= DONE;
      default: state_q <= IDLE;
    endcase
  end
  assign busy_o = is_busy(state_q);
  property p_no_x; @(posedge clk) !$isunknown(state_q); endproperty
  assert property (p_no_x);
endmodule
"""

BROKEN = """module bad (input logic clk, output logic [3:0] q_o);
  logic [3:0] r;
  always_ff @(posedge clk) r <= r + stepp;
  assign q_o = r;
endmodule
"""


@pytest.fixture
def synth(ws: Workspace) -> Synthesizer:
    (ws.root / "hdl" / "mac.sv").write_text(MAC)
    (ws.root / "hdl" / "fsm.sv").write_text(SV_FEATURES)
    (ws.root / "hdl" / "bad.sv").write_text(BROKEN)
    return Synthesizer(ws)


async def test_counter_real_figures_move_with_the_clock(synth: Synthesizer) -> None:
    slow = await synth.synthesize(["hdl/counter/counter.sv"], "counter", 10.0)
    fast = await synth.synthesize(["hdl/counter/counter.sv"], "counter", 0.8)
    for result in (slow, fast):
        assert result.status == Status.PASS, result.summary
        assert result.cells and result.cells > 8  # 8 flops plus the incrementer
        assert result.area_um2 and result.area_um2 > 0
        assert result.cell_types.get("DFFPOSX1") == 8
        assert result.clock_port == "clk"
        assert result.library is not None and result.library.name == "osu018_stdcells"
        assert result.library.signoff_grade is False
        assert "osu018_stdcells" in result.provenance["area_um2"]
        assert "OpenSTA" in result.provenance["worst_setup_slack_ns"]
        assert "ESTIMATE" in result.estimate_note
    assert slow.worst_setup_slack_ns is not None and fast.worst_setup_slack_ns is not None
    assert slow.worst_setup_slack_ns > 0 > fast.worst_setup_slack_ns
    assert fast.setup_violations and fast.setup_violations > 0
    assert slow.setup_violations == 0
    assert fast.area_um2 >= slow.area_um2  # a tighter clock never buys a smaller netlist
    assert slow.fmax_mhz and slow.fmax_mhz > 100
    assert slow.critical_path is not None and slow.critical_path.stages


async def test_fifo_is_bigger_than_counter(synth: Synthesizer) -> None:
    fifo = await synth.synthesize(["hdl/fifo/fifo.sv"], "fifo", 10.0)
    counter = await synth.synthesize(["hdl/counter/counter.sv"], "counter", 10.0)
    assert fifo.status == Status.PASS, fifo.summary
    assert fifo.cells and counter.cells and fifo.cells > 3 * counter.cells
    assert fifo.area_um2 and counter.area_um2 and fifo.area_um2 > 3 * counter.area_um2
    assert fifo.sequential_area_um2 and fifo.sequential_area_um2 > 0
    assert fifo.worst_hold_slack_ns is not None


async def test_long_combinational_path(synth: Synthesizer) -> None:
    relaxed = await synth.synthesize(["hdl/mac.sv"], "mac", 40.0)
    tight = await synth.synthesize(["hdl/mac.sv"], "mac", 2.0)
    counter = await synth.synthesize(["hdl/counter/counter.sv"], "counter", 40.0)
    assert relaxed.status == tight.status == Status.PASS
    assert relaxed.worst_setup_slack_ns and relaxed.worst_setup_slack_ns > 0
    assert tight.worst_setup_slack_ns is not None and tight.worst_setup_slack_ns < -1.0
    assert tight.setup_tns_ns is not None and tight.setup_tns_ns < tight.worst_setup_slack_ns
    assert tight.area_um2 and relaxed.area_um2 and tight.area_um2 >= relaxed.area_um2
    path = relaxed.critical_path
    assert path is not None and path.logic_depth >= 10
    assert path.endpoint.startswith("_") or "y_o" in path.endpoint
    assert relaxed.fmax_mhz and counter.fmax_mhz and relaxed.fmax_mhz < counter.fmax_mhz / 2


async def test_parameters_and_defines_reach_the_design(synth: Synthesizer) -> None:
    narrow = await synth.synthesize(
        ["hdl/counter/counter.sv"], "counter", 10.0, params={"WIDTH": 4}
    )
    wide = await synth.synthesize(["hdl/counter/counter.sv"], "counter", 10.0, params={"WIDTH": 24})
    assert narrow.cell_types.get("DFFPOSX1") == 4
    assert wide.cell_types.get("DFFPOSX1") == 24
    assert wide.area_um2 and narrow.area_um2 and wide.area_um2 > 3 * narrow.area_um2


async def test_systemverilog_front_end(synth: Synthesizer) -> None:
    result = await synth.synthesize(["hdl/fsm.sv"], "fsm", 5.0)
    assert result.status == Status.PASS, result.summary
    assert result.cells and result.cells > 2


async def test_combinational_design_uses_a_virtual_clock(synth: Synthesizer) -> None:
    (synth.workspace.root / "hdl" / "add.sv").write_text(
        "module add (input logic [15:0] a, b, output logic [16:0] s);\n"
        "  assign s = a + b;\nendmodule\n"
    )
    result = await synth.synthesize(["hdl/add.sv"], "add", 5.0)
    assert result.status == Status.PASS
    assert result.clock_port is None
    assert "virtual clock" in result.estimate_note
    assert result.worst_setup_slack_ns is not None and result.worst_setup_slack_ns < 5.0
    assert result.cell_types.get("DFFPOSX1") is None


async def test_design_that_does_not_synthesize(synth: Synthesizer) -> None:
    result = await synth.synthesize(["hdl/bad.sv"], "bad", 10.0)
    assert result.status == Status.COMPILE_FAIL
    first = result.diagnostics[0]
    assert (first.file, first.line, first.column) == ("hdl/bad.sv", 3, 37)
    assert first.category == Category.UNDECLARED_IDENTIFIER
    assert first.snippet is not None and ">    3 |" in first.snippet
    assert "stepp" in first.message
    assert first.source == "yosys-slang"
    assert result.area_um2 is None


async def test_missing_module_and_syntax_error_are_located(synth: Synthesizer) -> None:
    (synth.workspace.root / "hdl" / "top.sv").write_text(
        "module top (input logic clk, output logic q_o);\n"
        "  missing_block u_blk (.clk(clk), .q(q_o));\n"
        "endmodule\n"
    )
    (synth.workspace.root / "hdl" / "semi.sv").write_text(
        "module semi (input logic a, output logic y);\n  assign y = a\nendmodule\n"
    )
    missing = await synth.synthesize(["hdl/top.sv"], "top", 10.0)
    assert missing.status == Status.COMPILE_FAIL
    first = missing.diagnostics[0]
    assert (first.file, first.line, first.category) == (
        "hdl/top.sv",
        2,
        Category.MISSING_MODULE,
    )
    wrong_top = await synth.synthesize(["hdl/counter/counter.sv"], "countr", 10.0)
    assert wrong_top.status == Status.COMPILE_FAIL
    assert wrong_top.diagnostics[0].category == Category.MISSING_MODULE
    assert "countr" in wrong_top.diagnostics[0].message
    semi = await synth.synthesize(["hdl/semi.sv"], "semi", 10.0)
    assert semi.status == Status.COMPILE_FAIL
    error = semi.diagnostics[0]
    assert error.category == Category.SYNTAX_ERROR and error.file == "hdl/semi.sv"
    assert error.line in (2, 3) and error.column is not None


async def test_workspace_liberty_and_bad_arguments(synth: Synthesizer, tmp_path: Path) -> None:
    lib = osu018_liberty()
    assert lib is not None
    shutil.copy(lib.path, synth.workspace.root / "cells.lib")
    own = await synth.synthesize(["hdl/counter/counter.sv"], "counter", 10.0, liberty="cells.lib")
    assert own.status == Status.PASS
    assert own.library is not None and own.library.origin == "workspace"
    outside = await synth.synthesize(["hdl/counter/counter.sv"], "counter", 10.0, liberty=lib.path)
    assert outside.status == Status.INVALID_INPUT
    assert outside.diagnostics[0].code == "liberty"
    assert "outside the workspace" in outside.diagnostics[0].message
    not_lib = await synth.synthesize(
        ["hdl/counter/counter.sv"], "counter", 10.0, liberty="hdl/counter/counter.sv"
    )
    assert not_lib.status == Status.INVALID_INPUT
    for kwargs, argument in (
        ({"clock_period_ns": 0}, "clock_period_ns"),
        ({"clock_period_ns": -3}, "clock_period_ns"),
        ({"top": "1bad"}, "top"),
        ({"sources": ["../../etc/passwd"]}, "sources"),
        ({"sources": []}, "sources"),
        ({"params": {"WIDTH": "8; shell"}}, "params"),
        ({"defines": {"A B": "1"}}, "defines"),
        ({"clock_port": "clk; rm"}, "clock_port"),
    ):
        call = {"sources": ["hdl/counter/counter.sv"], "top": "counter", "clock_period_ns": 10.0}
        call.update(kwargs)
        refused = await synth.synthesize(**call)  # type: ignore[arg-type]
        assert refused.status == Status.INVALID_INPUT, kwargs
        assert refused.diagnostics[0].code == argument


async def test_second_call_is_cached(synth: Synthesizer) -> None:
    first = await synth.synthesize(["hdl/counter/counter.sv"], "counter", 7.0)
    again = await synth.synthesize(["hdl/counter/counter.sv"], "counter", 7.0)
    assert not first.cache_hit and again.cache_hit
    assert again.area_um2 == first.area_um2
    (synth.workspace.root / "hdl" / "counter" / "counter.sv").write_text(
        (synth.workspace.root / "hdl" / "counter" / "counter.sv")
        .read_text()
        .replace("WIDTH = 8", "WIDTH = 9")
    )
    changed = await synth.synthesize(["hdl/counter/counter.sv"], "counter", 7.0)
    assert not changed.cache_hit and changed.cell_types.get("DFFPOSX1") == 9


async def test_advise_on_a_synthesis_result(synth: Synthesizer) -> None:
    from silicon_agent.servers.openlane.api import OpenLaneApi

    tight = await synth.synthesize(["hdl/mac.sv"], "mac", 2.0)
    assert tight.area_um2 is not None and tight.worst_setup_slack_ns is not None
    api = OpenLaneApi(synth.workspace)
    advice = api.advise(summary=tight.model_dump(mode="json"), area_budget_um2=tight.area_um2 / 2)
    fired = {r.rule: r for r in advice.recommendations}
    assert set(fired) == {"setup_wns", "area_budget"}
    wns = fired["setup_wns"]
    assert wns.evidence["critical_path"]["logic_depth"] >= 10
    assert wns.config_changes["CLOCK_PERIOD"] > 2.0 - tight.worst_setup_slack_ns
    assert fired["area_budget"].evidence["largest_cell_counts"]
    assert any(n.startswith("utilisation") for n in advice.not_evaluated)


async def test_unknown_clock_port_is_a_warning(synth: Synthesizer) -> None:
    result = await synth.synthesize(
        ["hdl/counter/counter.sv"], "counter", 10.0, clock_port="sys_clk"
    )
    assert result.status == Status.PASS
    assert result.clock_port is None
    warning = next(d for d in result.diagnostics if d.code == "clock_port")
    assert "sys_clk" in warning.message and "clk" in (warning.hint or "")
    named = await synth.synthesize(["hdl/counter/counter.sv"], "counter", 10.0, clock_port="clk")
    assert named.clock_port == "clk" and not named.diagnostics


RAMS = """// Two memories of their own sizes, one in a submodule and one in the top.
module bank #(parameter int DEPTH = 48, parameter int W = 12) (
    input  logic clk, we_i,
    input  logic [$clog2(DEPTH)-1:0] addr_i,
    input  logic [W-1:0] d_i,
    output logic [W-1:0] q_o
);
  logic [W-1:0] mem_r[DEPTH];
  always_ff @(posedge clk) begin
    if (we_i) mem_r[addr_i] <= d_i;
    q_o <= mem_r[addr_i];
  end
endmodule

module rams #(parameter int DEPTH = 48) (
    input  logic clk, we_i,
    input  logic [5:0] addr_i,
    input  logic [11:0] d_i,
    output logic [11:0] q_o,
    output logic [4:0] r_o
);
  logic [11:0] q_w;
  logic [4:0] small_mem_r[20];
  bank #(.DEPTH(DEPTH)) u_bank (.clk, .we_i, .addr_i(addr_i[$clog2(DEPTH)-1:0]), .d_i, .q_o(q_w));
  always_ff @(posedge clk) begin
    if (we_i) small_mem_r[addr_i[4:0]] <= d_i[4:0];
    r_o <= small_mem_r[addr_i[4:0]];
    q_o <= q_w;
  end
endmodule
"""


async def test_inferred_memories_are_reported(synth: Synthesizer) -> None:
    (synth.workspace.root / "hdl" / "rams.sv").write_text(RAMS)
    full = await synth.synthesize(["hdl/rams.sv"], "rams", 10.0)
    assert full.status == Status.PASS, full.summary
    assert [(m.depth, m.width) for m in full.memories] == [(48, 12), (20, 5)]
    assert full.memory_bits == 48 * 12 + 20 * 5
    assert full.memories[0].name.endswith("mem_r") and "u_bank" in full.memories[0].name
    assert "memory -nomap" in full.provenance["memory_bits"]
    # Mapped to flip-flops: the stand-in has no RAM macros.
    assert full.cells and full.cells > full.memory_bits
    only = await synth.synthesize(
        ["hdl/rams.sv"], "rams", 10.0, params={"DEPTH": 32}, memories_only=True
    )
    assert only.status == Status.PASS, only.summary
    assert only.memory_bits == 32 * 12 + 20 * 5
    assert only.cells is None and only.worst_setup_slack_ns is None
    none = await synth.synthesize(["hdl/mac.sv"], "mac", 10.0)
    assert none.memories == [] and none.memory_bits == 0
    bad = await synth.synthesize(["hdl/rams.sv"], "rams", 10.0, memories_only="yes")  # type: ignore[arg-type]
    assert bad.status == Status.INVALID_INPUT and "memories_only" in bad.summary


async def test_the_cpu_limit_follows_the_timeout(
    synth: Synthesizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from silicon_agent.servers.openlane import synth as synth_module

    seen: list[int] = []
    real = synth_module.run_process

    async def recording(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        seen.append(kwargs["limits"].cpu_s)  # type: ignore[union-attr]
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(synth_module, "run_process", recording)
    result = await synth.synthesize(["hdl/mac.sv"], "mac", 9.5, timeout_s=2400.0)
    assert result.status == Status.PASS, result.summary
    # Yosys: its share of the call (the rest is OpenSTA's), not the default's 900 s of CPU
    assert seen and 2000 <= seen[0] <= 2405


async def test_a_missed_clock_is_a_failing_timing_verdict_that_names_the_path(
    synth: Synthesizer,
) -> None:
    from silicon_agent.servers.openlane.api import OpenLaneApi

    tight = await synth.synthesize(["hdl/mac.sv"], "mac", 2.0)
    relaxed = await synth.synthesize(["hdl/mac.sv"], "mac", 40.0)
    assert relaxed.timing_met is True and "timing met" in relaxed.summary
    assert not [d for d in relaxed.diagnostics if d.code == "SETUP_SLACK"]
    assert tight.timing_met is False and "NOT MET" in tight.summary
    missed = next(d for d in tight.diagnostics if d.code == "SETUP_SLACK")
    path = tight.critical_path
    assert missed.severity == "error" and path is not None
    assert path.startpoint in missed.message and path.endpoint in missed.message
    assert f"{path.logic_depth} cells" in missed.message
    assert "pipeline" in (missed.hint or "")
    # A clock missed by a hair is still missed: advise recommends a change for it too.
    slight = tight.model_dump(mode="json") | {"worst_setup_slack_ns": -0.15}
    advice = OpenLaneApi(synth.workspace).advise(summary=slight)
    wns = next(r for r in advice.recommendations if r.rule == "setup_wns")
    assert wns.evidence["critical_path"]["endpoint"] == path.endpoint
    assert wns.config_changes["CLOCK_PERIOD"] > 2.0


SQUARERS = """// Eight wide squarers: more than Yosys maps in a few seconds.
module squarers #(parameter int W = 128) (
    input  logic clk,
    input  logic [W-1:0] x_i [8],
    output logic [2*W-1:0] y_o [8]
);
  always_ff @(posedge clk)
    for (int i = 0; i < 8; i++) y_o[i] <= x_i[i] * x_i[i];
endmodule
"""


async def test_a_synthesis_too_big_answers_within_its_timeout_with_advice(
    synth: Synthesizer,
) -> None:
    (synth.workspace.root / "hdl" / "squarers.sv").write_text(SQUARERS)
    seen: list[str] = []

    async def progress(fraction: float | None, message: str) -> None:
        seen.append(message)

    result = await synth.synthesize(
        ["hdl/squarers.sv"], "squarers", 10.0, timeout_s=30.0, progress=progress
    )
    assert result.status == Status.TIMEOUT, result.summary
    # The server's own clock: the answer leaves inside the caller's time, not after it.
    assert result.duration_s <= 30.0
    stopped = result.diagnostics[0]
    assert stopped.category == Category.TIMEOUT and "of the call's 30 s" in stopped.message
    assert "pipeline" in (stopped.hint or "") or "stand-in" in (stopped.hint or "")
    assert "timeout_s" in (stopped.hint or "")
    assert any(m.startswith("yosys: ") and " s of " in m for m in seen), seen
