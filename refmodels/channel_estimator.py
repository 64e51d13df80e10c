"""CRS-based channel estimation for antenna port 0 (pilots of TS 36.211 6.10.1): least squares
at the pilots, linear interpolation in frequency, then linear interpolation in time between the
CRS symbols (held constant after the last one), and a noise variance estimate.

Noise estimate: CRS symbols l = 0 / 7 and 4 / 11 share subcarriers, so at low Doppler
N0 = mean |H_ls(l) - H_ls(l+7)|^2 / 2.

Bit-true fixed point (CHAN_EST = FFT_OUT units, Q4.11):
* LS: r = (a + jb)/sqrt2 with a, b = +-1, so H = Y conj(r) = ((Yr a + Yi b) + j(Yi a - Yr b))
  * 23170 (round(2^15/sqrt2)) rounded half up at 2^-15;
* interpolation between two points D apart at offset d: (A (D-d) + B d) * round(2^15/D)
  rounded half up at 2^-15, saturated to CHAN_EST;
* N0 (NOISE_VAR, FFT_OUT LSB^2 units): sum of |dH|^2 times round(2^20 / (2 * pairs)) >> 20.
"""

from __future__ import annotations

import itertools

import numpy as np

from silicon_agent.refmodels.cell_config import N_SC, N_SYMB_SF, N_SYMB_SLOT, CellConfig
from silicon_agent.refmodels.crs import crs_subcarriers, crs_symbols_in_subframe, crs_values
from silicon_agent.refmodels.fixed_point import CHAN_EST, NOISE_VAR, saturate, shift_round

INV_SQRT2_Q15 = 23170


def _pilot_ls(grid: np.ndarray, cell: CellConfig) -> dict[int, np.ndarray]:
    """Pilot ls (LS at the CRS of TS 36.211 6.10.1)."""
    out = {}
    for sym in crs_symbols_in_subframe():
        k = crs_subcarriers(sym % N_SYMB_SLOT, cell.n_cell_id)
        out[sym] = grid[sym, k] * np.conj(crs_values(cell.subframe, sym, cell.n_cell_id))
    return out


def _time_weights(sym: int) -> tuple[int, int, int, int]:
    """(sym_a, sym_b, D, d) for the linear time interpolation of ``sym`` (CRS symbols of TS 36.211
    6.10.1.2)."""
    crs = crs_symbols_in_subframe()
    if sym <= crs[0]:
        return crs[0], crs[0], 1, 0
    if sym >= crs[-1]:
        return crs[-1], crs[-1], 1, 0
    for a, b in itertools.pairwise(crs):
        if a <= sym <= b:
            return a, b, b - a, sym - a
    raise AssertionError


def _freq_interp_float(h: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Freq interp float (CRS spacing of TS 36.211 6.10.1.2)."""
    allk = np.arange(N_SC)
    return np.interp(allk, k, h.real) + 1j * np.interp(allk, k, h.imag)


def estimate_channel(grid: np.ndarray, cell: CellConfig) -> tuple[np.ndarray, float]:
    """Float model: (14, 600) channel estimate and the noise variance N0 per RE (pilots of TS 36.211
    6.10.1)."""
    ls = _pilot_ls(grid, cell)
    freq = {
        sym: _freq_interp_float(h, crs_subcarriers(sym % N_SYMB_SLOT, cell.n_cell_id))
        for sym, h in ls.items()
    }
    est = np.empty((N_SYMB_SF, N_SC), np.complex128)
    for sym in range(N_SYMB_SF):
        a, b, dd, d = _time_weights(sym)
        est[sym] = (freq[a] * (dd - d) + freq[b] * d) / dd
    crs = crs_symbols_in_subframe()
    diffs = np.concatenate([ls[crs[0]] - ls[crs[2]], ls[crs[1]] - ls[crs[3]]])
    n0 = float(np.mean(np.abs(diffs) ** 2) / 2)
    return est, n0


def _interp_fixed(a: np.ndarray, b: np.ndarray, dd: int, d: int) -> np.ndarray:
    """Interp fixed (CRS interpolation, TS 36.211 6.10.1.2 grid)."""
    recip = int(np.floor((1 << 15) / dd + 0.5))
    return shift_round((a * (dd - d) + b * d) * recip, 15)


def _freq_interp_fixed(h: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Freq interp fixed (CRS spacing of TS 36.211 6.10.1.2)."""
    out = np.empty(N_SC, np.int64)
    out[: k[0] + 1] = h[0]  # hold below the first pilot
    out[k[-1] :] = h[-1]  # and above the last
    step = int(k[1] - k[0])
    for d in range(1, step):
        out[k[:-1] + d] = _interp_fixed(h[:-1], h[1:], step, d)
    out[k] = h
    return out


def estimate_channel_fixed(
    gi: np.ndarray, gq: np.ndarray, cell: CellConfig
) -> tuple[np.ndarray, np.ndarray, int]:
    """Bit-true model: FFT_OUT raw grids -> CHAN_EST raw (I, Q) grids and N0 raw (pilots of TS
    36.211 6.10.1)."""
    crs = crs_symbols_in_subframe()
    ls_i: dict[int, np.ndarray] = {}
    ls_q: dict[int, np.ndarray] = {}
    for sym in crs:
        k = crs_subcarriers(sym % N_SYMB_SLOT, cell.n_cell_id)
        r = crs_values(cell.subframe, sym, cell.n_cell_id)
        a = np.where(r.real > 0, 1, -1)
        b = np.where(r.imag > 0, 1, -1)
        yr = np.asarray(gi, np.int64)[sym, k]
        yi = np.asarray(gq, np.int64)[sym, k]
        ls_i[sym] = shift_round((yr * a + yi * b) * INV_SQRT2_Q15, 15)
        ls_q[sym] = shift_round((yi * a - yr * b) * INV_SQRT2_Q15, 15)
    fi = {
        s: _freq_interp_fixed(ls_i[s], crs_subcarriers(s % N_SYMB_SLOT, cell.n_cell_id))
        for s in crs
    }
    fq = {
        s: _freq_interp_fixed(ls_q[s], crs_subcarriers(s % N_SYMB_SLOT, cell.n_cell_id))
        for s in crs
    }
    hi = np.empty((N_SYMB_SF, N_SC), np.int64)
    hq = np.empty((N_SYMB_SF, N_SC), np.int64)
    for sym in range(N_SYMB_SF):
        a, b, dd, d = _time_weights(sym)
        hi[sym] = _interp_fixed(fi[a], fi[b], dd, d)
        hq[sym] = _interp_fixed(fq[a], fq[b], dd, d)
    di = np.concatenate([ls_i[crs[0]] - ls_i[crs[2]], ls_i[crs[1]] - ls_i[crs[3]]])
    dq = np.concatenate([ls_q[crs[0]] - ls_q[crs[2]], ls_q[crs[1]] - ls_q[crs[3]]])
    pairs = di.size
    recip = int(np.floor((1 << 20) / (2 * pairs) + 0.5))
    n0 = int(shift_round(np.array(int(np.sum(di * di + dq * dq)) * recip), 20))
    n0 = min(max(n0, 1), NOISE_VAR.max_raw)
    return saturate(hi, CHAN_EST.width), saturate(hq, CHAN_EST.width), n0
