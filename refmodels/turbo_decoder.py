"""Turbo decoder for the LTE PCCC (TS 36.212 clause 5.1.3.2): iterative max-log-MAP (BCJR) with
extrinsic scaling 0.75 and early stopping on the code block CRC (5.1.1 / 5.1.2).

Two kernels generated from the same trellis tables:

* float32 (``fixed=False``): state metrics normalised each trellis step, scaling 0.75;
* integer (``fixed=True``): the ``fixed_point`` formats LLR (8 b), EXTRINSIC (10 b),
  STATE_METRIC (14 b), APP_LLR (12 b); alpha/beta are normalised by subtracting state 0 and
  saturated every step, the extrinsic is saturated and scaled as ``x - (x >> 2)``.  This is the
  RTL contract: integer-exact, no sliding window (alpha stored for the whole block).  The
  integers are carried in float32 lanes (all intermediates are far below 2^24, so every add,
  max and saturation is exact) because that is the widest SIMD path numba gets from LLVM.

The kernels run a batch of code blocks at once with the batch as the innermost, contiguous
dimension so that LLVM vectorises the add-compare-select over blocks (SIMD across code blocks);
the 8-state loops are written out so the block loop body is straight-line code.
"""

from __future__ import annotations

import numba
import numpy as np
from pydantic import BaseModel, ConfigDict

from refmodels.crc import crc_check_batch
from refmodels.fixed_point import APP_LLR, EXTRINSIC, LLR, STATE_METRIC
from refmodels.qpp_table import qpp_permutation


def _trellis() -> tuple[np.ndarray, np.ndarray]:
    """Predecessor and successor tables of the 8-state RSC code of 5.1.3.2.1.

    State s = 4*s1 + 2*s2 + s3 (s1 newest).  ``pred[ns] = (s_a, c_a, s_b, c_b)`` with branch
    class c = 2*u + p; ``succ[s, u] = (ns, p)``.
    """
    succ = np.zeros((8, 2, 2), np.int64)
    preds: list[list[int]] = [[] for _ in range(8)]
    for s in range(8):
        s1, s2, s3 = (s >> 2) & 1, (s >> 1) & 1, s & 1
        for u in (0, 1):
            a = u ^ s2 ^ s3
            p = a ^ s1 ^ s3
            ns = (a << 2) | (s1 << 1) | s2
            succ[s, u] = (ns, p)
            preds[ns] += [s, 2 * u + p]
    return np.array(preds, np.int64), succ


PRED, SUCC = _trellis()
SM_MAX = STATE_METRIC.max_raw
EXT_MAX = EXTRINSIC.max_raw
APP_MAX = APP_LLR.max_raw
# Code blocks decoded together: 32 fills LLVM's vector loop (8 lanes x 4) and keeps alpha
# (K+4 x 8 x 32 float32, 6 MB at K = 6144) small enough to stream.
BATCH = 32
# float32 copies for the bit-true kernel, which carries its integers in float32.
SM_MAX_F = np.float32(SM_MAX)
EXT_MAX_F = np.float32(EXT_MAX)


@numba.njit(cache=True, inline="always")
def _clip(v, lim):
    """Symmetric saturation of an integer metric to +-lim (TS 36.212 5.1.3.2 decoder, fixed
    point)."""
    if v > lim:
        return lim
    if v < -lim:
        return -lim
    return v


