"""Length-31 Gold pseudo-random sequence c(n) (TS 36.211 clause 7.2)."""

from __future__ import annotations

import numpy as np

_NC = 1600
# The recurrences reach back 31 and forward at most 3, so 28 new values depend only on old ones.
_STEP = 28


def _m_sequence(init: np.ndarray, taps: tuple[int, ...], length: int) -> np.ndarray:
    """M sequence (x1/x2 recursions of TS 36.211 7.2)."""
    x = np.zeros(length + 31, dtype=np.uint8)
    x[:31] = init
    n = 0
    while n < length:
        m = min(_STEP, length - n)
        acc = np.zeros(m, dtype=np.uint8)
        for t in taps:
            acc ^= x[n + t : n + t + m]
        x[n + 31 : n + 31 + m] = acc
        n += m
    return x[:length]


def gold_sequence(c_init: int, length: int) -> np.ndarray:
    """c(n), n = 0..length-1, of TS 36.211 7.2 with N_C = 1600 and x2 initialised by c_init."""
    if not 0 <= c_init < 2**31:
        raise ValueError("c_init must fit in 31 bits")
    x1_init = np.zeros(31, dtype=np.uint8)
    x1_init[0] = 1
    x2_init = ((c_init >> np.arange(31)) & 1).astype(np.uint8)
    total = length + _NC
    x1 = _m_sequence(x1_init, (0, 3), total)
    x2 = _m_sequence(x2_init, (0, 1, 2, 3), total)
    return x1[_NC:] ^ x2[_NC:]
