"""CRS (36.211 6.10.1), PSS/SSS (6.11), PDSCH RE mapping (6.3.5) and OFDM (6.12)."""

from __future__ import annotations

import numpy as np
import pytest
from py3gpp import nrPRBS

from silicon_agent.refmodels.cell_config import N_FFT, N_SC, SAMPLES_PER_SUBFRAME, CellConfig
from silicon_agent.refmodels.crs import crs_c_init, crs_mask, crs_subcarriers, crs_values
from silicon_agent.refmodels.fixed_point import FFT_OUT, IQ_SAMPLE, quantise, to_real
from silicon_agent.refmodels.ofdm_demodulator import (
    FFT_ADVANCE,
    fft_fixed,
    ofdm_demodulate,
    ofdm_demodulate_fixed,
)
from silicon_agent.refmodels.ofdm_modulator import ofdm_modulate
from silicon_agent.refmodels.reference_channels import R2, R31_1
from silicon_agent.refmodels.resource_grid import build_subframe, pdsch_capacity
from silicon_agent.refmodels.sync_signals import pss, sss


def test_crs_c_init_by_hand() -> None:
    # n_s = 0, l = 0, N_ID = 0: 2^10 * 8 * 1 + 0 + 1.
    assert crs_c_init(0, 0, 0) == 8193
    assert crs_c_init(3, 4, 10) == 1024 * (7 * 4 + 5) * 21 + 20 + 1


@pytest.mark.parametrize(("subframe", "sym", "cell"), [(0, 0, 0), (1, 4, 7), (9, 11, 503)])
def test_crs_values_from_py3gpp_gold(subframe: int, sym: int, cell: int) -> None:
    n_s = 2 * subframe + sym // 7
    c = np.asarray(nrPRBS(crs_c_init(n_s, sym % 7, cell), 440)).astype(float)
    r = ((1 - 2 * c[0::2]) + 1j * (1 - 2 * c[1::2])) / np.sqrt(2)
    # m' = m + N_RB^max - N_RB = m + 60 for 10 MHz.
    np.testing.assert_allclose(crs_values(subframe, sym, cell), r[60:160])


def test_crs_positions() -> None:
    for cell in (0, 1, 5, 6):
        mask = crs_mask(cell)
        assert mask.sum() == 4 * 100
        assert set(np.nonzero(mask.any(axis=1))[0]) == {0, 4, 7, 11}
        assert crs_subcarriers(0, cell)[0] == cell % 6
        assert crs_subcarriers(4, cell)[0] == (3 + cell % 6) % 6


def test_pss_properties() -> None:
    for n_id2 in range(3):
        d = pss(n_id2)
        np.testing.assert_allclose(np.abs(d), 1.0)
        np.testing.assert_allclose(d, d[::-1])  # ZC central symmetry d(n) = d(61-n)
    assert abs(np.vdot(pss(0), pss(1))) < 0.3 * 62


def test_sss_unique_and_binary() -> None:
    seen = set()
    for n_id1 in range(168):
        for n_id2 in range(3):
            d0 = sss(n_id1, n_id2, 0)
            d5 = sss(n_id1, n_id2, 5)
            assert set(np.unique(d0.real)) <= {-1.0, 1.0}
            assert not np.array_equal(d0, d5)
            seen.add(d0.real.tobytes())
    assert len(seen) == 504


@pytest.mark.parametrize(
    ("ref", "subframe", "g"),
    [
        (R2, 1, 13800),
        (R2, 0, 12960),
        (R31_1, 0, 26100),
        (R31_1, 1, 26100),
        (R31_1, 5, 26100),
    ],
)
def test_pdsch_capacity_matches_36101(ref, subframe: int, g: int) -> None:
    cell = CellConfig(n_cell_id=3, cfi=ref.cfi, subframe=subframe)
    assert pdsch_capacity(cell, ref.prb_array(), ref.qm) == g


def _random_grid(rng: np.random.Generator, subframe: int = 0) -> tuple[CellConfig, np.ndarray]:
    cell = CellConfig(n_cell_id=11, cfi=2, subframe=subframe)
    prbs = np.arange(50)
    n = pdsch_capacity(cell, prbs, 2) // 2
    sym = ((1 - 2 * rng.integers(0, 2, n)) + 1j * (1 - 2 * rng.integers(0, 2, n))) / np.sqrt(2)
    return cell, build_subframe(cell, prbs, sym, rng)


def test_ofdm_roundtrip(rng: np.random.Generator) -> None:
    _, grid = _random_grid(rng)
    tx = ofdm_modulate(grid)
    assert tx.size == SAMPLES_PER_SUBFRAME
    y = ofdm_demodulate(tx)
    bins = np.concatenate([np.arange(N_FFT - 300, N_FFT), np.arange(1, 301)])
    ramp = np.exp(-2j * np.pi * bins * FFT_ADVANCE / N_FFT)
    np.testing.assert_allclose(y, grid * ramp, atol=1e-12)


def test_ofdm_per_re_noise(rng: np.random.Generator) -> None:
    n0 = 0.1
    noise = np.sqrt(n0 / 2) * (
        rng.normal(size=SAMPLES_PER_SUBFRAME) + 1j * rng.normal(size=SAMPLES_PER_SUBFRAME)
    )
    assert np.isclose(np.mean(np.abs(ofdm_demodulate(noise)) ** 2), n0, rtol=0.05)


def test_fixed_fft_close_to_float(rng: np.random.Generator) -> None:
    x = (rng.normal(size=(4, N_FFT)) + 1j * rng.normal(size=(4, N_FFT))) * 0.125 / np.sqrt(2)
    xi, xq = quantise(x.real, IQ_SAMPLE), quantise(x.imag, IQ_SAMPLE)
    fr, fi = fft_fixed(xi, xq)
    ref = np.fft.fft(xi + 1j * xq) / 32
    # Rounding noise of 10 stages: well under 16 LSB of 2^-15, i.e. under 1 LSB of FFT_OUT.
    assert np.max(np.abs(fr + 1j * fi - ref)) < 16


def test_fixed_ofdm_demodulator_tracks_float(rng: np.random.Generator) -> None:
    _, grid = _random_grid(rng, subframe=5)
    tx = ofdm_modulate(grid) * 0.125 / 0.77
    si, sq = quantise(tx.real, IQ_SAMPLE), quantise(tx.imag, IQ_SAMPLE)
    gi, gq = ofdm_demodulate_fixed(si, sq)
    ref = ofdm_demodulate(to_real(si, IQ_SAMPLE) + 1j * to_real(sq, IQ_SAMPLE))
    err = np.abs(to_real(gi, FFT_OUT) + 1j * to_real(gq, FFT_OUT) - ref)
    assert err.max() <= 1.5 * FFT_OUT.lsb
    assert gi.shape == (14, N_SC)
