"""OFDM baseband signal generation, normal CP, 1024-point IFFT at 15.36 Msps (TS 36.211 6.12).

Scaling: orthonormal IFFT, so a unit-power RE gives unit energy per FFT bin and the per-RE SNR
equals 1 / (time-domain noise variance).
"""

from __future__ import annotations

import numpy as np

from silicon_agent.refmodels.cell_config import N_FFT, N_SC, N_SYMB_SF, N_SYMB_SLOT, cp_length


def grid_to_bins(symbol: np.ndarray) -> np.ndarray:
    """Map 600 subcarriers k to FFT bins: k < 300 -> negative frequencies, DC unused (6.12)."""
    bins = np.zeros(N_FFT, np.complex128)
    half = N_SC // 2
    bins[1 : half + 1] = symbol[half:]
    bins[N_FFT - half :] = symbol[:half]
    return bins


def bins_to_grid(bins: np.ndarray) -> np.ndarray:
    """Inverse of ``grid_to_bins`` along the last axis (TS 36.211 6.12)."""
    half = N_SC // 2
    return np.concatenate([bins[..., N_FFT - half :], bins[..., 1 : half + 1]], axis=-1)


def ofdm_modulate(grid: np.ndarray) -> np.ndarray:
    """15360 time samples of one subframe from its (14, 600) grid (6.12)."""
    out = []
    for sym in range(N_SYMB_SF):
        t = np.fft.ifft(grid_to_bins(grid[sym])) * np.sqrt(N_FFT)
        cp = cp_length(sym % N_SYMB_SLOT)
        out.append(np.concatenate([t[-cp:], t]))
    return np.concatenate(out)
