"""Turbo decoder for the LTE PCCC (TS 36.212 clause 5.1.3.2): iterative max-log-MAP (BCJR) with
extrinsic scaling 0.75 and early stopping on the code block CRC (5.1.1 / 5.1.2).

One C++ kernel (``turbo_kernel.cpp``, compiled on first use by ``native``), written out from
the trellis below, runs both decoders:

* float32 (``fixed=False``): state metrics normalised each trellis step, scaling 0.75, no
  saturation; IEEE arithmetic without contraction, so every block gets the same operations;
* integer (``fixed=True``): the ``fixed_point`` formats LLR (8 b), EXTRINSIC (10 b),
  STATE_METRIC (14 b), APP_LLR (12 b); alpha/beta are normalised by subtracting state 0 and
  saturated every step, the extrinsic is saturated and scaled as ``x - (x >> 2)``.  This is the
  RTL contract, including its schedule: each half iteration runs ``siso_count(K)`` parallel
  SISOs over sub-blocks of K / P steps whose boundary metrics are handed over from the previous
  iteration; within a sub-block it is integer-exact (no sliding-window approximation; the
  forward metrics of a long SISO are recomputed per window from exact checkpoints, which gives
  the same values).  The integers are carried in int16 lanes: the format widths bound every
  intermediate (at most 2 * STATE_METRIC + |gamma| < 2^15, asserted below).

The kernel runs ``LANES`` code blocks at once, one per SIMD lane (arrays are (step, [state,]
lane) with the lane innermost; a smaller batch is padded with zero lanes, which do not touch the
others), and keeps a step's state metrics in vector registers; state 0 is 0 after
normalisation and is neither stored nor added.  One full iteration (both constituent decoders
and both interleavers) is one call.
"""

from __future__ import annotations

import ctypes
from functools import cache
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict

from silicon_agent.refmodels import native
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
# Code blocks decoded together: the kernel's SIMD lanes (LANES in turbo_kernel.cpp).
BATCH = 32
# Parallel SISOs of the bit-true decoder: at most SISO_MAX, each over at least MIN_SUB_BLOCK
# trellis steps (see siso_count); the RTL's P_MAX parameter defaults to SISO_MAX.
SISO_MAX = 32
MIN_SUB_BLOCK = 32
# The float decoder saturates its a-posteriori LLRs at a limit no value reaches.
NO_LIMIT = np.float32(3e38)
# The widest intermediate of the bit-true kernel, alpha + beta + gamma, and the extrinsic
# u1 - u0 (each max over such sums, one of them at least 0), fit the int16 lanes.
_GAMMA_MAX = LLR.max_raw + (EXT_MAX - (EXT_MAX >> 2)) + LLR.max_raw
assert 2 * SM_MAX + _GAMMA_MAX < 2**15 and 3 * SM_MAX + 2 * _GAMMA_MAX < 2**15
SOURCE = Path(__file__).with_name("turbo_kernel.cpp")

_P = ctypes.c_void_p
_I = ctypes.c_int


@cache
def _kernel() -> ctypes.CDLL:
    """The compiled kernel, built on first use (``native``)."""
    lib = native.load(SOURCE)
    lib.turbo_lanes.restype = _I
    if lib.turbo_lanes() != BATCH:
        raise native.NativeBuildError(f"{SOURCE.name} has {lib.turbo_lanes()} lanes, not {BATCH}")
    for name, lim in (("f32", ctypes.c_float), ("i16", _I)):
        it = getattr(lib, f"turbo_iteration_{name}")
        it.argtypes = [_I, _I, *[_P] * 10, ctypes.c_uint, lim, lim]
        it.restype = _I
        app = getattr(lib, f"turbo_app_{name}")
        app.argtypes = [_I, _P, _P, _P, lim, _P]
        app.restype = None
        getattr(lib, f"turbo_vector_lanes_{name}").restype = _I
    return lib


