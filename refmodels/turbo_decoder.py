"""Turbo decoder for the LTE PCCC (TS 36.212 clause 5.1.3.2): iterative max-log-MAP (BCJR) with
extrinsic scaling 0.75 and early stopping on the code block CRC (5.1.1 / 5.1.2).

One set of kernels, written out from the same trellis tables, runs both decoders:

* float32 (``fixed=False``): state metrics normalised each trellis step, scaling 0.75 (the
  saturation limits are set beyond any reachable metric, so saturation is the identity);
* integer (``fixed=True``): the ``fixed_point`` formats LLR (8 b), EXTRINSIC (10 b),
  STATE_METRIC (14 b), APP_LLR (12 b); alpha/beta are normalised by subtracting state 0 and
  saturated every step, the extrinsic is saturated and scaled as ``x - (x >> 2)``.  This is the
  RTL contract, including its schedule: each half iteration runs ``siso_count(K)`` parallel
  SISOs over sub-blocks of K / P steps whose boundary metrics are handed over from the previous
  iteration (``_siso_blocks``); within a sub-block it is integer-exact (no sliding-window
  approximation; the forward metrics are recomputed per window from exact checkpoints, which
  gives the same values).  The integers are carried in float32 lanes (all intermediates are
  far below 2^24, so every add, max and saturation is exact) because that is the widest SIMD
  path numba gets from LLVM.

The kernels run a batch of code blocks at once with the batch as the innermost, contiguous
dimension so that LLVM vectorises the add-compare-select over blocks (SIMD across code blocks);
the state loops are written out so the block loop body is straight-line code.  State 0 is 0
after normalisation and is neither stored nor added.  One full iteration (both constituent
decoders and both interleavers) is one compiled call.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.core.cpu import CPUTargetOptions
from numba.core.options import TargetOptions
from pydantic import BaseModel, ConfigDict

from silicon_agent.refmodels.crc import crc_check_batch
from silicon_agent.refmodels.fixed_point import APP_LLR, EXTRINSIC, LLR, STATE_METRIC
from silicon_agent.refmodels.qpp_table import qpp_permutation


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
# Code blocks decoded together: 32 fills LLVM's vector loop (8 lanes x 4).
BATCH = 32
# Trellis steps per window of recomputed forward metrics: (WINDOW, 7, 32) float32 is 28 kB.
WINDOW = 32
# A SISO over at most this many trellis steps stores every forward metric rather than
# recomputing them per window: (STORE_MAX, 7, 32) float32 is 230 kB, which L2 holds.
STORE_MAX = 259
# Parallel SISOs of the bit-true decoder: at most SISO_MAX, each over at least MIN_SUB_BLOCK
# trellis steps (see siso_count); the RTL's P_MAX parameter defaults to SISO_MAX.
SISO_MAX = 32
MIN_SUB_BLOCK = 32
# The float decoder runs the same kernels with saturation limits no metric reaches.
NO_LIMIT = np.float32(3e38)


@numba.njit(cache=True, inline="always")
def _clip(v, lim):
    """Symmetric saturation of a metric to +-lim (TS 36.212 5.1.3.2 decoder, fixed point); the
    float decoder passes a limit no metric reaches, which makes it the identity."""
    if v > lim:
        return lim
    if v < -lim:
        return -lim
    return v


def _allow_noalias() -> None:
    """Expose numba's ``noalias`` compiler flag (used internally by its parallel backend) as a
    ``njit`` option: it marks each array argument's data as not aliased by another argument, so
    LLVM vectorises the state-metric loops without per-step runtime overlap checks (the
    default loop falls back to scalar code past 8 such checks, 3x slower).  Every caller must
    pass distinct, non-overlapping arrays."""
    if not hasattr(CPUTargetOptions, "noalias"):
        CPUTargetOptions.noalias = TargetOptions.Mapping("noalias")


_allow_noalias()


@numba.njit(inline="always")
def _put(dst, b, v0, v1, v2, v3, v4, v5, v6, v7, sm_lim, clip):
    """States 1..7 of a metric normalised to state 0 into column ``b`` of ``dst``, saturated
    to +-sm_lim when ``clip``."""
    if clip:
        dst[0, b] = _clip(v1 - v0, sm_lim)
        dst[1, b] = _clip(v2 - v0, sm_lim)
        dst[2, b] = _clip(v3 - v0, sm_lim)
        dst[3, b] = _clip(v4 - v0, sm_lim)
        dst[4, b] = _clip(v5 - v0, sm_lim)
        dst[5, b] = _clip(v6 - v0, sm_lim)
        dst[6, b] = _clip(v7 - v0, sm_lim)
    else:
        dst[0, b] = v1 - v0
        dst[1, b] = v2 - v0
        dst[2, b] = v3 - v0
        dst[3, b] = v4 - v0
        dst[4, b] = v5 - v0
        dst[5, b] = v6 - v0
        dst[6, b] = v7 - v0


@numba.njit(inline="always")
def _forward_step(gs, lp, k, src, dst, nb, zero, sm_lim, clip):
    """alpha_k (``src``) -> alpha_k+1 (``dst``, may be ``src``): states 1..7, state 0 is 0
    after normalisation; saturated to +-sm_lim when ``clip`` (a constant at every call site,
    so the float kernels carry no saturation at all)."""
    for b in range(nb):
        g1 = lp[k, b]
        g2 = gs[k, b]
        g3 = g2 + g1
        a1 = src[0, b]
        a2 = src[1, b]
        a3 = src[2, b]
        a4 = src[3, b]
        a5 = src[4, b]
        a6 = src[5, b]
        a7 = src[6, b]
        y0 = a1 + g3
        n0 = zero if zero > y0 else y0
        x1 = a2 + g2
        y1 = a3 + g1
        n1 = x1 if x1 > y1 else y1
        x2 = a4 + g1
        y2 = a5 + g2
        n2 = x2 if x2 > y2 else y2
        x3 = a6 + g3
        y3 = a7
        n3 = x3 if x3 > y3 else y3
        x4 = g3
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
        _put(dst, b, n0, n1, n2, n3, n4, n5, n6, n7, sm_lim, clip)


@numba.njit(inline="always")
def _mx(x, y):
    return x if x > y else y


@numba.njit(inline="always")
def _backward_step(gs_k, lp_k, le_k, cur, beta, nb, zero, sm_lim, ext_lim, clip):
    """Extrinsic of step k (rows ``gs_k``, ``lp_k``, ``le_k``) from alpha_k (``cur``) and
    beta_k+1, then beta_k+1 -> beta_k in ``beta`` (states 1..7)."""
    for b in range(nb):
        g1 = lp_k[b]
        g2 = gs_k[b]
        g3 = g2 + g1
        b1 = beta[0, b]
        b2 = beta[1, b]
        b3 = beta[2, b]
        b4 = beta[3, b]
        b5 = beta[4, b]
        b6 = beta[5, b]
        b7 = beta[6, b]
        c1 = cur[0, b]
        c2 = cur[1, b]
        c3 = cur[2, b]
        c4 = cur[3, b]
        c5 = cur[4, b]
        c6 = cur[5, b]
        c7 = cur[6, b]
        u0_0 = zero
        u1_0 = b4 + g1
        u0_1 = c1 + b4
        u1_1 = c1 + g1
        u0_2 = c2 + b5 + g1
        u1_2 = c2 + b1
        u0_3 = c3 + b1 + g1
        u1_3 = c3 + b5
        u0_4 = c4 + b2 + g1
        u1_4 = c4 + b6
        u0_5 = c5 + b6 + g1
        u1_5 = c5 + b2
        u0_6 = c6 + b7
        u1_6 = c6 + b3 + g1
        u0_7 = c7 + b3
        u1_7 = c7 + b7 + g1
        u0 = _mx(_mx(_mx(u0_0, u0_1), _mx(u0_2, u0_3)), _mx(_mx(u0_4, u0_5), _mx(u0_6, u0_7)))
        u1 = _mx(_mx(_mx(u1_0, u1_1), _mx(u1_2, u1_3)), _mx(_mx(u1_4, u1_5), _mx(u1_6, u1_7)))
        e = u1 - u0
        if clip:
            le_k[b] = _clip(e, ext_lim)
        else:
            le_k[b] = e
        t1_0 = b4 + g3
        m0 = zero if zero > t1_0 else t1_0
        t0_1 = b4
        t1_1 = g3
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
        _put(beta, b, m0, m1, m2, m3, m4, m5, m6, m7, sm_lim, clip)


@numba.njit(cache=True, fastmath=True, boundscheck=False, noalias=True)
def _siso(gs, lp, le, ckpt, win, beta, cur, sm_lim, ext_lim, clip):
    """The SISO below, compiled once with saturation (bit-true) and once without (float)."""
    if clip:
        _siso_body(gs, lp, le, ckpt, win, beta, cur, sm_lim, ext_lim, True)
    else:
        _siso_body(gs, lp, le, ckpt, win, beta, cur, sm_lim, ext_lim, False)


@numba.njit(inline="always")
def _siso_body(gs, lp, le, ckpt, win, beta, cur, sm_lim, ext_lim, clip):
    """One max-log-MAP constituent decoder over a batch (TS 36.212 5.1.3.2.1).

    Arrays are (step, [state,] block).  gs, lp: (n, B) systematic-plus-a-priori
    (Ls + La, La = 0 on the tail) and parity LLRs incl. tail; le: (n, B) extrinsic output
    (tail rows unused); ckpt: (ceil(n / WINDOW), 7, B) forward metrics at every WINDOW-th
    step; win: (W, 7, B) forward metrics, W >= WINDOW; beta, cur: (7, B) scratch.
    Branch metric gamma = u*(Ls+La) + p*Lp (g1 = Lp, g2 = Ls+La, g3 = both).  State metrics
    are normalised to state 0 (so state 0 is always 0 and is not stored) and, when ``clip``,
    saturated to +-sm_lim every step, the extrinsic to +-ext_lim.  The caller sets the initial
    alpha in ``cur`` and beta in ``beta``; on return ``cur`` holds the last alpha and ``beta``
    the first beta (the boundary metrics handed to the neighbouring sub-blocks).

    A (sub-)block of at most W steps keeps every forward metric in ``win`` (a parallel SISO's
    sub-block: it stays in L2).  A longer one keeps only a checkpoint per WINDOW steps; the
    backward pass recomputes the window's metrics from it (the same operations, so the same
    values) into ``win``, which stays in L1, instead of streaming a (K+4, 7, B) array through
    memory.  The state loops are written out from ``PRED``/``SUCC`` over one row view per
    array, and ``noalias`` spares LLVM the run-time overlap checks: that is what lets it
    vectorise across the blocks.
    """
    n, nb = gs.shape
    zero = np.float32(0)
    if n <= win.shape[0]:
        for s in range(7):
            for b in range(nb):
                win[0, s, b] = cur[s, b]
        for j in range(n - 1):
            _forward_step(gs, lp, j, win[j], win[j + 1], nb, zero, sm_lim, clip)
        _forward_step(gs, lp, n - 1, win[n - 1], cur, nb, zero, sm_lim, clip)
        for jj in range(n):
            j = n - 1 - jj
            _backward_step(gs[j], lp[j], le[j], win[j], beta, nb, zero, sm_lim, ext_lim, clip)
        return
    cf = cur.reshape(7 * nb)
    ckf = ckpt.reshape(ckpt.shape[0], 7 * nb)
    wf = win.reshape(win.shape[0], 7 * nb)
    nwin = (n + WINDOW - 1) // WINDOW
    for w in range(nwin):
        for i in range(7 * nb):
            ckf[w, i] = cf[i]
        k0 = w * WINDOW
        for j in range(min(WINDOW, n - k0)):
            _forward_step(gs, lp, k0 + j, cur, cur, nb, zero, sm_lim, clip)
    for ww in range(nwin):
        w = nwin - 1 - ww
        k0 = w * WINDOW
        m = min(WINDOW, n - k0)
        for i in range(7 * nb):
            wf[0, i] = ckf[w, i]
        for j in range(m - 1):
            _forward_step(gs, lp, k0 + j, win[j], win[j + 1], nb, zero, sm_lim, clip)
        for jj in range(m):
            j = m - 1 - jj
            k = k0 + j
            _backward_step(gs[k], lp[k], le[k], win[j], beta, nb, zero, sm_lim, ext_lim, clip)


@numba.njit(cache=True, fastmath=True, boundscheck=False)
def _siso_blocks(
    gs, lp, le, ckpt, win, beta, cur, sm_lim, ext_lim, a_bnd, b_bnd, a_new, b_new, clip
):
    """One constituent decoder as P = a_bnd.shape[0] parallel SISOs over sub-blocks of
    M = K / P steps (the last one also runs the 3 tail steps).  Sub-block q starts alpha from
    ``a_bnd[q]`` and beta from ``b_bnd[q]``: the metrics its neighbours ended with in this
    decoder's previous iteration (``a_bnd[0]`` is the known start state, ``b_bnd[P-1]`` the
    terminated end state).  The boundaries produced now go to ``a_new`` / ``b_new`` and replace
    the old ones only once every sub-block has run, as in hardware where all run at once."""
    n, nb = gs.shape
    p = a_bnd.shape[0]
    m = (n - 3) // p
    for q in range(p):
        lo = q * m
        hi = lo + m if q < p - 1 else n
        for s in range(7):
            for b in range(nb):
                cur[s, b] = a_bnd[q, s, b]
                beta[s, b] = b_bnd[q, s, b]
        _siso(gs[lo:hi], lp[lo:hi], le[lo:hi], ckpt, win, beta, cur, sm_lim, ext_lim, clip)
        for s in range(7):
            for b in range(nb):
                if q + 1 < p:
                    a_new[q + 1, s, b] = cur[s, b]
                if q > 0:
                    b_new[q - 1, s, b] = beta[s, b]
    for q in range(p):
        for s in range(7):
            for b in range(nb):
                if q > 0:
                    a_bnd[q, s, b] = a_new[q, s, b]
                if q < p - 1:
                    b_bnd[q, s, b] = b_new[q, s, b]


@numba.njit(cache=True, fastmath=True, boundscheck=False)
def _scale_permute(le, idx, k, fixed, ls, out):
    """out[i] = ls[i] + scale(le[idx[i]]), i < K: the next decoder's a priori (TS 36.212
    5.1.3.2.3 interleaver) already added to its systematic LLR; scale is x - (x >> 2) for the
    integer decoder (carried in float32, exact below 2^24, so x >> 2 is
    floor(x / 4)) and 0.75 x for the float one."""
    nb = le.shape[1]
    if fixed:
        for i in range(k):
            j = idx[i]
            for b in range(nb):
                v = le[j, b]
                out[i, b] = ls[i, b] + (v - np.floor(v * np.float32(0.25)))
    else:
        for i in range(k):
            j = idx[i]
            for b in range(nb):
                out[i, b] = ls[i, b] + le[j, b] * np.float32(0.75)


@numba.njit(cache=True, fastmath=True, boundscheck=False)
def _app(gs2, le, inv, k, app_lim, app):
    """A-posteriori LLR (Ls + La) + Le of the second decoder (interleaved domain), saturated to
    +-app_lim, written de-interleaved as app (B, K)."""
    nb = gs2.shape[1]
    for j in range(k):
        i = inv[j]
        for b in range(nb):
            v = gs2[i, b] + le[i, b]
            app[b, j] = _clip(v, app_lim)


@numba.njit(cache=True, boundscheck=False)
def _iteration(
    ls1, ls2, lp1, lp2, gs1, gs2, le, ckpt, win, beta, cur, perm, inv, fixed, sm_lim, ext_lim,
    bnd, new,
):  # fmt: skip
    """One full turbo iteration: decoder 1, interleave, decoder 2, de-interleave, in one call so
    no Python runs between the half-iterations.  ``bnd`` (4, P, 7, B): alpha and beta boundary
    metrics of decoder 1 then decoder 2; ``new`` scratch of the same shape."""
    k = perm.shape[0]
    _siso_blocks(gs1, lp1, le, ckpt, win, beta, cur, sm_lim, ext_lim, bnd[0], bnd[1], new[0],
                 new[1], fixed)  # fmt: skip
    _scale_permute(le, perm, k, fixed, ls2, gs2)
    _siso_blocks(gs2, lp2, le, ckpt, win, beta, cur, sm_lim, ext_lim, bnd[2], bnd[3], new[2],
                 new[3], fixed)  # fmt: skip
    _scale_permute(le, inv, k, fixed, ls1, gs1)


class TurboDecodeResult(BaseModel):
    """Hard decisions, a-posteriori LLRs and per-block statistics of ``turbo_decode``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    bits: np.ndarray  # (B, K) uint8
    llr: np.ndarray  # (B, K) a-posteriori LLRs (float32, or int32 APP_LLR raw when fixed)
    iterations: np.ndarray  # (B,) full iterations run until the CRC passed (or the maximum)
    crc_ok: np.ndarray  # (B,) bool; all False when no CRC was given


