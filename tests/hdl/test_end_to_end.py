"""End to end in RTL: lte_baseband_top decodes the R.2 and R.31-1 subframes that the refmodels
transmitter sent through AWGN at 20 dB, and R.2 through the EPA 5 Hz fading profile and the
MMSE equaliser, from the 15360 IQ samples to the MAC PDU, on Verilator through the suite's own
``run_testbench``; R.31-1 back to back over 11 subframes, each configured while the one before
is still decoded, in real time at 100 MHz."""

from __future__ import annotations

import re
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from silicon_agent.hdl.registry import Registry, load_sidecar
from silicon_agent.hdl.sim import VectorCase, VectorSet, run_case, simulator
from silicon_agent.refmodels.cell_config import CellConfig
from silicon_agent.refmodels.channel_estimator import estimate_channel_fixed
from silicon_agent.refmodels.descrambler import descramble
from silicon_agent.refmodels.dl_sch_encoder import DlSchPlan
from silicon_agent.refmodels.dl_sch_processor import decode_dl_sch
from silicon_agent.refmodels.equalizer import equalize_fixed
from silicon_agent.refmodels.hexio import read_hex
from silicon_agent.refmodels.mac_pdu import parse_mac_pdu
from silicon_agent.refmodels.modulation import modulation_for_qm
from silicon_agent.refmodels.ofdm_demodulator import ofdm_demodulate_fixed
from silicon_agent.refmodels.qam_demodulator import demodulate_fixed
from silicon_agent.refmodels.resource_demapper import extract_pdsch
from silicon_agent.refmodels.scrambling import pdsch_c_init
from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import Workspace

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

BLOCK = "lte_baseband_top"
CASES = ["r2_awgn20", "r31_1_awgn20", "r2_epa5_mmse20"]
TB_CYCLES = re.compile(r"tb: tb_cycles=(\d+)")
TB_INTERVAL_MAX = re.compile(r"tb: tb_interval_max=(\d+)")
SUBFRAME_CYCLES = 100_000  # 1 ms at 100 MHz


@pytest.fixture(scope="module")
def top_cases(workspace: Workspace, registry: Registry) -> Iterator[dict[str, VectorCase]]:
    vs = VectorSet(workspace, "e2e")
    try:
        yield {c.case: c for c in vs.generate(registry.block(BLOCK))}
    finally:
        vs.close()


def _signed16(words: np.ndarray) -> np.ndarray:
    return np.where(words >= 1 << 15, words - (1 << 16), words)


@pytest.mark.parametrize("name", CASES)
def test_vectors_decode_in_the_fixed_point_model(
    name: str, top_cases: dict[str, VectorCase]
) -> None:
    """The hex files themselves carry a decodable subframe: the refmodels fixed-point receiver
    run on stimulus_iq.hex finds the CRC-24A and the MAC PDU of expected_tb_bytes.hex."""
    case_dir = Path(top_cases[name].directory)
    params = load_sidecar(case_dir, BLOCK)["params"]
    iq = read_hex(case_dir / "stimulus_iq.hex", 32, signed=False)
    si, sq = _signed16(iq >> 16), _signed16(iq & 0xFFFF)
    assert si.size == 15360
    cell = CellConfig(n_cell_id=params["cell_id"], cfi=params["cfi"], subframe=params["subframe"])
    prbs = np.array(params["prbs"])
    gi, gq = ofdm_demodulate_fixed(si, sq)
    hi, hq, n0 = estimate_channel_fixed(gi, gq, cell)
    xi, xq, scale = equalize_fixed(
        extract_pdsch(gi, cell, prbs),
        extract_pdsch(gq, cell, prbs),
        extract_pdsch(hi, cell, prbs),
        extract_pdsch(hq, cell, prbs),
        n0,
        params["method"],
    )
    llr = demodulate_fixed(xi, xq, modulation_for_qm(params["Qm"]), scale)
    c_init = pdsch_c_init(params["rnti"], params["cell_id"], params["subframe"])
    plan = DlSchPlan.model_validate(params["plan"])
    res = decode_dl_sch(descramble(llr, c_init), plan, fixed=True, max_iters=params["iters"])
    assert res.tb_crc_ok and len(res.cb_crc_ok) == params["C"]
    pdu = np.packbits(np.array(res.tb_bits, np.uint8))
    expected = read_hex(case_dir / "expected_tb_bytes.hex", 8, signed=False)
    assert pdu.size == params["n_bytes"] == expected.size
    assert np.array_equal(pdu, expected)
    sdus = parse_mac_pdu(pdu.tobytes())
    assert [s.lcid for s in sdus] == [3] and len(sdus[0].payload) == params["n_bytes"] - 16


