"""Turbo decoder (36.212 5.1.3.2 inverse): noiseless decoding, BER targets, fixed vs float, and
the integer decoder against an independent plain-Python transcription of its RTL contract."""

from __future__ import annotations

import numpy as np
import pytest

from refmodels.ber import channel_llrs, simulate_point
from refmodels.crc import crc_attach
from refmodels.fixed_point import APP_LLR, EXTRINSIC, LLR, STATE_METRIC, quantise
from refmodels.qpp_table import qpp_permutation
from refmodels.turbo_decoder import turbo_decode
from refmodels.turbo_encoder import turbo_encode


@pytest.mark.parametrize("k", [40, 48, 512, 1056, 4416, 6144])
@pytest.mark.parametrize("fixed", [False, True])
def test_noiseless_decode(k: int, fixed: bool, rng: np.random.Generator) -> None:
    info = rng.integers(0, 2, (3, k)).astype(np.uint8)
    d = np.stack([turbo_encode(c) for c in info])
    llr = (2 * d.astype(int) - 1) * (20 if fixed else 5.0)
    res = turbo_decode(llr, 8, fixed=fixed)
    assert np.array_equal(res.bits, info)


def test_early_stop_on_crc(rng: np.random.Generator) -> None:
    k = 1024
    info = np.stack(
        [crc_attach(rng.integers(0, 2, k - 24).astype(np.uint8), "24B") for _ in range(4)]
    )
    d = np.stack([turbo_encode(c) for c in info])
    llr = (2.0 * d - 1.0) * 4.0
    res = turbo_decode(llr, 8, crc="24B")
    assert res.crc_ok.all()
    assert (res.iterations == 1).all()
    assert np.array_equal(res.bits, info)


def test_ber_at_1p2_db_k6144() -> None:
    pt = simulate_point(6144, 1.2, 200, iters=8, seed=1)
    assert pt.ber < 1e-4


@pytest.mark.slow
def test_fixed_within_0p2_db_of_float() -> None:
    # BER of the bit-true decoder at x dB must not exceed the float decoder's at x - 0.2 dB;
    # x = 0.6 dB sits in the waterfall for K = 6144 so both sides have measurable errors.
    n = 300
    fixed = simulate_point(6144, 0.6, n, fixed=True, seed=2)
    flt = simulate_point(6144, 0.4, n, fixed=False, seed=3)
    assert flt.bit_errors > 100
    assert fixed.ber <= flt.ber
    assert fixed.fer <= flt.fer


def _py_siso(ls: list[int], lp: list[int], la: list[int]) -> list[int]:
    """Integer max-log-MAP of one RSC (g0 = 1+D^2+D^3, g1 = 1+D+D^3), written from scratch."""
    sm, ext = STATE_METRIC.max_raw, EXTRINSIC.max_raw

    def sat(v: int, m: int) -> int:
        return max(-m, min(m, v))

    def step(s: int, u: int) -> tuple[int, int]:
        s1, s2, s3 = s >> 2 & 1, s >> 1 & 1, s & 1
        a = u ^ s2 ^ s3
        return (a << 2) | (s1 << 1) | s2, a ^ s1 ^ s3

    n = len(ls)
    alpha = [[-sm] * 8 for _ in range(n + 1)]
    alpha[0][0] = 0
    for k in range(n):
        nxt = [None] * 8
        for s in range(8):
            for u in (0, 1):
                ns, p = step(s, u)
                v = alpha[k][s] + u * (ls[k] + la[k]) + p * lp[k]
                nxt[ns] = v if nxt[ns] is None else max(nxt[ns], v)
        alpha[k + 1] = [sat(v - nxt[0], sm) for v in nxt]
    beta = [-sm] * 8
    beta[0] = 0
    le = [0] * n
    for k in range(n - 1, -1, -1):
        best = {0: None, 1: None}
        nb = [0] * 8
        for s in range(8):
            cand = []
            for u in (0, 1):
                ns, p = step(s, u)
                pm = alpha[k][s] + p * lp[k] + beta[ns]
                best[u] = pm if best[u] is None else max(best[u], pm)
                cand.append(beta[ns] + u * (ls[k] + la[k]) + p * lp[k])
            nb[s] = max(cand)
        le[k] = sat(best[1] - best[0], ext)
        beta = [sat(v - nb[0], sm) for v in nb]
    return le


