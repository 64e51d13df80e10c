"""PDSCH descrambling of soft bits (inverse of TS 36.211 clause 6.3.1): the LLR sign flips
where the Gold sequence c(i) of clause 7.2 is 1."""

from __future__ import annotations

import numpy as np

from silicon_agent.refmodels.fixed_point import LLR
from silicon_agent.refmodels.gold import gold_sequence


def descramble(llr: np.ndarray, c_init: int) -> np.ndarray:
    """Float or raw-integer LLRs -> descrambled LLRs (6.3.1); exact for symmetric saturation."""
    x = np.asarray(llr)
    c = gold_sequence(c_init, x.size)
    return np.where(c == 1, -x, x)


def descramble_fixed(llr: np.ndarray, c_init: int) -> np.ndarray:
    """Raw LLR words -> descrambled words (6.3.1) as the RTL computes them: the negation
    saturates, so an input of -128 (a code the LLR format never produces) leaves as +127."""
    x = np.asarray(llr, dtype=np.int64)
    return np.minimum(descramble(x, c_init), LLR.max_raw)
