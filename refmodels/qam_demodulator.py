"""Max-log soft demapper for the QPSK/16QAM/64QAM constellations of TS 36.211 clause 7.1.

LLR_i = (min_{s: b_i=0} |y-s|^2 - min_{s: b_i=1} |y-s|^2) / N0, positive = bit 1, where N0 is
the per-symbol (complex) noise variance after equalisation.  The constellations are separable
Gray PAMs per axis (I carries b0, b2, b4; Q carries b1, b3, b5), so each bit needs only the
distances on its own axis.
"""

from __future__ import annotations

import numpy as np

from silicon_agent.refmodels.fixed_point import (
    EQ_OUT,
    LLR,
    NOISE_SCALE,
    round_half_up,
    saturate,
    shift_round,
)
from silicon_agent.refmodels.modulation import BITS_PER_SYMBOL, Modulation, norm_factor, pam_levels

# LLR_raw = D_raw * scale_raw / 2^SHIFT with D in (EQ_OUT LSB)^2 and scale in NOISE_SCALE LSBs.
FIXED_SHIFT = 2 * EQ_OUT.frac + NOISE_SCALE.frac - LLR.frac


def _axis_metric(y: np.ndarray, levels: np.ndarray, nb: int) -> np.ndarray:
    """D per axis bit: (N, nb) of min_{bit=0} (y-a)^2 - min_{bit=1} (y-a)^2 (TS 36.211 7.1
    constellations)."""
    dist = (y[:, None] - levels[None, :]) ** 2
    patt = (np.arange(levels.size)[:, None] >> np.arange(nb - 1, -1, -1)) & 1
    out = np.empty((y.size, nb), dtype=dist.dtype)
    for j in range(nb):
        d0 = dist[:, patt[:, j] == 0].min(axis=1)
        d1 = dist[:, patt[:, j] == 1].min(axis=1)
        out[:, j] = d0 - d1
    return out


def _interleave_axes(di: np.ndarray, dq: np.ndarray) -> np.ndarray:
    """Interleave axes (bit order of TS 36.211 7.1)."""
    n, nb = di.shape
    out = np.empty((n, 2 * nb), dtype=di.dtype)
    out[:, 0::2] = di
    out[:, 1::2] = dq
    return out.reshape(-1)


def demodulate(y: np.ndarray, modulation: Modulation, noise_var: float | np.ndarray) -> np.ndarray:
    """Float max-log LLRs b_0..b_{Qm*N-1} for symbols y (TS 36.211 7.1 constellations)."""
    qm = BITS_PER_SYMBOL[modulation]
    nb = qm // 2
    y = np.asarray(y, dtype=np.complex128).reshape(-1)
    levels = pam_levels(qm) / norm_factor(modulation)
    d = _interleave_axes(_axis_metric(y.real, levels, nb), _axis_metric(y.imag, levels, nb))
    n0 = np.broadcast_to(np.asarray(noise_var, dtype=np.float64), y.shape)
    return d / np.repeat(n0, qm)


def level_raw(modulation: Modulation) -> np.ndarray:
    """PAM levels in EQ_OUT raw units (what the RTL stores as constants) (TS 36.211 7.1)."""
    qm = BITS_PER_SYMBOL[modulation]
    return round_half_up(pam_levels(qm) / norm_factor(modulation) * (1 << EQ_OUT.frac))


def demodulate_fixed(
    y_i: np.ndarray, y_q: np.ndarray, modulation: Modulation, scale_raw: np.ndarray | int
) -> np.ndarray:
    """Bit-true demapper: EQ_OUT I/Q raw + NOISE_SCALE raw (1/N0) -> LLR raw (8-bit) (TS 36.211 7.1
    constellations).

    LLR_raw = sat_8(round_half_up(D_raw * scale_raw / 2^FIXED_SHIFT)), D_raw exact integer.
    """
    qm = BITS_PER_SYMBOL[modulation]
    nb = qm // 2
    lv = level_raw(modulation)
    yi = np.asarray(y_i, dtype=np.int64).reshape(-1)
    yq = np.asarray(y_q, dtype=np.int64).reshape(-1)
    d = _interleave_axes(_axis_metric(yi, lv, nb), _axis_metric(yq, lv, nb))
    sc = np.repeat(np.broadcast_to(np.asarray(scale_raw, dtype=np.int64), yi.shape), qm)
    return saturate(shift_round(d * sc, FIXED_SHIFT), LLR.width)
