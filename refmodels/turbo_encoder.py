"""LTE turbo encoder: PCCC of two 8-state RSC codes, QPP interleaver, trellis termination
(TS 36.212 clause 5.1.3.2)."""

from __future__ import annotations

import numba
import numpy as np

from silicon_agent.refmodels.qpp_table import qpp_permutation


@numba.njit(cache=True)
def _rsc_encode(c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One constituent encoder, G = [1, g1/g0] with g0 = 1+D^2+D^3, g1 = 1+D+D^3 (TS 36.212
    5.1.3.2.1)."""
    k = c.size
    z = np.zeros(k, np.uint8)
    s1 = 0
    s2 = 0
    s3 = 0
    for i in range(k):
        a = c[i] ^ s2 ^ s3
        z[i] = a ^ s1 ^ s3
        s3 = s2
        s2 = s1
        s1 = a
    # Termination: the input equals the feedback so the register clears in three steps.
    xt = np.zeros(3, np.uint8)
    zt = np.zeros(3, np.uint8)
    for i in range(3):
        x = s2 ^ s3
        xt[i] = x
        zt[i] = s1 ^ s3
        s3 = s2
        s2 = s1
        s1 = 0
    return z, xt, zt


def turbo_encode(c: np.ndarray) -> np.ndarray:
    """Encode c_0..c_{K-1} into d^(0), d^(1), d^(2), each K+4 long (TS 36.212 5.1.3.2).

    Returns a (3, K+4) uint8 array.  Filler bits (if any) are encoded as zeros; the caller knows
    their positions (d^(0), d^(1) at k < F are <NULL>, 5.1.3.2).
    """
    c = np.asarray(c, dtype=np.uint8)
    k = c.size
    z, xt, zt = _rsc_encode(c)
    c_int = c[qpp_permutation(k)]
    z2, xt2, zt2 = _rsc_encode(c_int)
    d = np.zeros((3, k + 4), np.uint8)
    d[0, :k] = c
    d[1, :k] = z
    d[2, :k] = z2
    # Tail bits, 5.1.3.2.2: x_K, z_{K+1}, x'_K, z'_{K+1} / z_K, x_{K+2}, z'_K, x'_{K+2} / ...
    d[0, k:] = (xt[0], zt[1], xt2[0], zt2[1])
    d[1, k:] = (zt[0], xt[2], zt2[0], xt2[2])
    d[2, k:] = (xt[1], zt[2], xt2[1], zt2[2])
    return d
