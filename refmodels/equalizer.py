"""Single-antenna one-tap equalisation of PDSCH REs: zero forcing and MMSE (receiver for the
TS 36.211 6.3.5 / 6.12 transmission; no clause prescribes the receiver).

ZF:   x = Y conj(H) / |H|^2,          post-equaliser noise N0_eff = N0 / |H|^2 (unbiased).
MMSE: x = Y conj(H) / (|H|^2 + N0),   reported N0_eff = N0 / (|H|^2 + N0) (its MSE; the output
      keeps the MMSE bias |H|^2/(|H|^2+N0), which the demapper does not undo).
The demapper takes 1/N0_eff per RE.

Bit-true fixed point: numerator Y conj(H) and |H|^2 are exact integers (FFT_OUT x CHAN_EST
units); x = round_half_up(num 2^12 / den) (exact integer division) saturated to EQ_OUT (Q3.12);
1/N0_eff = round_half_up(2^8 den / N0) saturated to NOISE_SCALE (Q7.8).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from silicon_agent.refmodels.fixed_point import EQ_OUT, NOISE_SCALE, saturate

Method = Literal["zf", "mmse"]


def equalize(
    y: np.ndarray, h: np.ndarray, n0: float, method: Method = "zf"
) -> tuple[np.ndarray, np.ndarray]:
    """Float model: (symbols, 1/N0_eff) for received REs y and channel estimates h (receiver for TS
    36.211 6.3.5 / 6.12)."""
    p = np.abs(h) ** 2
    den = p if method == "zf" else p + n0
    den = np.maximum(den, 1e-30)
    return y * np.conj(h) / den, den / n0


def _div_round(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """round_half_up(num / den) for int64 arrays, den > 0 (receiver for TS 36.211 6.3.5)."""
    return np.floor_divide(2 * num + den, 2 * den)


def equalize_fixed(
    yi: np.ndarray, yq: np.ndarray, hi: np.ndarray, hq: np.ndarray, n0: int, method: Method = "zf"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bit-true model: FFT_OUT Y, CHAN_EST H, N0 raw -> EQ_OUT (I, Q) and NOISE_SCALE raw (receiver
    for TS 36.211 6.3.5 / 6.12)."""
    yi, yq, hi, hq = (np.asarray(a, np.int64) for a in (yi, yq, hi, hq))
    num_i = yi * hi + yq * hq
    num_q = yq * hi - yi * hq
    p = hi * hi + hq * hq
    den = np.maximum(p if method == "zf" else p + n0, 1)
    xi = saturate(_div_round(num_i << EQ_OUT.frac, den), EQ_OUT.width)
    xq = saturate(_div_round(num_q << EQ_OUT.frac, den), EQ_OUT.width)
    scale = saturate(_div_round(den << NOISE_SCALE.frac, np.int64(max(n0, 1))), NOISE_SCALE.width)
    return xi, xq, scale