def _py_turbo(d: np.ndarray, iters: int) -> tuple[list[int], list[int]]:
    k = d.shape[1] - 4
    d = [[max(-LLR.max_raw, min(LLR.max_raw, int(v))) for v in row] for row in d]
    t = [row[k:] for row in d]
    perm = qpp_permutation(k).tolist()
    ls1 = [*d[0][:k], t[0][0], t[2][0], t[1][1]]
    lp1 = [*d[1][:k], t[1][0], t[0][1], t[2][1]]
    ls2 = [d[0][i] for i in perm] + [t[0][2], t[2][2], t[1][3]]
    lp2 = [*d[2][:k], t[1][2], t[0][3], t[2][3]]
    la1 = [0] * (k + 3)
    app = [0] * k
    for _ in range(iters):
        le1 = _py_siso(ls1, lp1, la1)
        la2 = [le1[perm[i]] - (le1[perm[i]] >> 2) for i in range(k)] + [0, 0, 0]
        le2 = _py_siso(ls2, lp2, la2)
        app_i = [
            max(-APP_LLR.max_raw, min(APP_LLR.max_raw, ls2[i] + la2[i] + le2[i])) for i in range(k)
        ]
        la1 = [0] * (k + 3)
        for i in range(k):
            la1[perm[i]] = le2[i] - (le2[i] >> 2)
            app[perm[i]] = app_i[i]
    return [int(v > 0) for v in app], app


# K + 3 trellis steps cover 1 to 7 windows of recomputed forward metrics with every remainder
# a QPP size can leave (K = 40, 56, 64, 208: 11, 27, 3, 19 steps in the last window).
@pytest.mark.parametrize(("k", "ebn0"), [(40, 0.0), (56, 0.8), (64, 1.0), (208, 0.5), (40, 8.0)])
def test_fixed_decoder_is_integer_exact(k: int, ebn0: float) -> None:
    rng = np.random.default_rng(k)
    _, llr = channel_llrs(k, ebn0, 3, rng)
    raw = quantise(llr * 3, LLR)  # also exercises input saturation
    res = turbo_decode(raw, 4, fixed=True)
    for b in range(3):
        bits, app = _py_turbo(raw[b], 4)
        assert res.bits[b].tolist() == bits
        assert res.llr[b].tolist() == app


@pytest.mark.parametrize("fixed", [False, True])
def test_vectorised_batch_matches_single_blocks(fixed: bool) -> None:
    # A full batch runs the SIMD loops, a single block the scalar ones: the integer decoder must
    # agree bit for bit, the float one to rounding.
    k, n = 208, 32
    _, llr = channel_llrs(k, 0.5, n, np.random.default_rng(5))
    data = quantise(llr, LLR) if fixed else llr
    batch = turbo_decode(data, 4, fixed=fixed)
    for b in (0, 13, 31):
        one = turbo_decode(data[b], 4, fixed=fixed)
        assert np.array_equal(one.bits[0], batch.bits[b])
        if fixed:
            assert np.array_equal(one.llr[0], batch.llr[b])
        else:
            np.testing.assert_allclose(one.llr[0], batch.llr[b], rtol=0, atol=1e-3)


@pytest.mark.parametrize("fixed", [False, True])
def test_filler_bits_known_zero(fixed: bool, rng: np.random.Generator) -> None:
    k, f = 1056, 24
    info = rng.integers(0, 2, (2, k)).astype(np.uint8)
    info[:, :f] = 0
    d = np.stack([turbo_encode(c) for c in info]).astype(float)
    llr = (2 * d - 1) * (8 if fixed else 2.0)
    llr[:, 0:2, :f] = 0  # <NULL> positions come out of the dematcher as erasures
    llr[:, 2, ::3] = 0  # and puncture some parity so the filler knowledge matters
    res = turbo_decode(llr.astype(int) if fixed else llr, 8, n_filler=f, fixed=fixed)
    assert np.array_equal(res.bits, info)