def _groups(lanes: np.ndarray, width: int) -> int:
    """Bit mask of the kernel's vectors of ``width`` lanes that hold one of ``lanes``."""
    mask = 0
    for g in np.unique(lanes // width):
        mask |= 1 << int(g)
    return mask


def _ptr(a: np.ndarray) -> int:
    assert a.flags.c_contiguous
    return a.ctypes.data


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


@cache
def _interleaver(k: int) -> tuple[np.ndarray, np.ndarray]:
    """The QPP permutation of size K (TS 36.212 5.1.3.2.3) and its inverse, as int64."""
    perm = qpp_permutation(k).astype(np.int64)
    inv = np.argsort(perm).astype(np.int64)
    perm.flags.writeable = inv.flags.writeable = False
    return perm, inv


def _split_streams(t: np.ndarray, k: int) -> tuple[np.ndarray, ...]:
    """(3, K+4, lanes) soft d-streams -> per-constituent systematic/parity (K+3, lanes) incl.
    tails (TS 36.212 5.1.3.2.2 tail order)."""
    n = k + 3
    ls1, lp1, ls2, lp2 = (np.empty((n, t.shape[2]), t.dtype) for _ in range(4))
    ls1[:k], lp1[:k], lp2[:k] = t[0, :k], t[1, :k], t[2, :k]
    np.take(t[0, :k], _interleaver(k)[0], axis=0, out=ls2[:k])
    tail = t[:, k:]  # (3, 4, lanes); tail order of 5.1.3.2.2
    ls1[k:] = tail[0, 0], tail[2, 0], tail[1, 1]  # x_K, x_K+1, x_K+2
    lp1[k:] = tail[1, 0], tail[0, 1], tail[2, 1]  # z_K, z_K+1, z_K+2
    ls2[k:] = tail[0, 2], tail[2, 2], tail[1, 3]  # x'_K, x'_K+1, x'_K+2
    lp2[k:] = tail[1, 2], tail[0, 3], tail[2, 3]  # z'_K, z'_K+1, z'_K+2
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
    lib = _kernel()
    # The batch fills the kernel's lanes; the padding lanes decode zeros on their own.
    # The batch fills the kernel's lanes, (stream, step, lane); the padding lanes decode zeros on
    # their own.
    if fixed:
        dtype: type[np.generic] = np.int16
        lanes = np.zeros((3, kp4, BATCH), dtype)
        lanes[:, :, :nb] = np.clip(np.asarray(d, np.int64), -LLR.max_raw, LLR.max_raw).transpose(
            1, 2, 0
        )
        strong, neg = -LLR.max_raw, -SM_MAX
        iteration, app_fn = lib.turbo_iteration_i16, lib.turbo_app_i16
        width = lib.turbo_vector_lanes_i16()
        sm_lim, ext_lim, app_lim = SM_MAX, EXT_MAX, APP_MAX
    else:
        dtype = np.float32
        lanes = np.zeros((3, kp4, BATCH), dtype)
        lanes[:, :, :nb] = d.transpose(1, 2, 0)
        strong, neg = -1e4, -1e30
        iteration, app_fn = lib.turbo_iteration_f32, lib.turbo_app_f32
        width = lib.turbo_vector_lanes_f32()
        sm_lim = ext_lim = app_lim = NO_LIMIT
    perm, inv = _interleaver(k)
    ls1, lp1, ls2, lp2 = _split_streams(lanes, k)
    if n_filler:
        ls1[:n_filler, :nb] = strong
        lp1[:n_filler, :nb] = strong
        ls2[:k] = ls1[:k][perm]
    # Boundary metrics (alpha, beta of decoder 1, then of decoder 2): the inner ones start
    # all-equal (0), the block's first alpha and last beta are the known state 0.
    bnd = np.zeros((4, siso, 7, BATCH), dtype)
    bnd[0, 0] = neg
    bnd[1, siso - 1] = neg
    bnd[2, 0] = neg
    bnd[3, siso - 1] = neg
    # Ls + La per decoder (La starts at 0 and stays 0 on the tail).
    gs1, gs2 = ls1.copy(), ls2.copy()
    le = np.zeros((k + 3, BATCH), dtype)
    out = np.empty((k, BATCH), dtype)
    bits = np.zeros((nb, k), np.uint8)
    app = np.zeros((nb, k), dtype)
    iters = np.full(nb, max_iters, np.int64)
    state = [ls1, ls2, lp1, lp2, gs1, gs2, le, bnd]
    # The blocks still decoding (rows of the result) and their lanes.  Once a block's CRC
    # passes its result is kept; the blocks left are moved to the lowest lanes when that frees
    # a vector, and a vector of lanes none of which is still decoding is no longer run (the
    # lanes are independent, so moving a block does not change its values).
    live = np.arange(nb)
    lanes = np.arange(nb)
    for it in range(1, max_iters + 1):
        ptrs = [_ptr(a) for a in (*state, perm, inv)]
        if iteration(k, siso, *ptrs, _groups(lanes, width), sm_lim, ext_lim):
            raise MemoryError("turbo decoder kernel: out of memory")
        if crc is None and it < max_iters:
            continue
        gs2, le = state[5], state[6]
        app_fn(k, _ptr(gs2), _ptr(le), _ptr(inv), app_lim, _ptr(out))
        hard = np.ascontiguousarray((out > 0)[:, lanes].T).view(np.uint8)
        passed = crc_check_batch(hard, crc) if crc else np.zeros(live.size, bool)
        # Results are taken from the blocks that stop now: passed, or out of iterations.
        done = passed | (it == max_iters)
        if done.any():
            bits[live[done]] = hard[done]
            app[live[done]] = out[:, lanes[done]].T
            iters[live[done]] = it
        if done.all():
            break
        live, lanes = live[~passed], lanes[~passed]
        packed = np.arange(lanes.size)
        if _groups(packed, width) != _groups(lanes, width):
            order = np.concatenate([lanes, np.setdiff1d(np.arange(BATCH), lanes)])
            state = [np.ascontiguousarray(a[..., order]) for a in state]
            lanes = packed
    crc_ok = crc_check_batch(bits, crc) if crc else np.zeros(nb, bool)
    if fixed:
        app = app.astype(np.int32)
    return TurboDecodeResult(bits=bits, llr=app, iterations=iters, crc_ok=crc_ok)
