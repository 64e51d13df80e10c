"""compare and explain_mismatch find the planted bugs of the example designs."""

from __future__ import annotations

import asyncio

import pytest

from silicon_agent.servers.vcd.api import Waves

pytestmark = pytest.mark.slow

COUNTER_SOURCES = ["counter/counter_broken.sv", "counter/tb_counter.sv"]
FIFO_SOURCES = ["fifo/fifo_broken.sv", "fifo/tb_fifo.sv"]


def test_compare_broken_counter_against_good_dump(dumps):
    waves = Waves(dumps.workspace)
    broken = dumps.waves("counter_broken", "iverilog", "vcd")
    good = dumps.waves("counter_good", "iverilog", "vcd")
    tb = dumps.result("counter_broken", "iverilog", "vcd").first_mismatch
    assert tb is not None and tb.time is not None
    result = asyncio.run(waves.compare(broken, good, signals=["count_r", "en_i"], clock="clk"))
    assert result.ok, result.error
    first = result.first
    assert first is not None
    assert first.signal == "tb_counter.dut.count_r"
    assert (first.expected, first.actual) == ("8'h06", "8'h07")
    assert result.mismatches > 100  # one step ahead until the reset, then again
    assert [d.signal for d in result.divergences] == ["tb_counter.dut.count_r"]
    # the bug shows at the first clock edge after the wrong value was registered; the
    # testbench checks on the falling edge half a period earlier
    assert 0 < first.time - int(tb.time) <= 5
    # every shared signal, without a clock: the first change that differs
    whole = asyncio.run(waves.compare(broken, good))
    assert whole.first is not None and whole.first.time is not None
    assert whole.first.time < first.time
    assert "count" in whole.first.signal


def test_compare_fifo_against_golden_vectors(dumps):
    """Golden vectors = the beats that went into the FIFO; the output beats must match them."""
    waves = Waves(dumps.workspace)
    dump = dumps.waves("fifo_broken", "iverilog", "vcd")
    tb = dumps.result("fifo_broken", "iverilog", "vcd").first_mismatch
    assert tb is not None
    # read the accepted input beats back as the golden file
    beats = _input_beats(waves, dump)
    golden = _write_vectors(dumps, "golden.hex", beats)
    result = asyncio.run(
        waves.compare(
            dump,
            golden,
            vector_signal="m_axis_tdata_o",
            when="rst_n && m_axis_tvalid_o && m_axis_tready_i",
            clock="clk",
        )
    )
    assert result.ok, result.error
    assert result.mode == "vectors"
    assert result.first is not None
    assert result.first.time == int(tb.time)  # the testbench's own first failing beat
    assert result.first.expected == "8'h" + tb.expected.lower()
    assert result.first.actual == "8'h" + tb.actual.lower()
    assert result.compared > 10


def _input_beats(waves: Waves, dump: str) -> list[str]:
    table = asyncio.run(
        waves.window(dump, ["s_axis_tdata_i", "s_axis_tvalid_i", "s_axis_tready_o", "rst_n"],
                     clock="clk", max_rows=5000)
    )  # fmt: skip
    out = []
    for row in table.rows:
        v = list(row.values.values())
        if v[1:] == ["1'b1", "1'b1", "1'b1"]:
            out.append(v[0].split("'h")[1])
    assert len(out) > 100
    return out


def _write_vectors(dumps, name: str, words: list[str]) -> str:
    path = dumps.root / name
    lines = ["// golden beats", "@0"] + words
    path.write_text("\n".join(lines) + "\n")
    return name


def test_explain_counter_points_at_the_register(dumps):
    waves = Waves(dumps.workspace)
    dump = dumps.waves("counter_broken", "iverilog", "vcd")
    tb = dumps.result("counter_broken", "iverilog", "vcd").first_mismatch
    assert tb is not None and tb.signal and tb.time
    result = asyncio.run(
        waves.explain_mismatch(
            dump, tb.signal, int(tb.time), sources=COUNTER_SOURCES, depth=2,
            expected=tb.expected,
        )
    )  # fmt: skip
    assert result.ok, result.error
    assert result.signal == "tb_counter.dut.count_o"
    assert result.value == "8'h07"
    assert result.previous_value == "8'h05"  # it jumped: 5 -> 7
    assert result.changed_at is not None and result.changed_at < int(tb.time)
    cone = {c.rtl: c.level for c in result.cone}
    assert cone["tb_counter.dut.count_r"] == 1
    assert {"tb_counter.dut.en_i", "tb_counter.dut.rst_n"} <= set(cone)
    assert result.window is not None
    assert "tb_counter.dut.count_r" in result.window.signals
    values = [row.values["tb_counter.dut.count_r"] for row in result.window.rows]
    assert "8'h05" in values and "8'h07" in values and "8'h06" not in values


@pytest.mark.parametrize("simulator,fmt", [("iverilog", "vcd"), ("verilator", "fst")])
def test_explain_fifo_reaches_the_ready_output(dumps, simulator, fmt):
    waves = Waves(dumps.workspace)
    dump = dumps.waves("fifo_broken", simulator, fmt)
    tb = dumps.result("fifo_broken", simulator, fmt).first_mismatch
    assert tb is not None and tb.signal == "m_axis_tdata_o"
    result = asyncio.run(
        waves.explain_mismatch(dump, tb.signal, int(tb.time), sources=FIFO_SOURCES, depth=3)
    )
    assert result.ok, result.error
    # the testbench checks on the rising edge: the value it saw is the one before the edge
    assert result.value == "8'h" + str(tb.actual).lower()
    levels = {c.rtl: c.level for c in result.cone}
    assert levels["tb_fifo.dut.s_axis_tready_o"] == 3
    assert result.window is not None
    assert "tb_fifo.dut.s_axis_tready_o" in result.window.signals
    assert len(result.window.rows) >= 8
    prefixes = {hs.prefix for hs in result.handshakes}
    assert "tb_fifo.dut.s_axis" in prefixes and "tb_fifo.dut.m_axis" in prefixes
    assert any(hs.beats > 0 for hs in result.handshakes)


def test_handshake_stats_on_the_example_fifo(dumps):
    waves = Waves(dumps.workspace)
    dump = dumps.waves("fifo_broken", "iverilog", "vcd")
    result = asyncio.run(waves.handshake_stats(dump, clock="clk", start=50))
    assert result.ok, result.error
    by_prefix = {hs.prefix: hs for hs in result.interfaces}
    s_axis = by_prefix["tb_fifo.dut.s_axis"]
    m_axis = by_prefix["tb_fifo.dut.m_axis"]
    # the broken FIFO never deasserts tready: no stall on its input, ever
    assert s_axis.stalls == 0
    assert m_axis.stalls > 0 and m_axis.longest_stall >= 1
    assert s_axis.beats >= 400  # 400 beats sent, some dropped inside
    assert s_axis.cycles == s_axis.beats + s_axis.stalls + s_axis.bubbles + s_axis.idle
