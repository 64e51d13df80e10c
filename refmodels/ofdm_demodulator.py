"""OFDM demodulator: CP removal and 1024-point FFT (inverse of TS 36.211 6.12).

The FFT window starts ``FFT_ADVANCE`` samples before the end of each CP so that the precursor
of band-limited channel taps stays inside the CP; the resulting linear phase is part of the
channel the estimator sees.

Output scaling (float and fixed): FFT(x) / 32, i.e. the unnormalised DFT with five halvings.
Bit-true fixed point: radix-2 decimation-in-time, 10 stages; twiddles round(2^15 e^{-j..})
saturated to 16 bits; complex products rounded half up at 2^-15; a rounding halving
``(a +- t + 1) >> 1`` on the odd stages (1, 3, 5, 7, 9); IQ_SAMPLE (Q0.15) in, the final
2^-15-unit result rounded by 4 bits and saturated to FFT_OUT (Q4.11).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from silicon_agent.refmodels.cell_config import N_FFT, N_SYMB_SF, N_SYMB_SLOT, cp_length
from silicon_agent.refmodels.fixed_point import FFT_OUT, IQ_SAMPLE, saturate, shift_round
from silicon_agent.refmodels.ofdm_modulator import bins_to_grid

FFT_ADVANCE = 4
FFT_SCALE = 32
STAGES = 10
SCALED_STAGES = (1, 3, 5, 7, 9)


def symbol_starts() -> list[int]:
    """Sample index of each symbol's FFT window within the subframe (CP lengths of TS 36.211
    6.12)."""
    starts = []
    pos = 0
    for sym in range(N_SYMB_SF):
        cp = cp_length(sym % N_SYMB_SLOT)
        starts.append(pos + cp - FFT_ADVANCE)
        pos += cp + N_FFT
    return starts


def ofdm_demodulate(samples: np.ndarray) -> np.ndarray:
    """Float model: (14, 600) grid = FFT(window)/32 for one subframe of 15360 samples (inverse of TS
    36.211 6.12)."""
    x = np.asarray(samples)
    rows = [np.fft.fft(x[s : s + N_FFT]) / FFT_SCALE for s in symbol_starts()]
    return bins_to_grid(np.array(rows))


@cache
def _twiddles(half: int) -> tuple[np.ndarray, np.ndarray]:
    """Twiddles (inverse of TS 36.211 6.12)."""
    w = np.exp(-2j * np.pi * np.arange(half) / (2 * half))
    lim = (1 << 15) - 1
    wr = np.clip(np.floor(w.real * (1 << 15) + 0.5), -lim, lim).astype(np.int64)
    wi = np.clip(np.floor(w.imag * (1 << 15) + 0.5), -lim, lim).astype(np.int64)
    return wr, wi


@cache
def _bitrev(n: int) -> np.ndarray:
    """Bitrev (inverse of TS 36.211 6.12)."""
    bits = n.bit_length() - 1
    idx = np.arange(n)
    rev = np.zeros(n, np.int64)
    for b in range(bits):
        rev |= ((idx >> b) & 1) << (bits - 1 - b)
    return rev


def fft_fixed(re: np.ndarray, im: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bit-true radix-2 DIT FFT of int arrays (..., 1024) in IQ_SAMPLE units; result = DFT/32
    (inverse of TS 36.211 6.12)
    in the same 2^-15 units (see module doc for the rounding)."""
    r = np.asarray(re, np.int64)[..., _bitrev(N_FFT)]
    i = np.asarray(im, np.int64)[..., _bitrev(N_FFT)]
    lead = r.shape[:-1]
    for s in range(STAGES):
        half = 1 << s
        wr, wi = _twiddles(half)
        r = r.reshape(*lead, N_FFT // (2 * half), 2, half)
        i = i.reshape(*lead, N_FFT // (2 * half), 2, half)
        ar, ai = r[..., 0, :], i[..., 0, :]
        br, bi = r[..., 1, :], i[..., 1, :]
        tr = (br * wr - bi * wi + (1 << 14)) >> 15
        ti = (br * wi + bi * wr + (1 << 14)) >> 15
        if s in SCALED_STAGES:
            top_r, top_i = (ar + tr + 1) >> 1, (ai + ti + 1) >> 1
            bot_r, bot_i = (ar - tr + 1) >> 1, (ai - ti + 1) >> 1
        else:
            top_r, top_i, bot_r, bot_i = ar + tr, ai + ti, ar - tr, ai - ti
        r = np.stack([top_r, bot_r], axis=-2).reshape(*lead, N_FFT)
        i = np.stack([top_i, bot_i], axis=-2).reshape(*lead, N_FFT)
    return r, i


def ofdm_demodulate_fixed(i_raw: np.ndarray, q_raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bit-true model: IQ_SAMPLE raw (15360,) -> FFT_OUT raw (14, 600) I and Q grids (inverse of TS
    36.211 6.12)."""
    starts = symbol_starts()
    win_i = np.stack([np.asarray(i_raw)[s : s + N_FFT] for s in starts])
    win_q = np.stack([np.asarray(q_raw)[s : s + N_FFT] for s in starts])
    fr, fi = fft_fixed(win_i, win_q)
    shift = IQ_SAMPLE.frac - FFT_OUT.frac
    gr = saturate(shift_round(bins_to_grid(fr), shift), FFT_OUT.width)
    gi = saturate(shift_round(bins_to_grid(fi), shift), FFT_OUT.width)
    return gr, gi
