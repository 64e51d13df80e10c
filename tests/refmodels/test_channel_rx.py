"""Channels (36.101 B.2), channel estimation, equalisation and the end-to-end link."""

from __future__ import annotations

import numpy as np
import pytest

from silicon_agent.refmodels.cell_config import N_SC, SAMPLE_RATE, CellConfig
from silicon_agent.refmodels.channel import (
    PROFILES,
    awgn,
    fractional_delay,
    frequency_offset,
    multipath,
    rayleigh_gains,
    rayleigh_gains_at,
)
from silicon_agent.refmodels.channel_estimator import estimate_channel, estimate_channel_fixed
from silicon_agent.refmodels.cli import main
from silicon_agent.refmodels.e2e import run_e2e
from silicon_agent.refmodels.equalizer import equalize, equalize_fixed
from silicon_agent.refmodels.fixed_point import (
    CHAN_EST,
    EQ_OUT,
    FFT_OUT,
    NOISE_SCALE,
    quantise,
    to_real,
)
from silicon_agent.refmodels.ofdm_demodulator import ofdm_demodulate
from silicon_agent.refmodels.ofdm_modulator import ofdm_modulate
from silicon_agent.refmodels.resource_grid import build_subframe, pdsch_capacity


def test_profiles_match_36101() -> None:
    assert len(PROFILES["epa"]) == 7 and PROFILES["epa"][-1] == (410, -20.8)
    assert len(PROFILES["eva"]) == 9 and PROFILES["eva"][-1] == (2510, -16.9)
    assert PROFILES["etu"][-1] == (5000, -7.0)


def test_rayleigh_statistics() -> None:
    rng = np.random.default_rng(5)
    fd = 70.0
    tau = 0.383 / fd  # first zero of J0(2 pi fd tau)
    g = np.array([rayleigh_gains_at(np.array([0.0, tau]), fd, rng) for _ in range(2000)])
    assert np.isclose(np.mean(np.abs(g[:, 0]) ** 2), 1.0, rtol=0.1)
    assert abs(np.mean(g[:, 0] * np.conj(g[:, 1]))) < 0.1
    g0 = np.array([rayleigh_gains(2, fd, 0.0, rng) for _ in range(500)])
    assert abs(np.mean(g0[:, 0] * np.conj(g0[:, 1]))) > 0.9


def _band_limited_noise(n: int, rng: np.random.Generator) -> np.ndarray:
    spec = rng.normal(size=n) + 1j * rng.normal(size=n)
    f = np.fft.fftfreq(n)
    spec[np.abs(f) > 300 / 1024] = 0  # the occupied 600 subcarriers of 1024
    x = np.fft.ifft(spec)
    return x / np.sqrt(np.mean(np.abs(x) ** 2))


def test_multipath_average_power_and_cfo() -> None:
    rng = np.random.default_rng(6)
    f = np.linspace(-300 / 1024, 300 / 1024, 101)
    for frac in (0.0, 0.46, 2.5, 38.6):
        h = fractional_delay(frac)
        resp = np.abs(np.exp(-2j * np.pi * np.outer(f, np.arange(h.size))) @ h)
        assert np.max(np.abs(20 * np.log10(resp))) < 0.1  # flat over the occupied band
    x = _band_limited_noise(2048, rng)
    p = np.mean([np.mean(np.abs(multipath(x, "eva", 5.0, rng)) ** 2) for _ in range(150)])
    assert np.isclose(p, 1.0, rtol=0.15)
    y = frequency_offset(np.ones(16), 1000.0)
    assert np.isclose(np.angle(y[1] / y[0]), 2 * np.pi * 1000 / SAMPLE_RATE)


def _flat_link(h: complex, n0: float, rng: np.random.Generator, subframe: int = 1):
    cell = CellConfig(n_cell_id=7, cfi=2, subframe=subframe)
    prbs = np.arange(50)
    n = pdsch_capacity(cell, prbs, 2) // 2
    sym = ((1 - 2 * rng.integers(0, 2, n)) + 1j * (1 - 2 * rng.integers(0, 2, n))) / np.sqrt(2)
    grid = build_subframe(cell, prbs, sym, rng)
    rx = awgn(ofdm_modulate(grid) * h, n0, rng)
    return cell, grid, rx


def test_channel_estimate_and_noise_estimate() -> None:
    rng = np.random.default_rng(7)
    h = 0.8 * np.exp(0.6j)
    cell, grid, rx = _flat_link(h, 0.01, rng)
    y = ofdm_demodulate(rx)
    est, n0 = estimate_channel(y, cell)
    used = np.abs(grid) > 0
    true_h = np.where(used, y / np.where(used, grid, 1), 0)
    mse = np.mean(np.abs(est[used] - true_h[used]) ** 2)
    assert mse < 0.02  # single pilots carry N0 = 0.01 of noise, interpolation averages none
    assert np.isclose(n0, 0.01, rtol=0.15)


