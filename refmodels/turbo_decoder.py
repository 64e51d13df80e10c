"""Turbo decoder for the LTE PCCC (TS 36.212 clause 5.1.3.2): iterative max-log-MAP (BCJR) with
extrinsic scaling 0.75 and early stopping on the code block CRC (5.1.1 / 5.1.2).

Two bit-true variants share one compiled kernel:

* float32 (``fixed=False``): state metrics normalised each trellis step;
* integer (``fixed=True``): the ``fixed_point`` formats LLR (8 b), EXTRINSIC (10 b),
  STATE_METRIC (14 b); every add that can grow is followed by saturation, extrinsic scaling is
  ``x - (x >> 2)``.  This is the RTL contract: integer-exact, no sliding window.

The kernel runs a batch of code blocks at once with the batch as the innermost, contiguous
dimension so that LLVM vectorises the add-compare-select over blocks (SIMD across code blocks).
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


@numba.njit(cache=True, fastmath=True, boundscheck=False, inline="always")
def _clip(v, lim, fixed):  # noqa: ANN001, ANN202 - numba helper
    if fixed:
        if v > lim:
            return lim
        if v < -lim:
            return -lim
    return v


@numba.njit(cache=True, fastmath=True, boundscheck=False)
def _siso(ls, lp, la, le, alpha, fixed, neg):  # noqa: ANN001, ANN202, PLR0915 - numba kernel
    """One max-log-MAP constituent decoder over a batch: arrays are (step, [state,] block).

    ls, lp, la: (K+3, B) systematic, parity and a priori LLRs incl. tail (la is 0 on the tail);
    le: (K+3, B) extrinsic output (tail rows unused); alpha: (K+4, 8, B) scratch.  The state
    loops are written out (from ``PRED``/``SUCC``) so the block loop is straight-line code
    that LLVM vectorises.
    """
    n, nb = ls.shape
    beta = np.empty((8, nb), ls.dtype)
    for s in range(8):
        for b in range(nb):
            alpha[0, s, b] = neg
            beta[s, b] = neg
    for b in range(nb):
        alpha[0, 0, b] = 0
        beta[0, b] = 0
    for k in range(n):
        for b in range(nb):
            g1 = lp[k, b]
            g2 = ls[k, b] + la[k, b]
            g3 = g2 + g1
            a0 = alpha[k, 0, b]
            a1 = alpha[k, 1, b]
            a2 = alpha[k, 2, b]
            a3 = alpha[k, 3, b]
            a4 = alpha[k, 4, b]
            a5 = alpha[k, 5, b]
            a6 = alpha[k, 6, b]
            a7 = alpha[k, 7, b]
            x = a0
            y = a1 + g3
            n0 = x if x > y else y
            x = a2 + g2
            y = a3 + g1
            n1 = x if x > y else y
            x = a4 + g1
            y = a5 + g2
            n2 = x if x > y else y
            x = a6 + g3
            y = a7
            n3 = x if x > y else y
            x = a0 + g3
            y = a1
            n4 = x if x > y else y
            x = a2 + g1
            y = a3 + g2
            n5 = x if x > y else y
            x = a4 + g2
            y = a5 + g1
            n6 = x if x > y else y
            x = a6
            y = a7 + g3
            n7 = x if x > y else y
            alpha[k + 1, 0, b] = _clip(n0 - n0, SM_MAX, fixed)
            alpha[k + 1, 1, b] = _clip(n1 - n0, SM_MAX, fixed)
            alpha[k + 1, 2, b] = _clip(n2 - n0, SM_MAX, fixed)
            alpha[k + 1, 3, b] = _clip(n3 - n0, SM_MAX, fixed)
            alpha[k + 1, 4, b] = _clip(n4 - n0, SM_MAX, fixed)
            alpha[k + 1, 5, b] = _clip(n5 - n0, SM_MAX, fixed)
            alpha[k + 1, 6, b] = _clip(n6 - n0, SM_MAX, fixed)
            alpha[k + 1, 7, b] = _clip(n7 - n0, SM_MAX, fixed)
    for k in range(n - 1, -1, -1):
        for b in range(nb):
            g1 = lp[k, b]
            g2 = ls[k, b] + la[k, b]
            g3 = g2 + g1
            b0 = beta[0, b]
            b1 = beta[1, b]
            b2 = beta[2, b]
            b3 = beta[3, b]
            b4 = beta[4, b]
            b5 = beta[5, b]
            b6 = beta[6, b]
            b7 = beta[7, b]
            a = alpha[k, 0, b]
            t0 = b0
            t1p = b4 + g1
            t1 = t1p + g2
            m0 = t0 if t0 > t1 else t1
            u0_0 = a + t0
            u1_0 = a + t1p
            a = alpha[k, 1, b]
            t0 = b4
            t1p = b0 + g1
            t1 = t1p + g2
            m1 = t0 if t0 > t1 else t1
            u0_1 = a + t0
            u1_1 = a + t1p
            a = alpha[k, 2, b]
            t0 = b5 + g1
            t1p = b1
            t1 = t1p + g2
            m2 = t0 if t0 > t1 else t1
            u0_2 = a + t0
            u1_2 = a + t1p
            a = alpha[k, 3, b]
            t0 = b1 + g1
            t1p = b5
            t1 = t1p + g2
            m3 = t0 if t0 > t1 else t1
            u0_3 = a + t0
            u1_3 = a + t1p
            a = alpha[k, 4, b]
            t0 = b2 + g1
            t1p = b6
            t1 = t1p + g2
            m4 = t0 if t0 > t1 else t1
            u0_4 = a + t0
            u1_4 = a + t1p
            a = alpha[k, 5, b]
            t0 = b6 + g1
            t1p = b2
            t1 = t1p + g2
            m5 = t0 if t0 > t1 else t1
            u0_5 = a + t0
            u1_5 = a + t1p
            a = alpha[k, 6, b]
            t0 = b7
            t1p = b3 + g1
            t1 = t1p + g2
            m6 = t0 if t0 > t1 else t1
            u0_6 = a + t0
            u1_6 = a + t1p
            a = alpha[k, 7, b]
            t0 = b3
            t1p = b7 + g1
            t1 = t1p + g2
            m7 = t0 if t0 > t1 else t1
            u0_7 = a + t0
            u1_7 = a + t1p
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
            le[k, b] = _clip(u1_r20 - u0_r20, EXT_MAX, fixed)
            beta[0, b] = _clip(m0 - m0, SM_MAX, fixed)
            beta[1, b] = _clip(m1 - m0, SM_MAX, fixed)
            beta[2, b] = _clip(m2 - m0, SM_MAX, fixed)
            beta[3, b] = _clip(m3 - m0, SM_MAX, fixed)
            beta[4, b] = _clip(m4 - m0, SM_MAX, fixed)
            beta[5, b] = _clip(m5 - m0, SM_MAX, fixed)
            beta[6, b] = _clip(m6 - m0, SM_MAX, fixed)
            beta[7, b] = _clip(m7 - m0, SM_MAX, fixed)



@numba.njit(cache=True, boundscheck=False)
def _scale_permute_int(le, idx, k, out):  # noqa: ANN001, ANN202 - numba kernel
    """out[i] = le[idx[i]] - (le[idx[i]] >> 2) for i < K (0.75 as a shift-add)."""
    nb = le.shape[1]
    for i in range(k):
        j = idx[i]
        for b in range(nb):
            v = le[j, b]
            out[i, b] = v - (v >> 2)


@numba.njit(cache=True, fastmath=True, boundscheck=False)
def _scale_permute_float(le, idx, k, out):  # noqa: ANN001, ANN202 - numba kernel
    """out[i] = 0.75 * le[idx[i]] for i < K."""
    nb = le.shape[1]
    for i in range(k):
        j = idx[i]
        for b in range(nb):
            out[i, b] = le[j, b] * np.float32(0.75)


class TurboDecodeResult(BaseModel):
    """Hard decisions, a-posteriori LLRs and per-block statistics of ``turbo_decode``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    bits: np.ndarray  # (B, K) uint8
    llr: np.ndarray  # (B, K) a-posteriori LLRs (float32, or int32 APP_LLR raw when fixed)
    iterations: np.ndarray  # (B,) full iterations run until the CRC passed (or the maximum)
    crc_ok: np.ndarray  # (B,) bool; all False when no CRC was given