@numba.njit(cache=True, fastmath=True, boundscheck=False)
def _siso_float(ls, lp, la, ls_r, lp_r, la_r, le_r, alpha, beta, cur, neg):
    """One max-log-MAP constituent decoder over a batch (TS 36.212 5.1.3.2.1).

    Arrays are (step, [state,] block).  ls, lp, la: (K+3, B) systematic, parity and a priori
    LLRs incl. tail (la is 0 on the tail); ls_r, lp_r, la_r: the same reversed in time; le_r:
    (K+3, B) extrinsic output reversed in time (tail rows unused); alpha: (K+4, 8, B); beta,
    cur: (8, B) scratch.  Branch metric gamma = u*(Ls+La) + p*Lp (g1 = Lp, g2 = Ls+La,
    g3 = both).  The state loops are written out from ``PRED``/``SUCC``; every heavy loop
    indexes rows with a ``range`` variable (hence the time-reversed copies for the backward
    pass) and state rows are copied as flat (8 B) runs: that is what lets LLVM vectorise.
    """
    n, nb = ls.shape
    af = alpha.reshape(alpha.shape[0], 8 * nb)
    cf = cur.reshape(8 * nb)
    for s in range(8):
        for b in range(nb):
            cur[s, b] = neg
            beta[s, b] = neg
    for b in range(nb):
        cur[0, b] = 0
        beta[0, b] = 0
    for s in range(8):
        for b in range(nb):
            alpha[0, s, b] = cur[s, b]
    for k in range(n):
        for b in range(nb):
            g1 = lp[k, b]
            g2 = ls[k, b] + la[k, b]
            g3 = g2 + g1
            a0 = cur[0, b]
            a1 = cur[1, b]
            a2 = cur[2, b]
            a3 = cur[3, b]
            a4 = cur[4, b]
            a5 = cur[5, b]
            a6 = cur[6, b]
            a7 = cur[7, b]
            x0 = a0
            y0 = a1 + g3
            n0 = x0 if x0 > y0 else y0
            x1 = a2 + g2
            y1 = a3 + g1
            n1 = x1 if x1 > y1 else y1
            x2 = a4 + g1
            y2 = a5 + g2
            n2 = x2 if x2 > y2 else y2
            x3 = a6 + g3
            y3 = a7
            n3 = x3 if x3 > y3 else y3
            x4 = a0 + g3
            y4 = a1
            n4 = x4 if x4 > y4 else y4
            x5 = a2 + g1
            y5 = a3 + g2
            n5 = x5 if x5 > y5 else y5
            x6 = a4 + g2
            y6 = a5 + g1
            n6 = x6 if x6 > y6 else y6
            x7 = a6
            y7 = a7 + g3
            n7 = x7 if x7 > y7 else y7
            cur[0, b] = n0 - n0
            cur[1, b] = n1 - n0
            cur[2, b] = n2 - n0
            cur[3, b] = n3 - n0
            cur[4, b] = n4 - n0
            cur[5, b] = n5 - n0
            cur[6, b] = n6 - n0
            cur[7, b] = n7 - n0
        for i in range(8 * nb):
            af[k + 1, i] = cf[i]
    for kk in range(n):
        k = n - 1 - kk
        for i in range(8 * nb):
            cf[i] = af[k, i]
        for b in range(nb):
            g1 = lp_r[kk, b]
            b0 = beta[0, b]
            b1 = beta[1, b]
            b2 = beta[2, b]
            b3 = beta[3, b]
            b4 = beta[4, b]
            b5 = beta[5, b]
            b6 = beta[6, b]
            b7 = beta[7, b]
            u0_0 = cur[0, b] + b0
            u1_0 = cur[0, b] + b4 + g1
            u0_1 = cur[1, b] + b4
            u1_1 = cur[1, b] + b0 + g1
            u0_2 = cur[2, b] + b5 + g1
            u1_2 = cur[2, b] + b1
            u0_3 = cur[3, b] + b1 + g1
            u1_3 = cur[3, b] + b5
            u0_4 = cur[4, b] + b2 + g1
            u1_4 = cur[4, b] + b6
            u0_5 = cur[5, b] + b6 + g1
            u1_5 = cur[5, b] + b2
            u0_6 = cur[6, b] + b7
            u1_6 = cur[6, b] + b3 + g1
            u0_7 = cur[7, b] + b3
            u1_7 = cur[7, b] + b7 + g1
            u0_r00 = u0_0 if u0_0 > u0_1 else u0_1
            u0_r01 = u0_2 if u0_2 > u0_3 else u0_3
            u0_r02 = u0_4 if u0_4 > u0_5 else u0_5
            u0_r03 = u0_6 if u0_6 > u0_7 else u0_7
            u0_r10 = u0_r00 if u0_r00 > u0_r01 else u0_r01
            u0_r11 = u0_r02 if u0_r02 > u0_r03 else u0_r03
            u0_r20 = u0_r10 if u0_r10 > u0_r11 else u0_r11
            u1_r00 = u1_0 if u1_0 > u1_1 else u1_1
            u1_r01 = u1_2 if u1_2 > u1_3 else u1_3
            u1_r02 = u1_4 if u1_4 > u1_5 else u1_5
            u1_r03 = u1_6 if u1_6 > u1_7 else u1_7
            u1_r10 = u1_r00 if u1_r00 > u1_r01 else u1_r01
            u1_r11 = u1_r02 if u1_r02 > u1_r03 else u1_r03
            u1_r20 = u1_r10 if u1_r10 > u1_r11 else u1_r11
            le_r[kk, b] = u1_r20 - u0_r20
        for b in range(nb):
            g1 = lp_r[kk, b]
            g2 = ls_r[kk, b] + la_r[kk, b]
            g3 = g2 + g1
            b0 = beta[0, b]
            b1 = beta[1, b]
            b2 = beta[2, b]
            b3 = beta[3, b]
            b4 = beta[4, b]
            b5 = beta[5, b]
            b6 = beta[6, b]
            b7 = beta[7, b]
            t0_0 = b0
            t1_0 = b4 + g3
            m0 = t0_0 if t0_0 > t1_0 else t1_0
            t0_1 = b4
            t1_1 = b0 + g3
            m1 = t0_1 if t0_1 > t1_1 else t1_1
            t0_2 = b5 + g1
            t1_2 = b1 + g2
            m2 = t0_2 if t0_2 > t1_2 else t1_2
            t0_3 = b1 + g1
            t1_3 = b5 + g2
            m3 = t0_3 if t0_3 > t1_3 else t1_3
            t0_4 = b2 + g1
            t1_4 = b6 + g2
            m4 = t0_4 if t0_4 > t1_4 else t1_4
            t0_5 = b6 + g1
            t1_5 = b2 + g2
            m5 = t0_5 if t0_5 > t1_5 else t1_5
            t0_6 = b7
            t1_6 = b3 + g3
            m6 = t0_6 if t0_6 > t1_6 else t1_6
            t0_7 = b3
            t1_7 = b7 + g3
            m7 = t0_7 if t0_7 > t1_7 else t1_7
            beta[0, b] = m0 - m0
            beta[1, b] = m1 - m0
            beta[2, b] = m2 - m0
            beta[3, b] = m3 - m0
            beta[4, b] = m4 - m0
            beta[5, b] = m5 - m0
            beta[6, b] = m6 - m0
            beta[7, b] = m7 - m0