def test_fixed_channel_estimator_tracks_float() -> None:
    rng = np.random.default_rng(8)
    cell, _, rx = _flat_link(0.5 - 0.3j, 0.001, rng)
    rx = rx * 0.16
    y = ofdm_demodulate(rx)
    gi, gq = quantise(y.real, FFT_OUT), quantise(y.imag, FFT_OUT)
    hi, hq, n0_raw = estimate_channel_fixed(gi, gq, cell)
    ref, n0 = estimate_channel(to_real(gi, FFT_OUT) + 1j * to_real(gq, FFT_OUT), cell)
    err = np.abs(to_real(hi, CHAN_EST) + 1j * to_real(hq, CHAN_EST) - ref)
    assert err.max() <= 2 * CHAN_EST.lsb  # two roundings (LS, interpolation) per axis
    assert np.isclose(n0_raw / 2 ** (2 * FFT_OUT.frac), n0, rtol=0.02)


@pytest.mark.parametrize("method", ["zf", "mmse"])
def test_equalizer_float_and_fixed(method: str) -> None:
    rng = np.random.default_rng(9)
    n = 5000
    s = ((1 - 2 * rng.integers(0, 2, n)) + 1j * (1 - 2 * rng.integers(0, 2, n))) / np.sqrt(2)
    h = (rng.normal(size=n) + 1j * rng.normal(size=n)) * 0.1
    n0 = 1e-4
    y = awgn(h * s, n0, rng)
    x, inv = equalize(y, h, n0, method)  # type: ignore[arg-type]
    if method == "zf":
        np.testing.assert_allclose(x, y / h)
        np.testing.assert_allclose(inv, np.abs(h) ** 2 / n0)
    yi, yq = quantise(y.real, FFT_OUT), quantise(y.imag, FFT_OUT)
    hi, hq = quantise(h.real, CHAN_EST), quantise(h.imag, CHAN_EST)
    n0_raw = round(n0 * 2 ** (2 * FFT_OUT.frac))
    xi, xq, sc = equalize_fixed(yi, yq, hi, hq, n0_raw, method)  # type: ignore[arg-type]
    xr, xref_inv = equalize(
        to_real(yi, FFT_OUT) + 1j * to_real(yq, FFT_OUT),
        to_real(hi, CHAN_EST) + 1j * to_real(hq, CHAN_EST),
        n0_raw / 2 ** (2 * FFT_OUT.frac),
        method,
    )  # type: ignore[arg-type]
    ok = np.abs(xr) < 7.9  # unsaturated outputs: exact rounded division -> within 1/2 LSB
    fx = to_real(xi, EQ_OUT) + 1j * to_real(xq, EQ_OUT)
    assert np.max(np.abs(fx - xr)[ok]) <= 0.71 * EQ_OUT.lsb
    ok_s = xref_inv < 127.9
    assert np.max(np.abs(to_real(sc, NOISE_SCALE) - xref_inv)[ok_s]) <= 0.5 * NOISE_SCALE.lsb


def test_mmse_has_lower_mse_than_zf() -> None:
    rng = np.random.default_rng(10)
    n = 20000
    s = ((1 - 2 * rng.integers(0, 2, n)) + 1j * (1 - 2 * rng.integers(0, 2, n))) / np.sqrt(2)
    h = (rng.normal(size=n) + 1j * rng.normal(size=n)) / np.sqrt(2)
    y = awgn(h * s, 0.3, rng)
    mse = {m: np.mean(np.abs(equalize(y, h, 0.3, m)[0] - s) ** 2) for m in ("zf", "mmse")}
    assert mse["mmse"] < mse["zf"]


@pytest.mark.parametrize("rc", ["R.2", "R.31-1"])
@pytest.mark.parametrize("fixed", [False, True])
@pytest.mark.parametrize("subframe", [0, 1])
def test_e2e_awgn_20db(rc: str, fixed: bool, subframe: int) -> None:
    rep = run_e2e(rc, 20.0, "awgn", fixed=fixed, subframe=subframe, seed=1)
    assert rep.crc_ok and all(rep.cb_crc_ok)
    assert rep.ber_post_fec == 0.0
    assert rep.code_blocks == (1 if rc == "R.2" else 2)


@pytest.mark.slow
@pytest.mark.parametrize(("rc", "snr"), [("R.2", 10.0), ("R.31-1", 25.0)])
@pytest.mark.parametrize("fixed", [False, True])
def test_e2e_epa5(rc: str, snr: float, fixed: bool) -> None:
    for seed in range(3):
        rep = run_e2e(rc, snr, "epa", fixed=fixed, seed=seed, doppler_hz=5.0)
        assert rep.crc_ok, (seed, rep)


def test_e2e_low_snr_fails_and_cli_exit_code() -> None:
    rep = run_e2e("R.31-1", 0.0, "awgn", seed=2, max_iters=2)
    assert not rep.crc_ok and rep.ber_pre_fec > 0.1
    assert main(["e2e", "--rc", "R.2", "--snr", "20", "--channel", "awgn", "--fixed"]) == 0
    assert main(["e2e", "--rc", "R.2", "--snr", "-10", "--channel", "awgn", "--iters", "1"]) == 1


def test_e2e_with_cfo_and_eva() -> None:
    rep = run_e2e("R.2", 25.0, "eva", seed=3, doppler_hz=70.0, cfo_hz=50.0)
    assert rep.crc_ok
    assert N_SC == 600