@pytest.mark.parametrize("name", CASES)
async def test_top_decodes_reference_channel_on_verilator(
    name: str, top_cases: dict[str, VectorCase], registry: Registry, workspace: Workspace
) -> None:
    case = top_cases[name]
    params = load_sidecar(Path(case.directory), BLOCK)["params"]
    result = await run_case(
        simulator(workspace, "verilator"), registry.block(BLOCK), case, timeout_s=900
    )
    assert result.status == Status.PASS, (result.summary, result.first_mismatch)
    # Every byte of the MAC PDU of passes 1 and 2 compared, the CRC verdict on each last byte.
    assert result.mismatch_count == 0
    assert result.samples == 2 * params["n_bytes"]
    log = (workspace.root / result.artifacts["log"]).read_text()
    cycles = TB_CYCLES.search(log)
    assert cycles is not None and int(cycles[1]) > 14 * 5120


def _with_word(case: VectorCase, name: str, index: int, change: Callable[[int], int]) -> VectorCase:
    """A copy of the case whose configuration file `name` has word `index` changed."""
    src = Path(case.directory)
    copy = src.parent / f"{src.name}-{uuid.uuid4().hex[:8]}"
    shutil.copytree(src, copy)
    copy.chmod(0o755)
    words = (copy / name).read_text().split()
    words[index] = f"{change(int(words[index], 16)):08x}"
    (copy / name).write_text("\n".join(words) + "\n")
    plusargs = [f"VECTORS={copy}" if p.startswith("VECTORS=") else p for p in case.plusargs]
    return case.model_copy(update={"plusargs": plusargs})


async def test_wrong_rnti_fails_the_decode(
    top_cases: dict[str, VectorCase], registry: Registry, workspace: Workspace
) -> None:
    """The harness can fail: with the RNTI register off by one the descrambler applies another
    Gold sequence, the CRC fails and the bytes differ."""
    bad = _with_word(top_cases["r2_awgn20"], "stimulus_config.hex", 1, lambda w: w + 1)
    result = await run_case(
        simulator(workspace, "verilator"), registry.block(BLOCK), bad, timeout_s=900
    )
    assert result.status == Status.SIM_FAIL, result.summary
    assert (result.mismatch_count or 0) > 0 and result.first_mismatch is not None


async def test_harq_retransmission_is_combined(
    top_cases: dict[str, VectorCase], registry: Registry, workspace: Workspace
) -> None:
    """R.2 at 0 dB: the first transmission fails its CRC and the rv 2 retransmission decodes
    only combined with it. The testbench checks the failed first decode's bytes and verdict,
    then the combined one's; with the retransmission decoded alone it must fail."""
    case = top_cases["harq_r2_rv2"]
    params = load_sidecar(Path(case.directory), BLOCK)["params"]
    assert params["harq"] == 1 and not params["tb1_crc_ok"] and params["tb_crc_ok"]
    sim, block = simulator(workspace, "verilator"), registry.block(BLOCK)
    result = await run_case(sim, block, case, timeout_s=900)
    assert result.status == Status.PASS, (result.summary, result.first_mismatch)
    assert result.samples == 2 * params["n_bytes"]
    # The same retransmission into cleared soft buffers: its NDI toggled, so it is new data.
    alone = _with_word(case, "stimulus_config2.hex", 0, lambda w: w ^ (1 << 28))
    failed = await run_case(sim, block, alone, timeout_s=900)
    assert failed.status == Status.SIM_FAIL, failed.summary
    assert failed.first_mismatch is not None


async def test_r31_1_back_to_back_in_real_time(registry: Registry, workspace: Workspace) -> None:
    """Eleven R.31-1 subframes back to back at full rate, each new data (the NDI toggles) and
    configured by its own committed words, written as soon as the top takes the previous ones:
    every byte and CRC verdict of every subframe checked, and no verdict more than 1 ms (at
    100 MHz) after the one before. The subframe's OFDM demodulation and channel estimation
    overlap the previous subframe's back end; without that it took 97055 cycles."""
    passes = 11
    vs = VectorSet(workspace, "e2e-b2b")
    try:
        (case,) = vs.generate(registry.block(BLOCK), params={"rc": "R.31-1", "passes": passes})
        params = load_sidecar(Path(case.directory), BLOCK)["params"]
        run = case.model_copy(update={"plusargs": [*case.plusargs, "FULL_RATE"]})
        result = await run_case(
            simulator(workspace, "verilator"), registry.block(BLOCK), run, timeout_s=900
        )
    finally:
        vs.close()
    assert result.status == Status.PASS, (result.summary, result.first_mismatch)
    assert result.mismatch_count == 0 and result.samples == passes * params["n_bytes"]
    log = (workspace.root / result.artifacts["log"]).read_text()
    worst = TB_INTERVAL_MAX.search(log)
    assert worst is not None and 14 * 5120 < int(worst[1]) < SUBFRAME_CYCLES