@numba.njit(cache=True, fastmath=True, boundscheck=False)
def _siso_int(ls, lp, la, ls_r, lp_r, la_r, le_r, alpha, beta, cur, neg):
    """One max-log-MAP constituent decoder over a batch (TS 36.212 5.1.3.2.1).

    Arrays are (step, [state,] block).  ls, lp, la: (K+3, B) systematic, parity and a priori
    LLRs incl. tail (la is 0 on the tail); ls_r, lp_r, la_r: the same reversed in time; le_r:
    (K+3, B) extrinsic output reversed in time (tail rows unused); alpha: (K+4, 8, B); beta,
    cur: (8, B) scratch.  Branch metric gamma = u*(Ls+La) + p*Lp (g1 = Lp, g2 = Ls+La,
    g3 = both).  The state loops are written out from ``PRED``/``SUCC``; every heavy loop
    indexes rows with a ``range`` variable (hence the time-reversed copies for the backward
    pass) and state rows are copied as flat (8 B) runs: that is what lets LLVM vectorise.
    """
    n, nb = ls.shape
    af = alpha.reshape(alpha.shape[0], 8 * nb)
    cf = cur.reshape(8 * nb)
    for s in range(8):
        for b in range(nb):
            cur[s, b] = neg
            beta[s, b] = neg
    for b in range(nb):
        cur[0, b] = 0
        beta[0, b] = 0
    for s in range(8):
        for b in range(nb):
            alpha[0, s, b] = cur[s, b]
    for k in range(n):
        for b in range(nb):
            g1 = lp[k, b]
            g2 = ls[k, b] + la[k, b]
            g3 = g2 + g1
            a0 = cur[0, b]
            a1 = cur[1, b]
            a2 = cur[2, b]
            a3 = cur[3, b]
            a4 = cur[4, b]
            a5 = cur[5, b]
            a6 = cur[6, b]
            a7 = cur[7, b]
            x0 = a0
            y0 = a1 + g3
            n0 = x0 if x0 > y0 else y0
            x1 = a2 + g2
            y1 = a3 + g1
            n1 = x1 if x1 > y1 else y1
            x2 = a4 + g1
            y2 = a5 + g2
            n2 = x2 if x2 > y2 else y2
            x3 = a6 + g3
            y3 = a7
            n3 = x3 if x3 > y3 else y3
            x4 = a0 + g3
            y4 = a1
            n4 = x4 if x4 > y4 else y4
            x5 = a2 + g1
            y5 = a3 + g2
            n5 = x5 if x5 > y5 else y5
            x6 = a4 + g2
            y6 = a5 + g1
            n6 = x6 if x6 > y6 else y6
            x7 = a6
            y7 = a7 + g3
            n7 = x7 if x7 > y7 else y7
            cur[0, b] = _clip(n0 - n0, SM_MAX_F)
            cur[1, b] = _clip(n1 - n0, SM_MAX_F)
            cur[2, b] = _clip(n2 - n0, SM_MAX_F)
            cur[3, b] = _clip(n3 - n0, SM_MAX_F)
            cur[4, b] = _clip(n4 - n0, SM_MAX_F)
            cur[5, b] = _clip(n5 - n0, SM_MAX_F)
            cur[6, b] = _clip(n6 - n0, SM_MAX_F)
            cur[7, b] = _clip(n7 - n0, SM_MAX_F)
        for i in range(8 * nb):
            af[k + 1, i] = cf[i]
    for kk in range(n):
        k = n - 1 - kk
        for i in range(8 * nb):
            cf[i] = af[k, i]
        for b in range(nb):
            g1 = lp_r[kk, b]
            b0 = beta[0, b]
            b1 = beta[1, b]
            b2 = beta[2, b]
            b3 = beta[3, b]
            b4 = beta[4, b]
            b5 = beta[5, b]
            b6 = beta[6, b]
            b7 = beta[7, b]
            u0_0 = cur[0, b] + b0
            u1_0 = cur[0, b] + b4 + g1
            u0_1 = cur[1, b] + b4
            u1_1 = cur[1, b] + b0 + g1
            u0_2 = cur[2, b] + b5 + g1
            u1_2 = cur[2, b] + b1
            u0_3 = cur[3, b] + b1 + g1
            u1_3 = cur[3, b] + b5
            u0_4 = cur[4, b] + b2 + g1
            u1_4 = cur[4, b] + b6
            u0_5 = cur[5, b] + b6 + g1
            u1_5 = cur[5, b] + b2
            u0_6 = cur[6, b] + b7
            u1_6 = cur[6, b] + b3 + g1
            u0_7 = cur[7, b] + b3
            u1_7 = cur[7, b] + b7 + g1
            u0_r00 = u0_0 if u0_0 > u0_1 else u0_1
            u0_r01 = u0_2 if u0_2 > u0_3 else u0_3
            u0_r02 = u0_4 if u0_4 > u0_5 else u0_5
            u0_r03 = u0_6 if u0_6 > u0_7 else u0_7
            u0_r10 = u0_r00 if u0_r00 > u0_r01 else u0_r01
            u0_r11 = u0_r02 if u0_r02 > u0_r03 else u0_r03
            u0_r20 = u0_r10 if u0_r10 > u0_r11 else u0_r11
            u1_r00 = u1_0 if u1_0 > u1_1 else u1_1
            u1_r01 = u1_2 if u1_2 > u1_3 else u1_3
            u1_r02 = u1_4 if u1_4 > u1_5 else u1_5
            u1_r03 = u1_6 if u1_6 > u1_7 else u1_7
            u1_r10 = u1_r00 if u1_r00 > u1_r01 else u1_r01
            u1_r11 = u1_r02 if u1_r02 > u1_r03 else u1_r03
            u1_r20 = u1_r10 if u1_r10 > u1_r11 else u1_r11
            le_r[kk, b] = _clip(u1_r20 - u0_r20, EXT_MAX_F)
        for b in range(nb):
            g1 = lp_r[kk, b]
            g2 = ls_r[kk, b] + la_r[kk, b]
            g3 = g2 + g1
            b0 = beta[0, b]
            b1 = beta[1, b]
            b2 = beta[2, b]
            b3 = beta[3, b]
            b4 = beta[4, b]
            b5 = beta[5, b]
            b6 = beta[6, b]
            b7 = beta[7, b]
            t0_0 = b0
            t1_0 = b4 + g3
            m0 = t0_0 if t0_0 > t1_0 else t1_0
            t0_1 = b4
            t1_1 = b0 + g3
            m1 = t0_1 if t0_1 > t1_1 else t1_1
            t0_2 = b5 + g1
            t1_2 = b1 + g2
            m2 = t0_2 if t0_2 > t1_2 else t1_2
            t0_3 = b1 + g1
            t1_3 = b5 + g2
            m3 = t0_3 if t0_3 > t1_3 else t1_3
            t0_4 = b2 + g1
            t1_4 = b6 + g2
            m4 = t0_4 if t0_4 > t1_4 else t1_4
            t0_5 = b6 + g1
            t1_5 = b2 + g2
            m5 = t0_5 if t0_5 > t1_5 else t1_5
            t0_6 = b7
            t1_6 = b3 + g3
            m6 = t0_6 if t0_6 > t1_6 else t1_6
            t0_7 = b3
            t1_7 = b7 + g3
            m7 = t0_7 if t0_7 > t1_7 else t1_7
            beta[0, b] = _clip(m0 - m0, SM_MAX_F)
            beta[1, b] = _clip(m1 - m0, SM_MAX_F)
            beta[2, b] = _clip(m2 - m0, SM_MAX_F)
            beta[3, b] = _clip(m3 - m0, SM_MAX_F)
            beta[4, b] = _clip(m4 - m0, SM_MAX_F)
            beta[5, b] = _clip(m5 - m0, SM_MAX_F)
            beta[6, b] = _clip(m6 - m0, SM_MAX_F)
            beta[7, b] = _clip(m7 - m0, SM_MAX_F)


