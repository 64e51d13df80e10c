"""End-to-end PDSCH link: DL-SCH encode (TS 36.212 5.3.2), scramble + modulate (36.211 6.3),
resource grid and OFDM (6.10, 6.11, 6.12) -> channel -> OFDM demodulation, CRS channel
estimation, equalisation, soft demapping, descrambling and DL-SCH decoding, in float or as the
chain of bit-true fixed-point block models."""

from __future__ import annotations

import time

import numpy as np
from pydantic import BaseModel

from silicon_agent.refmodels.cell_config import CellConfig
from silicon_agent.refmodels.channel import Profile, awgn, frequency_offset, multipath
from silicon_agent.refmodels.channel_estimator import estimate_channel, estimate_channel_fixed
from silicon_agent.refmodels.descrambler import descramble
from silicon_agent.refmodels.dl_sch_encoder import encode_dl_sch
from silicon_agent.refmodels.dl_sch_processor import decode_dl_sch
from silicon_agent.refmodels.equalizer import Method, equalize, equalize_fixed
from silicon_agent.refmodels.fixed_point import IQ_SAMPLE, quantise
from silicon_agent.refmodels.modulation import modulate, modulation_for_qm
from silicon_agent.refmodels.ofdm_demodulator import ofdm_demodulate, ofdm_demodulate_fixed
from silicon_agent.refmodels.ofdm_modulator import ofdm_modulate
from silicon_agent.refmodels.qam_demodulator import demodulate, demodulate_fixed
from silicon_agent.refmodels.reference_channels import REFERENCE_CHANNELS
from silicon_agent.refmodels.resource_demapper import extract_pdsch
from silicon_agent.refmodels.resource_grid import build_subframe, pdsch_capacity
from silicon_agent.refmodels.scrambling import pdsch_c_init, scramble

AGC_TARGET_RMS = 2.0**-3  # ADC back-off ahead of the fixed-point receiver (-18 dBFS)


class E2eReport(BaseModel):
    """Outcome of one subframe through TX -> channel -> RX."""

    rc: str
    channel: str
    snr_db: float
    fixed: bool
    subframe: int
    tbs: int
    G: int
    code_blocks: int
    crc_ok: bool
    cb_crc_ok: list[bool]
    ber_pre_fec: float
    ber_post_fec: float
    iterations: list[int]
    n0_est: float
    seconds: float


def run_e2e(
    rc: str = "R.2",
    snr_db: float = 20.0,
    channel: Profile = "awgn",
    fixed: bool = False,
    seed: int = 0,
    subframe: int = 1,
    doppler_hz: float = 5.0,
    cfo_hz: float = 0.0,
    method: Method = "zf",
    n_cell_id: int = 1,
    max_iters: int = 8,
) -> E2eReport:
    """Send one random transport block of reference channel ``rc`` through the link (TS 36.212
    5.3.2, TS 36.211 6.3-6.12, TS 36.101 A.3)."""
    t_start = time.perf_counter()
    ref = REFERENCE_CHANNELS[rc]
    rng = np.random.default_rng([seed, subframe])
    cell = CellConfig(n_cell_id=n_cell_id, cfi=ref.cfi, subframe=subframe)
    prbs = ref.prb_array()
    mod = modulation_for_qm(ref.qm)
    g = pdsch_capacity(cell, prbs, ref.qm)
    tb = rng.integers(0, 2, ref.tbs).astype(np.uint8)
    f, plan = encode_dl_sch(tb, g, ref.qm)
    c_init = pdsch_c_init(cell.n_rnti, cell.n_cell_id, subframe)
    grid = build_subframe(cell, prbs, modulate(scramble(f, c_init), mod), rng)
    tx = ofdm_modulate(grid)
    n0 = 10 ** (-snr_db / 10)
    rx = tx if channel == "awgn" else multipath(tx, channel, doppler_hz, rng, t0=subframe * 1e-3)
    if cfo_hz:
        rx = frequency_offset(rx, cfo_hz, t0=subframe * 1e-3)
    rx = awgn(rx, n0, rng)
    if fixed:
        gain = AGC_TARGET_RMS / np.sqrt(np.mean(np.abs(rx) ** 2))
        si, sq = quantise(rx.real * gain, IQ_SAMPLE), quantise(rx.imag * gain, IQ_SAMPLE)
        gi, gq = ofdm_demodulate_fixed(si, sq)
        hi, hq, n0_raw = estimate_channel_fixed(gi, gq, cell)
        xi, xq, scale = equalize_fixed(
            extract_pdsch(gi, cell, prbs),
            extract_pdsch(gq, cell, prbs),
            extract_pdsch(hi, cell, prbs),
            extract_pdsch(hq, cell, prbs),
            n0_raw,
            method,
        )
        llr = demodulate_fixed(xi, xq, mod, scale)
        n0_est = n0_raw / (1 << 22) / gain**2
        hard = llr > 0
    else:
        y = ofdm_demodulate(rx)
        h, n0_est = estimate_channel(y, cell)
        x, inv_n0 = equalize(
            extract_pdsch(y, cell, prbs), extract_pdsch(h, cell, prbs), n0_est, method
        )
        llr = demodulate(x, mod, 1.0 / inv_n0)
        hard = llr > 0
    codeword_llr = descramble(llr, c_init)
    pre = float(np.mean((descramble(hard.astype(np.int8) * 2 - 1, c_init) > 0) != f))
    res = decode_dl_sch(codeword_llr, plan, fixed=fixed, max_iters=max_iters)
    post = float(np.mean(np.array(res.tb_bits, np.uint8) != tb))
    return E2eReport(
        rc=rc,
        channel=channel,
        snr_db=snr_db,
        fixed=fixed,
        subframe=subframe,
        tbs=ref.tbs,
        G=g,
        code_blocks=plan.seg.C,
        crc_ok=res.tb_crc_ok,
        cb_crc_ok=res.cb_crc_ok,
        ber_pre_fec=pre,
        ber_post_fec=post,
        iterations=res.iterations,
        n0_est=n0_est,
        seconds=time.perf_counter() - t_start,
    )


__all__ = ["E2eReport", "run_e2e"]
