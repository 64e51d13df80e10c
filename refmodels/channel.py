"""Propagation channels: AWGN, the TS 36.101 Annex B.2 EPA/EVA/ETU multipath profiles with
classical (Jakes) Doppler, and a carrier frequency offset.

Taps off the 15.36 Msps grid are realised as windowed-sinc fractional delays; each tap fades
with a sum-of-sinusoids Rayleigh process (Zheng-Xiao style, random phases and angles) evaluated
at every sample.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from silicon_agent.refmodels.cell_config import SAMPLE_RATE

Profile = Literal["awgn", "epa", "eva", "etu"]

# TS 36.101 Tables B.2.1-2..4: (excess delay ns, relative power dB).
PROFILES: dict[str, tuple[tuple[float, float], ...]] = {
    "epa": ((0, 0.0), (30, -1.0), (70, -2.0), (90, -3.0), (110, -8.0), (190, -17.2), (410, -20.8)),
    "eva": (
        (0, 0.0),
        (30, -1.5),
        (150, -1.4),
        (310, -3.6),
        (370, -0.6),
        (710, -9.1),
        (1090, -7.0),
        (1730, -12.0),
        (2510, -16.9),
    ),
    "etu": (
        (0, -1.0),
        (50, -1.0),
        (120, -1.0),
        (200, 0.0),
        (230, 0.0),
        (500, 0.0),
        (1600, -3.0),
        (2300, -5.0),
        (5000, -7.0),
    ),
}
PRECURSOR = 8  # samples of sinc kept before each tap
N_SINUSOIDS = 16


def awgn(x: np.ndarray, n0: float, rng: np.random.Generator) -> np.ndarray:
    """Add complex white Gaussian noise of variance n0 per sample (TS 36.101 B.2 test
    conditions)."""
    noise = rng.normal(size=x.shape) + 1j * rng.normal(size=x.shape)
    return x + np.sqrt(n0 / 2) * noise


def rayleigh_gains_at(t: np.ndarray, doppler_hz: float, rng: np.random.Generator) -> np.ndarray:
    """Unit-power Rayleigh fading at times t (sum of sinusoids with a Jakes spectrum) (TS 36.101
    B.2.1 classical Doppler)."""
    m = np.arange(1, N_SINUSOIDS + 1)
    theta = rng.uniform(-np.pi, np.pi)
    alpha = (2 * np.pi * m - np.pi + theta) / (4 * N_SINUSOIDS)
    phi = rng.uniform(-np.pi, np.pi, N_SINUSOIDS)
    psi = rng.uniform(-np.pi, np.pi, N_SINUSOIDS)
    wd = 2 * np.pi * doppler_hz
    arg_c = wd * np.outer(t, np.cos(alpha))
    arg_s = wd * np.outer(t, np.sin(alpha))
    g = np.cos(arg_c + phi).sum(axis=1) + 1j * np.sin(arg_s + psi).sum(axis=1)
    return g / np.sqrt(N_SINUSOIDS)


def rayleigh_gains(n: int, doppler_hz: float, t0: float, rng: np.random.Generator) -> np.ndarray:
    """Fading over n consecutive samples starting at time t0 (TS 36.101 B.2.1)."""
    return rayleigh_gains_at(t0 + np.arange(n) / SAMPLE_RATE, doppler_hz, rng)


def fractional_delay(frac: float) -> np.ndarray:
    """Hann-windowed sinc for a delay of ``frac`` samples; index 0 is PRECURSOR samples early (TS
    36.101 B.2.1 tap delays).

    The window is centred on the tap so the main lobe keeps unit gain.
    """
    span = np.arange(-PRECURSOR, int(np.ceil(frac)) + PRECURSOR + 1)
    u = span - frac
    win = np.where(np.abs(u) < PRECURSOR + 1, np.cos(np.pi * u / (2 * (PRECURSOR + 1))) ** 2, 0)
    return np.sinc(u) * win


def multipath(
    x: np.ndarray, profile: Profile, doppler_hz: float, rng: np.random.Generator, t0: float = 0.0
) -> np.ndarray:
    """Pass x through a TS 36.101 B.2 profile (output aligned to the first path, same length)."""
    taps = PROFILES[profile]
    pw = np.array([10 ** (p / 10) for _, p in taps])
    pw /= pw.sum()
    n = x.size
    y = np.zeros(n, np.complex128)
    for (delay_ns, _), p in zip(taps, pw, strict=True):
        h = fractional_delay(delay_ns * 1e-9 * SAMPLE_RATE)
        filt = np.convolve(x, h)[PRECURSOR : PRECURSOR + n]
        y += np.sqrt(p) * rayleigh_gains(n, doppler_hz, t0, rng) * filt
    return y


def frequency_offset(x: np.ndarray, offset_hz: float, t0: float = 0.0) -> np.ndarray:
    """Rotate by exp(j 2 pi f t) (carrier frequency offset) (TS 36.101 B.2 impairment)."""
    t = t0 + np.arange(x.size) / SAMPLE_RATE
    return x * np.exp(2j * np.pi * offset_hz * t)
