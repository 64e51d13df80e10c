"""PDSCH descrambling of soft bits (inverse of TS 36.211 clause 6.3.1): the LLR sign flips
where the Gold sequence c(i) of clause 7.2 is 1."""

from __future__ import annotations

import numpy as np

from silicon_agent.refmodels.gold import gold_sequence


def descramble(llr: np.ndarray, c_init: int) -> np.ndarray:
    """Float or raw-integer LLRs -> descrambled LLRs (6.3.1); exact for symmetric saturation."""
    x = np.asarray(llr)
    c = gold_sequence(c_init, x.size)
    return np.where(c == 1, -x, x)
