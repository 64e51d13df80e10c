"""Soft demapper (36.211 7.1 constellations, max-log) against sionna, fixed vs float, and the
descrambler (36.211 6.3.1 inverse)."""

from __future__ import annotations

import numpy as np
import pytest

from silicon_agent.refmodels.descrambler import descramble
from silicon_agent.refmodels.fixed_point import EQ_OUT, LLR, NOISE_SCALE, quantise, to_real
from silicon_agent.refmodels.modulation import modulate
from silicon_agent.refmodels.qam_demodulator import demodulate, demodulate_fixed
from silicon_agent.refmodels.scrambling import pdsch_c_init, scramble

MODS = [("QPSK", 2), ("16QAM", 4), ("64QAM", 6)]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "qm"), MODS)
def test_demapper_matches_sionna_maxlog(name: str, qm: int, rng: np.random.Generator) -> None:
    import torch
    from sionna.phy.mapping import Demapper

    n0 = 0.2
    bits = rng.integers(0, 2, qm * 2000).astype(np.uint8)
    y = modulate(bits, name)
    y = y + np.sqrt(n0 / 2) * (rng.normal(size=y.size) + 1j * rng.normal(size=y.size))
    dem = Demapper("maxlog", "qam", qm, precision="double")
    ref = dem(torch.tensor(y[None]), torch.tensor(n0, dtype=torch.float64)).numpy().ravel()
    np.testing.assert_allclose(demodulate(y, name, n0), ref, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(("name", "qm"), MODS)
def test_demapper_hard_decisions_noiseless(name: str, qm: int, rng: np.random.Generator) -> None:
    bits = rng.integers(0, 2, qm * 500).astype(np.uint8)
    llr = demodulate(modulate(bits, name), name, 0.1)
    assert np.array_equal((llr > 0).astype(np.uint8), bits)


@pytest.mark.parametrize(("name", "qm"), MODS)
def test_fixed_demapper_tracks_float(name: str, qm: int, rng: np.random.Generator) -> None:
    # Tolerance: given the same quantised y and 1/N0, the fixed LLR is within 1 LLR LSB of the
    # float max-log LLR (1/2 LSB output rounding + the constellation levels rounded to Q3.12);
    # saturated values clip to +-127 LSB.
    n0 = {"QPSK": 1.0, "16QAM": 0.2, "64QAM": 0.05}[name]
    bits = rng.integers(0, 2, qm * 3000).astype(np.uint8)
    y = modulate(bits, name)
    y = y + np.sqrt(n0 / 2) * (rng.normal(size=y.size) + 1j * rng.normal(size=y.size))
    yi, yq = quantise(y.real, EQ_OUT), quantise(y.imag, EQ_OUT)
    scale = quantise(np.array(1 / n0), NOISE_SCALE)
    fx = to_real(demodulate_fixed(yi, yq, name, int(scale)), LLR)
    fl = demodulate(
        to_real(yi, EQ_OUT) + 1j * to_real(yq, EQ_OUT), name, 1 / to_real(scale, NOISE_SCALE)
    )
    fl_sat = np.clip(fl, -LLR.max_raw * LLR.lsb, LLR.max_raw * LLR.lsb)
    assert np.max(np.abs(fx - fl_sat)) <= LLR.lsb
    assert (np.abs(fx) < LLR.max_raw * LLR.lsb).mean() > 0.5  # mostly unsaturated
    agree = np.sign(fx) == np.sign(fl)
    assert agree[np.abs(fl) > LLR.lsb].all()


def test_descrambler_inverts_scrambler(rng: np.random.Generator) -> None:
    bits = rng.integers(0, 2, 4000).astype(np.uint8)
    c_init = pdsch_c_init(0x003D, 150, 4)
    tx = 2.0 * scramble(bits, c_init) - 1.0
    assert np.array_equal(descramble(tx, c_init), 2.0 * bits - 1.0)
    raw = np.full(4000, -LLR.max_raw)
    out = descramble(raw, c_init)
    assert np.abs(out).max() == LLR.max_raw
