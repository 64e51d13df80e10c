"""Rate dematching (inverse of TS 36.212 clause 5.1.4.1): soft combining of repeated bits,
zero LLR for punctured and <NULL> positions, optional HARQ combining into a soft buffer.

Bit-true integer variant: accumulation in e-order with saturation to the LLR word after every
add, as a sequential RTL accumulator does.
"""

from __future__ import annotations

import numba
import numpy as np

from silicon_agent.refmodels.fixed_point import LLR
from silicon_agent.refmodels.rate_matching import selection_indices


def rate_dematch(
    e_llr: np.ndarray, k: int, f: int, rv: int, ncb: int, soft_buffer: np.ndarray | None = None
) -> np.ndarray:
    """Float soft d-streams (3, K+4) from E received LLRs of one code block (5.1.4.1)."""
    e = np.asarray(e_llr, dtype=np.float64)
    idx = selection_indices(k, f, e.size, rv, ncb)
    out = (
        np.zeros(3 * (k + 4))
        if soft_buffer is None
        else np.asarray(soft_buffer, dtype=np.float64).reshape(-1).copy()
    )
    np.add.at(out, idx, e)
    return out.reshape(3, k + 4)


@numba.njit(cache=True)
def _accumulate_sat(out: np.ndarray, idx: np.ndarray, e: np.ndarray, lim: int) -> None:
    """Accumulate sat (inverse of TS 36.212 5.1.4.1.2)."""
    for i in range(idx.size):
        v = out[idx[i]] + e[i]
        if v > lim:
            v = lim
        elif v < -lim:
            v = -lim
        out[idx[i]] = v


def rate_dematch_fixed(
    e_raw: np.ndarray, k: int, f: int, rv: int, ncb: int, soft_buffer: np.ndarray | None = None
) -> np.ndarray:
    """Bit-true integer dematcher: LLR raw in, LLR raw (3, K+4) out, saturating accumulate (inverse
    of TS 36.212 5.1.4.1)."""
    e = np.asarray(e_raw, dtype=np.int64)
    idx = selection_indices(k, f, e.size, rv, ncb)
    out = (
        np.zeros(3 * (k + 4), np.int64)
        if soft_buffer is None
        else np.asarray(soft_buffer, dtype=np.int64).reshape(-1).copy()
    )
    _accumulate_sat(out, np.ascontiguousarray(idx), e, LLR.max_raw)
    return out.reshape(3, k + 4)
