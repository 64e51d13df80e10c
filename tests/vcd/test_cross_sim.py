"""One deterministic design dumped by iverilog and Verilator, as VCD and FST, reads the same."""

from __future__ import annotations

import asyncio

import pytest

from silicon_agent.servers.vcd.api import Waves

pytestmark = pytest.mark.slow

KINDS = [(sim, fmt) for sim in ("iverilog", "verilator") for fmt in ("vcd", "fst")]
# m_axis_tdata_o is left out: it reads FIFO memory that is x in a four-state simulator and 0
# in Verilator until written (compared on handshake beats instead).
DUT = [
    "tb_det.u_count.count_r",
    "tb_det.u_count.en_i",
    "tb_det.u_fifo.wr_ptr_r",
    "tb_det.u_fifo.rd_ptr_r",
    "tb_det.u_fifo.s_axis_tdata_i",
    "tb_det.u_fifo.m_axis_tvalid_o",
    "tb_det.u_fifo.s_axis_tready_o",
]


def test_all_dumps_built_and_testbench_passed(dumps):
    for sim, fmt in KINDS:
        assert dumps.result("det", sim, "vcd").status == "PASS", sim
        assert dumps.waves("det", sim, fmt).endswith("." + fmt)


def test_per_cycle_values_agree_across_simulators_and_formats(dumps):
    waves = Waves(dumps.workspace)
    cycles = list(range(5, 195))
    tables = {}
    for sim, fmt in KINDS:
        # Verilator writes TOP.tb_det... in some formats: the short names must still resolve
        names = DUT if sim == "iverilog" else ["TOP." + n for n in DUT]
        table = asyncio.run(
            waves.values_at(dumps.waves("det", sim, fmt), names, cycles=cycles, clock="tb_det.clk")
        )
        assert table.ok, table.error
        assert len(table.rows) == len(cycles)
        tables[(sim, fmt)] = [list(row.values.values()) for row in table.rows]
        assert len({tuple(r) for r in tables[(sim, fmt)]}) > 50  # the design really moves
    reference = tables[("iverilog", "vcd")]
    for kind, rows in tables.items():
        assert rows == reference, kind


def test_times_agree_and_compare_finds_no_divergence(dumps):
    waves = Waves(dumps.workspace)
    base = dumps.waves("det", "iverilog", "vcd")
    times = list(range(40, 2000, 7))
    want = asyncio.run(waves.values_at(base, DUT, times=times))
    for sim, fmt in KINDS[1:]:
        other = dumps.waves("det", sim, fmt)
        got = asyncio.run(waves.values_at(other, DUT, times=times))
        assert [r.values for r in got.rows] == [r.values for r in want.rows], (sim, fmt)
        result = asyncio.run(waves.compare(other, base, signals=DUT, clock="clk", start=40))
        assert result.ok, result.error
        assert result.compared > 150
        assert result.first is None, result.first


def test_find_event_and_handshakes_agree(dumps):
    waves = Waves(dumps.workspace)
    answers = set()
    stats = set()
    for sim, fmt in KINDS:
        path = dumps.waves("det", sim, fmt)
        event = asyncio.run(
            waves.find_event(
                path,
                "m_axis_tvalid_o && m_axis_tready_i && m_axis_tdata_o == 'h10",
                clock="tb_det.clk",
            )
        )
        assert event.found, event
        answers.add((event.time, event.cycle))
        # after reset: before it a four-state simulator shows x where Verilator shows 0
        hs = asyncio.run(waves.handshake_stats(path, "u_fifo.s_axis", clock="tb_det.clk", start=40))
        assert hs.ok and len(hs.interfaces) == 1, hs
        one = hs.interfaces[0]
        assert one.unknown == 0
        stats.add((one.beats, one.stalls, one.bubbles, one.longest_stall))
    assert len(answers) == 1
    assert len(stats) == 1
    beats, stalls, _, _ = stats.pop()
    assert beats >= 100 and stalls > 0