def _split_streams(d: np.ndarray, k: int) -> tuple[np.ndarray, ...]:
    """(B, 3, K+4) soft d-streams -> per-constituent systematic/parity (K+3, B) incl. tails."""
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


def turbo_decode(d_llr: np.ndarray, max_iters: int = 8, crc: str | None = None,
                 n_filler: int = 0, fixed: bool = False) -> TurboDecodeResult:
    """Decode a batch of turbo code blocks of one size K (TS 36.212 5.1.3.2).

    ``d_llr`` is (B, 3, K+4) or (3, K+4): soft d^(0), d^(1), d^(2) as delivered by the rate
    dematcher (positive = bit 1; raw LLR integers when ``fixed``).  ``crc`` ("24A"/"24B") enables
    early stopping once every block's CRC passes; ``n_filler`` known-zero filler bits at the head
    are forced to a strong 0.
    """
    d = np.asarray(d_llr)
    if d.ndim == 2:
        d = d[None]
    nb, _, kp4 = d.shape
    k = kp4 - 4
    dtype = np.int32 if fixed else np.float32
    if fixed:
        d = np.clip(d.astype(np.int32), -LLR.max_raw, LLR.max_raw)
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
    la1 = np.zeros((k + 3, nb), dtype)
    la2 = np.zeros((k + 3, nb), dtype)
    le = np.zeros((k + 3, nb), dtype)
    bits = np.zeros((nb, k), np.uint8)
    app = np.zeros((nb, k), dtype)
    iters = np.full(nb, max_iters, np.int64)
    done = np.zeros(nb, bool)
    scale_permute = _scale_permute_int if fixed else _scale_permute_float
    for it in range(1, max_iters + 1):
        _siso(ls1, lp1, la1, le, alpha, fixed, neg)
        scale_permute(le, perm, k, la2)
        _siso(ls2, lp2, la2, le, alpha, fixed, neg)
        scale_permute(le, inv, k, la1)
        if crc is None and it < max_iters:
            continue
        l_app = ls2[:k] + la2[:k] + le[:k]
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
    return TurboDecodeResult(bits=bits, llr=app, iterations=iters, crc_ok=crc_ok)