@numba.njit(cache=True, fastmath=True, boundscheck=False)
def _scale_permute_int(le_r, idx, k, out, out_r):
    """out[i] = x - (x >> 2) with x = le[idx[i]], i < K (TS 36.212 5.1.3.2.3 interleaver).

    ``le_r`` is the extrinsic reversed in time; ``out_r`` receives ``out`` reversed in time.
    The integers are carried in float32 (exact below 2^24), so x >> 2 is floor(x / 4).
    """
    n, nb = le_r.shape
    for i in range(k):
        j = n - 1 - idx[i]
        r = n - 1 - i
        for b in range(nb):
            v = le_r[j, b]
            v = v - np.floor(v * np.float32(0.25))
            out[i, b] = v
            out_r[r, b] = v


@numba.njit(cache=True, fastmath=True, boundscheck=False)
def _scale_permute_float(le_r, idx, k, out, out_r):
    """out[i] = 0.75 le[idx[i]], i < K (TS 36.212 5.1.3.2.3 interleaver); time-reversed I/O as
    in ``_scale_permute_int``."""
    n, nb = le_r.shape
    for i in range(k):
        j = n - 1 - idx[i]
        r = n - 1 - i
        for b in range(nb):
            v = le_r[j, b] * np.float32(0.75)
            out[i, b] = v
            out_r[r, b] = v


