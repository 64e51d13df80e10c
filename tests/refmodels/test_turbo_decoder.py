"""Turbo decoder (36.212 5.1.3.2 inverse): noiseless decoding, BER targets, fixed vs float, and
the integer decoder against an independent plain-Python transcription of its RTL contract."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from silicon_agent.refmodels import native
from silicon_agent.refmodels.ber import channel_llrs, simulate_point
from silicon_agent.refmodels.crc import crc_attach
from silicon_agent.refmodels.fixed_point import APP_LLR, EXTRINSIC, LLR, STATE_METRIC, quantise
from silicon_agent.refmodels.native import NativeBuildError
from silicon_agent.refmodels.qpp_table import qpp_permutation
from silicon_agent.refmodels.turbo_decoder import siso_count, turbo_decode
from silicon_agent.refmodels.turbo_encoder import turbo_encode


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


def _py_siso(
    ls: list[int],
    lp: list[int],
    la: list[int],
    a0: list[int] | None = None,
    b0: list[int] | None = None,
) -> tuple[list[int], list[int], list[int]]:
    """Integer max-log-MAP of one RSC (g0 = 1+D^2+D^3, g1 = 1+D+D^3), written from scratch.

    Starts from alpha ``a0`` and beta ``b0`` (default: the known state 0) and returns the
    extrinsics with the last alpha and the first beta."""
    sm, ext = STATE_METRIC.max_raw, EXTRINSIC.max_raw
    known = [0] + [-sm] * 7

    def sat(v: int, m: int) -> int:
        return max(-m, min(m, v))

    def step(s: int, u: int) -> tuple[int, int]:
        s1, s2, s3 = s >> 2 & 1, s >> 1 & 1, s & 1
        a = u ^ s2 ^ s3
        return (a << 2) | (s1 << 1) | s2, a ^ s1 ^ s3

    n = len(ls)
    alpha = [[-sm] * 8 for _ in range(n + 1)]
    alpha[0] = list(a0 or known)
    for k in range(n):
        nxt = [None] * 8
        for s in range(8):
            for u in (0, 1):
                ns, p = step(s, u)
                v = alpha[k][s] + u * (ls[k] + la[k]) + p * lp[k]
                nxt[ns] = v if nxt[ns] is None else max(nxt[ns], v)
        alpha[k + 1] = [sat(v - nxt[0], sm) for v in nxt]
    beta = list(b0 or known)
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
    return le, alpha[n], beta


def _py_parallel(
    ls: list[int], lp: list[int], la: list[int], p: int, bnd: list[list[list[int]]]
) -> list[int]:
    """P sub-blocks of K / P steps (the last with the tail), each started from the boundary
    metrics its neighbours left in ``bnd`` = [alphas, betas] the previous time (all 0 at first;
    the block's own ends from the known state), which are then replaced."""
    m = (len(ls) - 3) // p
    le: list[int] = []
    alphas, betas = list(bnd[0]), list(bnd[1])
    for q in range(p):
        lo, hi = q * m, (q + 1) * m if q < p - 1 else len(ls)
        a0 = None if q == 0 else bnd[0][q]
        b0 = None if q == p - 1 else bnd[1][q]
        part, a_end, b_start = _py_siso(ls[lo:hi], lp[lo:hi], la[lo:hi], a0, b0)
        le += part
        if q + 1 < p:
            alphas[q + 1] = a_end
        if q > 0:
            betas[q - 1] = b_start
    bnd[0], bnd[1] = alphas, betas
    return le


def _py_turbo(d: np.ndarray, iters: int, p: int = 1) -> tuple[list[int], list[int]]:
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
    bnd1 = [[[0] * 8] * p, [[0] * 8] * p]
    bnd2 = [[[0] * 8] * p, [[0] * 8] * p]
    for _ in range(iters):
        le1 = _py_parallel(ls1, lp1, la1, p, bnd1)
        la2 = [le1[perm[i]] - (le1[perm[i]] >> 2) for i in range(k)] + [0, 0, 0]
        le2 = _py_parallel(ls2, lp2, la2, p, bnd2)
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
    res = turbo_decode(raw, 4, fixed=True, siso=1)
    for b in range(3):
        bits, app = _py_turbo(raw[b], 4)
        assert res.bits[b].tolist() == bits
        assert res.llr[b].tolist() == app


# The parallel-SISO schedule: P = 2 ... 32 sub-blocks, short enough (M = 8..32) that the boundary
# metrics handed over between iterations matter, at SNRs where the decoder has not converged.
@pytest.mark.parametrize(("k", "p", "ebn0"), [(64, 2, 0.5), (128, 4, 0.0), (256, 8, 1.0),
                                              (64, 8, 0.0), (208, 2, 8.0), (512, 16, 0.5),
                                              (1024, 32, 0.5)])  # fmt: skip
def test_parallel_siso_decoder_is_integer_exact(k: int, p: int, ebn0: float) -> None:
    rng = np.random.default_rng(k + p)
    _, llr = channel_llrs(k, ebn0, 2, rng)
    raw = quantise(llr * 3, LLR)
    res = turbo_decode(raw, 4, fixed=True, siso=p)
    for b in range(2):
        bits, app = _py_turbo(raw[b], 4, p)
        assert res.llr[b].tolist() == app
        assert res.bits[b].tolist() == bits
    # Below saturation the sub-block split shows: the full-length decoder differs somewhere.
    full = turbo_decode(raw, 4, fixed=True, siso=1)
    assert ebn0 > 5 or not np.array_equal(full.llr, res.llr)


def test_siso_count_rule() -> None:
    ks = (40, 56, 64, 120, 128, 248, 256, 504, 512, 528, 1008, 1024, 1056, 6144)
    assert [siso_count(k) for k in ks] == [
        1, 1, 2, 2, 4, 4, 8, 8, 16, 16, 16, 32, 32, 32,
    ]  # fmt: skip
    assert siso_count(6144, 8) == 8
    for k in (40, 64, 512, 1056, 6144):
        p = siso_count(k)
        assert k % p == 0 and k // p >= 32


@pytest.mark.parametrize("fixed", [False, True])
def test_vectorised_batch_matches_single_blocks(fixed: bool) -> None:
    # Every block has a SIMD lane of its own: a block decodes bit for bit the same alone, in a
    # full batch, at any lane, and split across batches, float and integer alike.
    k, n = 208, 40
    _, llr = channel_llrs(k, 0.5, n, np.random.default_rng(5))
    data = quantise(llr, LLR) if fixed else llr
    batch = turbo_decode(data, 4, fixed=fixed)
    for b in (0, 13, 31, 39):
        one = turbo_decode(data[b], 4, fixed=fixed)
        assert np.array_equal(one.bits[0], batch.bits[b])
        assert np.array_equal(one.llr[0], batch.llr[b])


@pytest.mark.parametrize("fixed", [False, True])
def test_early_stop_in_a_batch_matches_single_blocks(fixed: bool) -> None:
    # Blocks leave the batch as their CRC passes (whole vectors of lanes stop running once none
    # of their blocks is left): each block's result is still the one it gets decoded alone.
    k, n = 208, 40
    rng = np.random.default_rng(11)
    info = np.stack(
        [crc_attach(rng.integers(0, 2, k - 24).astype(np.uint8), "24B") for _ in range(n)]
    )
    d = np.stack([turbo_encode(c) for c in info])
    snr = np.linspace(-2.0, 6.0, n)[:, None, None]  # from never passing to passing at once
    sigma = 10 ** (-snr / 20)
    llr = 2.0 * ((2.0 * d - 1.0) + rng.normal(0.0, 1.0, d.shape) * sigma) / sigma**2
    data = quantise(llr, LLR) if fixed else llr
    batch = turbo_decode(data, 8, crc="24B", fixed=fixed)
    assert len(set(batch.iterations.tolist())) >= 3
    for b in range(n):
        one = turbo_decode(data[b], 8, crc="24B", fixed=fixed)
        assert one.iterations[0] == batch.iterations[b]
        assert np.array_equal(one.bits[0], batch.bits[b])
        assert np.array_equal(one.llr[0], batch.llr[b])


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


_DECODE = """
import hashlib, sys
import numpy as np
from silicon_agent.refmodels.ber import channel_llrs
from silicon_agent.refmodels.fixed_point import LLR, quantise
from silicon_agent.refmodels.turbo_decoder import turbo_decode
_, llr = channel_llrs(104, 0.5, 3, np.random.default_rng(9))
out = [turbo_decode(llr, 4).llr, turbo_decode(quantise(llr, LLR), 4, fixed=True).llr]
print(hashlib.sha256(b"".join(o.tobytes() for o in out)).hexdigest())
"""


def _decode_in_fresh_process(cwd: Path, cache: Path, **env: str) -> subprocess.CompletedProcess:
    """Decode in a new interpreter started in ``cwd`` (outside the checkout) with its kernel
    cache in ``cache``."""
    full = {**os.environ, "XDG_CACHE_HOME": str(cache), **env}
    return subprocess.run(
        [sys.executable, "-c", _DECODE], cwd=cwd, env=full, capture_output=True, text=True
    )


def _expected_digest() -> str:
    _, llr = channel_llrs(104, 0.5, 3, np.random.default_rng(9))
    out = [turbo_decode(llr, 4).llr, turbo_decode(quantise(llr, LLR), 4, fixed=True).llr]
    return hashlib.sha256(b"".join(o.tobytes() for o in out)).hexdigest()


def test_kernel_compiles_into_a_fresh_cache_and_a_corrupt_one_is_rebuilt(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    work = tmp_path / "work"
    work.mkdir()
    first = _decode_in_fresh_process(work, cache)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == _expected_digest()
    built = sorted((cache / "silicon-agent" / "kernels").glob("turbo_kernel-*.so"))
    assert len(built) == 1
    assert (
        built[0].with_suffix(".sha256").read_text().strip()
        == hashlib.sha256(built[0].read_bytes()).hexdigest()
    )
    assert not list(work.iterdir())  # nothing written where the user works
    # A torn or corrupt cached object (here: its middle overwritten) is rebuilt, not loaded.
    good = built[0].read_bytes()
    built[0].write_bytes(good[:1000] + b"\0" * 4096 + good[5096:])
    again = _decode_in_fresh_process(work, cache)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == first.stdout.strip()
    assert built[0].read_bytes() != good[:1000] + b"\0" * 4096 + good[5096:]
    assert (
        built[0].with_suffix(".sha256").read_text().strip()
        == hashlib.sha256(built[0].read_bytes()).hexdigest()
    )


def test_missing_compiler_is_one_clear_error(tmp_path: Path) -> None:
    res = _decode_in_fresh_process(tmp_path, tmp_path / "cache", CXX="no-such-c++-compiler")
    assert res.returncode != 0
    assert "NativeBuildError" in res.stderr
    assert "CXX='no-such-c++-compiler' is not an executable on PATH" in res.stderr


def test_compile_error_names_the_compiler_output(tmp_path: Path) -> None:
    bad = tmp_path / "broken_kernel.cpp"
    bad.write_text("int f( { return 0; }\n")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        with pytest.raises(NativeBuildError, match="failed to compile broken_kernel.cpp"):
            native.load(bad)
    assert not list((tmp_path / "cache" / "silicon-agent" / "kernels").iterdir())


def test_cli_without_a_compiler_says_so_in_one_line(tmp_path: Path) -> None:
    # As a user types it, from a folder outside the checkout: the receiver's first decode needs
    # the kernel, and a missing compiler is one line naming what to install, not a traceback.
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "CXX": "no-such-c++-compiler",
    }
    res = subprocess.run(
        [sys.executable, "-m", "silicon_agent.refmodels", "e2e", "--rc", "R.2"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    assert res.stderr.strip().splitlines() == [
        "error: CXX='no-such-c++-compiler' is not an executable on PATH"
    ]


def test_unwritable_kernel_cache_is_one_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(blocker))
        with pytest.raises(NativeBuildError, match="set XDG_CACHE_HOME to a writable folder"):
            native.load(Path(native.__file__).with_name("turbo_kernel.cpp"))
