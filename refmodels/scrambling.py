"""PDSCH scrambling (TS 36.211 clause 6.3.1) with the Gold sequence of clause 7.2."""

from __future__ import annotations

import numpy as np

from silicon_agent.refmodels.gold import gold_sequence


def pdsch_c_init(n_rnti: int, n_cell_id: int, subframe: int, q: int = 0) -> int:
    """c_init = n_RNTI*2^14 + q*2^13 + floor(n_s/2)*2^9 + N_ID^cell, n_s = 2*subframe (6.3.1)."""
    return n_rnti * 2**14 + q * 2**13 + subframe * 2**9 + n_cell_id


def scramble(bits: np.ndarray, c_init: int) -> np.ndarray:
    """b~(i) = (b(i) + c(i)) mod 2 (TS 36.211 6.3.1)."""
    b = np.asarray(bits, dtype=np.uint8)
    return b ^ gold_sequence(c_init, b.size)