class TurboDecodeResult(BaseModel):
    """Hard decisions, a-posteriori LLRs and per-block statistics of ``turbo_decode``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    bits: np.ndarray  # (B, K) uint8
    llr: np.ndarray  # (B, K) a-posteriori LLRs (float32, or int32 APP_LLR raw when fixed)
    iterations: np.ndarray  # (B,) full iterations run until the CRC passed (or the maximum)
    crc_ok: np.ndarray  # (B,) bool; all False when no CRC was given


def _split_streams(d: np.ndarray, k: int) -> tuple[np.ndarray, ...]:
    """(B, 3, K+4) soft d-streams -> per-constituent systematic/parity (K+3, B) incl. tails (TS
    36.212 5.1.3.2.2 tail order)."""
    nb = d.shape[0]
    sys = d[:, 0, :k].T
    p1 = d[:, 1, :k].T
    p2 = d[:, 2, :k].T
    t = d[:, :, k:]  # (B, 3, 4); tail order of 5.1.3.2.2
    xs1 = np.stack([t[:, 0, 0], t[:, 2, 0], t[:, 1, 1]])  # x_K, x_K+1, x_K+2
    zs1 = np.stack([t[:, 1, 0], t[:, 0, 1], t[:, 2, 1]])  # z_K, z_K+1, z_K+2
    xs2 = np.stack([t[:, 0, 2], t[:, 2, 2], t[:, 1, 3]])  # x'_K, x'_K+1, x'_K+2
    zs2 = np.stack([t[:, 1, 2], t[:, 0, 3], t[:, 2, 3]])  # z'_K, z'_K+1, z'_K+2
    perm = qpp_permutation(k)
    ls1 = np.ascontiguousarray(np.concatenate([sys, xs1]))
    lp1 = np.ascontiguousarray(np.concatenate([p1, zs1]))
    ls2 = np.ascontiguousarray(np.concatenate([sys[perm], xs2]))
    lp2 = np.ascontiguousarray(np.concatenate([p2, zs2]))
    assert ls1.shape == (k + 3, nb)
    return ls1, lp1, ls2, lp2


def turbo_decode(
    d_llr: np.ndarray,
    max_iters: int = 8,
    crc: str | None = None,
    n_filler: int = 0,
    fixed: bool = False,
) -> TurboDecodeResult:
    """Decode a batch of turbo code blocks of one size K (TS 36.212 5.1.3.2).

    ``d_llr`` is (B, 3, K+4) or (3, K+4): soft d^(0), d^(1), d^(2) as delivered by the rate
    dematcher (positive = bit 1; raw LLR integers when ``fixed``).  ``crc`` ("24A"/"24B") enables
    early stopping once every block's CRC passes; ``n_filler`` known-zero filler bits at the head
    are forced to a strong 0.
    """
    d = np.asarray(d_llr)
    if d.ndim == 2:
        d = d[None]
    if d.shape[0] > BATCH:
        parts = [
            turbo_decode(d[i : i + BATCH], max_iters, crc, n_filler, fixed)
            for i in range(0, d.shape[0], BATCH)
        ]
        return TurboDecodeResult(
            bits=np.concatenate([r.bits for r in parts]),
            llr=np.concatenate([r.llr for r in parts]),
            iterations=np.concatenate([r.iterations for r in parts]),
            crc_ok=np.concatenate([r.crc_ok for r in parts]),
        )
    nb, _, kp4 = d.shape
    k = kp4 - 4
    # The bit-true decoder carries its integers in float32: every intermediate stays far below
    # 2^24, so adds, subtracts, max and saturation are exact and the float SIMD path is used.
    dtype = np.float32
    if fixed:
        d = np.clip(np.asarray(d, np.int64), -LLR.max_raw, LLR.max_raw).astype(np.float32)
        strong = -LLR.max_raw
        neg = dtype(-SM_MAX)
    else:
        d = d.astype(np.float32)
        strong = -1e4
        neg = dtype(-1e30)
    ls1, lp1, ls2, lp2 = _split_streams(d, k)
    if n_filler:
        ls1[:n_filler] = strong
        lp1[:n_filler] = strong
        ls2 = np.ascontiguousarray(np.concatenate([ls1[:k][qpp_permutation(k)], ls2[k:]]))
    perm = qpp_permutation(k)
    inv = np.argsort(perm)
    alpha = np.empty((k + 4, 8, nb), dtype)
    beta = np.empty((8, nb), dtype)
    cur = np.empty((8, nb), dtype)
    siso = _siso_int if fixed else _siso_float
    scale_permute = _scale_permute_int if fixed else _scale_permute_float
    rev = [np.ascontiguousarray(x[::-1]) for x in (ls1, lp1, ls2, lp2)]
    la1 = np.zeros((k + 3, nb), dtype)
    la2 = np.zeros((k + 3, nb), dtype)
    la1_r = np.zeros((k + 3, nb), dtype)
    la2_r = np.zeros((k + 3, nb), dtype)
    le_r = np.zeros((k + 3, nb), dtype)
    bits = np.zeros((nb, k), np.uint8)
    app = np.zeros((nb, k), dtype)
    iters = np.full(nb, max_iters, np.int64)
    done = np.zeros(nb, bool)
    for it in range(1, max_iters + 1):
        siso(ls1, lp1, la1, rev[0], rev[1], la1_r, le_r, alpha, beta, cur, neg)
        scale_permute(le_r, perm, k, la2, la2_r)
        siso(ls2, lp2, la2, rev[2], rev[3], la2_r, le_r, alpha, beta, cur, neg)
        scale_permute(le_r, inv, k, la1, la1_r)
        if crc is None and it < max_iters:
            continue
        l_app = ls2[:k] + la2[:k] + le_r[::-1][:k]
        if fixed:
            l_app = np.clip(l_app, -APP_MAX, APP_MAX)
        l_nat = l_app[inv].T
        hard = (l_nat > 0).astype(np.uint8)
        live = ~done
        bits[live] = hard[live]
        app[live] = l_nat[live]
        iters[live] = it
        if crc is None:
            continue
        done |= crc_check_batch(hard, crc)
        if done.all():
            break
    crc_ok = crc_check_batch(bits, crc) if crc else np.zeros(nb, bool)
    if fixed:
        app = app.astype(np.int32)
    return TurboDecodeResult(bits=bits, llr=app, iterations=iters, crc_ok=crc_ok)