def siso_count(k: int, p_max: int = SISO_MAX) -> int:
    """Parallel SISOs the bit-true decoder (and the RTL) splits a code block of size K into: the
    largest P in {p_max, ..., 2, 1} (powers of two) with K % P == 0 and K / P >= MIN_SUB_BLOCK.
    A power of two keeps the bank index of an address a plain mask in hardware; sub-blocks of
    at least 32 steps (8 constraint lengths) keep the boundary metrics handed over between
    iterations reliable, so the BER stays on the full-length decoder's."""
    p = p_max
    while p > 1 and (k % p or k // p < MIN_SUB_BLOCK):
        p //= 2
    return p


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
    siso: int | None = None,
) -> TurboDecodeResult:
    """Decode a batch of turbo code blocks of one size K (TS 36.212 5.1.3.2).

    ``d_llr`` is (B, 3, K+4) or (3, K+4): soft d^(0), d^(1), d^(2) as delivered by the rate
    dematcher (positive = bit 1; raw LLR integers when ``fixed``).  ``crc`` ("24A"/"24B") enables
    early stopping once every block's CRC passes; ``n_filler`` known-zero filler bits at the head
    are forced to a strong 0.  ``siso`` (P) splits each half iteration into P sub-blocks decoded
    as parallel SISOs with next-iteration boundary initialisation; by default the bit-true
    decoder uses ``siso_count(K)`` (the RTL's schedule) and the float one the full length.
    """
    d = np.asarray(d_llr)
    if d.ndim == 2:
        d = d[None]
    if d.shape[0] > BATCH:
        parts = [
            turbo_decode(d[i : i + BATCH], max_iters, crc, n_filler, fixed, siso)
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
    if siso is None:
        siso = siso_count(k) if fixed else 1
    if siso < 1 or k % siso or k // siso < 4:
        raise ValueError(f"siso = {siso} does not split K = {k} into sub-blocks")
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
    perm = qpp_permutation(k).astype(np.int64)
    inv = np.argsort(perm).astype(np.int64)
    if fixed:
        sm_lim, ext_lim, app_lim = dtype(SM_MAX), dtype(EXT_MAX), dtype(APP_MAX)
    else:
        sm_lim = ext_lim = app_lim = NO_LIMIT
    # Boundary metrics (alpha, beta of decoder 1, then of decoder 2): the inner ones start
    # all-equal (0), the block's first alpha and last beta are the known state 0.
    bnd = np.zeros((4, siso, 7, nb), dtype)
    bnd[0, 0] = neg
    bnd[1, siso - 1] = neg
    bnd[2, 0] = neg
    bnd[3, siso - 1] = neg
    new = np.empty_like(bnd)
    ckpt = np.empty(((k + 3 + WINDOW - 1) // WINDOW, 7, nb), dtype)
    # Sub-blocks of up to STORE_MAX steps keep all their forward metrics (no recomputation).
    longest = (k // siso) + 3
    win = np.empty((max(WINDOW, longest if longest <= STORE_MAX else 0), 7, nb), dtype)
    beta = np.empty((7, nb), dtype)
    cur = np.empty((7, nb), dtype)
    # Ls + La per decoder (La starts at 0 and stays 0 on the tail).
    gs1, gs2 = ls1.copy(), ls2.copy()
    le = np.zeros((k + 3, nb), dtype)
    bits = np.zeros((nb, k), np.uint8)
    app = np.zeros((nb, k), dtype)
    iters = np.full(nb, max_iters, np.int64)
    # The blocks still decoding, as rows of the result; once a block's CRC passes it leaves
    # the batch (the blocks are independent lanes, so the others' values do not change).
    live = np.arange(nb)
    state = [ls1, ls2, lp1, lp2, gs1, gs2, le, ckpt, win, beta, cur, bnd, new]
    for it in range(1, max_iters + 1):
        ls1, ls2, lp1, lp2, gs1, gs2, le, ckpt, win, beta, cur, bnd, new = state
        _iteration(
            ls1, ls2, lp1, lp2, gs1, gs2, le, ckpt, win, beta, cur, perm, inv, fixed, sm_lim,
            ext_lim, bnd, new,
        )  # fmt: skip
        if crc is None and it < max_iters:
            continue
        l_nat = np.empty((live.size, k), dtype)
        _app(gs2, le, inv, k, app_lim, l_nat)
        hard = (l_nat > 0).astype(np.uint8)
        bits[live] = hard
        app[live] = l_nat
        iters[live] = it
        if crc is None:
            continue
        passed = crc_check_batch(hard, crc)
        if passed.all():
            break
        if passed.any():
            keep = ~passed
            live = live[keep]
            state = [np.ascontiguousarray(a[..., keep]) for a in state]
    crc_ok = crc_check_batch(bits, crc) if crc else np.zeros(nb, bool)
    if fixed:
        app = app.astype(np.int32)
    return TurboDecodeResult(bits=bits, llr=app, iterations=iters, crc_ok=crc_ok)
