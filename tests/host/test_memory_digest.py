"""verify_block's digest through the memories of a real block, over MCP (agent-host serve,
the Icarus and waveform servers on stdio): the OFDM demodulator's FFT runs its butterflies
through four banks of memory ten times over, and its output leaves through a two-beat FIFO.
A wrong butterfly is named through the memory reads and writes; a beat dropped under
back-pressure puts the pop condition first."""

from __future__ import annotations

import pytest

from silicon_agent.host.distill import prompt_digest

from .modem_scenario import reference
from .test_modem_feedback import assert_only_modem_tools, line_of, verify

pytestmark = pytest.mark.anyio
OFDM = reference("ofdm_demodulator")
TWIDDLE = "assign w_im_w = $signed(tw1_r[TW_W-1:0]);"
POP = "assign pop_w = (fifo_cnt_r != 2'd0) && m_axis_tready_i;"


def order(cone: list[dict]) -> list[str]:
    lines: list[str] = []
    for entry in cone:
        lines += [line for line in entry["lines"] if line not in lines]
    return lines


async def test_a_wrong_butterfly_is_named_through_the_fft_memories(tmp_path) -> None:
    assert OFDM.count(TWIDDLE) == 1
    mutant = OFDM.replace(TWIDDLE, TWIDDLE.replace("= $signed", "= -$signed"))
    changed = f"ofdm_demodulator.sv:{line_of(mutant, 'assign w_im_w')}"
    reply = await verify(tmp_path, "ofdm_demodulator", mutant)
    assert reply["status"] == "SIM_FAIL" and reply["failure"]["kind"] == "mismatch", reply
    explained = reply["explanation"]
    cone = {c["rtl"]: c for c in explained["cone"]}
    # the drain reads a bank; the word was written by the butterfly pipeline
    assert "ofdm_demodulator.gen_ram[0].u_bank.mem_r" in cone, sorted(cone)
    assert "ofdm_demodulator.gen_ram[0].u_bank.wdata_i" in cone, sorted(cone)
    assert not [n for n in cone if n.startswith("ofdm_demodulator.gen_ram[1]")], sorted(cone)
    lines = order(explained["cone"])
    assert changed in lines, lines
    # the loop's compact digest of it is cut to its size; the explanation stays whole
    entries = len(explained["cone"])
    assert len(prompt_digest(explained)) <= 4000 and len(explained["cone"]) == entries
    assert_only_modem_tools(reply)


async def test_a_beat_dropped_under_back_pressure_names_the_pop_first(tmp_path) -> None:
    assert OFDM.count(POP) == 1
    mutant = OFDM.replace(POP, POP.replace(" && m_axis_tready_i", ""))
    changed = f"ofdm_demodulator.sv:{line_of(mutant, 'assign pop_w')}"
    reply = await verify(tmp_path, "ofdm_demodulator", mutant)
    assert reply["status"] == "SIM_FAIL" and reply["failure"]["kind"] == "mismatch", reply
    explained = reply["explanation"]
    assert [n for n in explained["notes"] if "was not taken" in n], explained["notes"]
    lines = order(explained["cone"])
    assert changed in lines and lines.index(changed) < 20, lines
    assert_only_modem_tools(reply)
