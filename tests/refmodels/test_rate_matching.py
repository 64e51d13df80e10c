"""Rate matching (36.212 5.1.4.1) against a literal transcription of the clause, and the
dematcher as its soft inverse."""

from __future__ import annotations

import math

import numpy as np
import pytest

from silicon_agent.refmodels.rate_dematcher import rate_dematch, rate_dematch_fixed
from silicon_agent.refmodels.rate_matching import (
    circular_buffer,
    code_block_e,
    k_pi,
    n_cb,
    n_ir_bits,
    rate_match,
)
from silicon_agent.refmodels.turbo_encoder import turbo_encode

NULL = -1
# Table 5.1.4-1 is the 5-bit bit-reversal permutation: derived here, not copied, so the
# oracle does not share the model's typed-in table.
P = [int(f"{i:05b}"[::-1], 2) for i in range(32)]


def literal_rate_match(d: list[list[int]], e: int, rv: int, ncb: int) -> list[int]:
    """Step-by-step 5.1.4.1.1 / 5.1.4.1.2 with explicit matrices and <NULL> markers."""
    dlen = len(d[0])
    r_sub = math.ceil(dlen / 32)
    nd = r_sub * 32 - dlen
    kpi = r_sub * 32
    v = []
    for i in (0, 1):
        y = [NULL] * nd + d[i]
        mat = [y[r * 32 : (r + 1) * 32] for r in range(r_sub)]
        perm = [[row[P[j]] for j in range(32)] for row in mat]
        v.append([perm[r][j] for j in range(32) for r in range(r_sub)])
    y2 = [NULL] * nd + d[2]
    v.append([y2[(P[k // r_sub] + 32 * (k % r_sub) + 1) % kpi] for k in range(kpi)])
    w = v[0] + [x for pair in zip(v[1], v[2], strict=True) for x in pair]
    k0 = r_sub * (2 * math.ceil(ncb / (8 * r_sub)) * rv + 2)
    out: list[int] = []
    j = 0
    while len(out) < e:
        x = w[(k0 + j) % ncb]
        if x != NULL:
            out.append(x)
        j += 1
    return out


def _encoded_with_null(k: int, f: int, rng: np.random.Generator) -> tuple[np.ndarray, list]:
    c = rng.integers(0, 2, k).astype(np.uint8)
    c[:f] = 0
    d = turbo_encode(c)
    marked = [list(map(int, row)) for row in d]
    for i in (0, 1):
        marked[i][:f] = [NULL] * f
    return d, marked


@pytest.mark.parametrize("rv", [0, 1, 2, 3])
@pytest.mark.parametrize(
    ("k", "f", "e", "c"),
    [
        (40, 0, 132, 1),
        (40, 0, 500, 1),  # E > K_w: several wrap-arounds
        (4416, 0, 13800, 1),  # R.2
        (5184, 0, 13050, 2),  # R.31-1: N_cb == K_w exactly
        (6144, 0, 20000, 2),  # N_cb < K_w: limited buffer, wraps inside N_cb
        (1056, 32, 3000, 1),  # filler bits
        (512, 8, 6000, 3),
    ],
)
def test_rate_matching_matches_literal(
    k: int, f: int, e: int, c: int, rv: int, rng: np.random.Generator
) -> None:
    d, marked = _encoded_with_null(k, f, rng)
    ncb = n_cb(k, c)
    got = rate_match(d, f, e, rv, ncb)
    assert got.tolist() == literal_rate_match(marked, e, rv, ncb)


def test_soft_buffer_size() -> None:
    assert n_ir_bits() == 250368 // 8
    assert n_cb(6144, 1) == 3 * k_pi(6144)
    assert n_cb(6144, 2) == 31296 // 2 < 3 * k_pi(6144)


def test_code_block_e_sums_to_g() -> None:
    for g, c, qm in [(13800, 1, 2), (26100, 2, 6), (28800, 3, 4), (12960, 1, 2), (7194, 5, 6)]:
        es = [code_block_e(g, c, r, qm) for r in range(c)]
        assert sum(es) == g
        assert all(x % qm == 0 for x in es)
        assert max(es) - min(es) <= qm
    assert [code_block_e(26100, 2, r, 6) for r in range(2)] == [13050, 13050]


def test_buffer_has_every_coded_bit_once() -> None:
    k, f = 1024, 16
    w = circular_buffer(k, f)
    valid = w[w >= 0]
    assert valid.size == 3 * (k + 4) - 2 * f
    assert np.unique(valid).size == valid.size


@pytest.mark.parametrize("rv", [0, 2])
def test_dematch_combines_repetitions(rv: int, rng: np.random.Generator) -> None:
    k, f, e = 40, 0, 700
    ncb = n_cb(k, 1)
    d = turbo_encode(rng.integers(0, 2, k).astype(np.uint8))
    tx = rate_match(d, f, e, rv, ncb)
    bipolar = 2.0 * tx - 1.0
    soft = rate_dematch(bipolar, k, f, rv, ncb)
    # Every coded bit is received ceil/floor(E / 132) times with the right sign.
    counts = rate_dematch(np.ones(e), k, f, rv, ncb)
    assert set(np.unique(counts)) <= {e // 132, e // 132 + 1}
    np.testing.assert_array_equal(np.sign(soft), 2.0 * d - 1.0)
    np.testing.assert_array_equal(np.abs(soft), counts)


def test_dematch_zero_for_punctured_and_fixed_saturates(rng: np.random.Generator) -> None:
    k, e = 6144, 6000
    ncb = n_cb(k, 1)
    soft = rate_dematch(np.ones(e), k, 0, 0, ncb)
    assert (soft == 0).sum() == 3 * (k + 4) - e
    big = np.full(40 * 132 // 10, 100)
    fx = rate_dematch_fixed(big, 40, 0, 0, n_cb(40, 1))
    assert fx.max() == 127
    fl = rate_dematch(big.astype(float), 40, 0, 0, n_cb(40, 1))
    np.testing.assert_array_equal(fx, np.clip(fl, -127, 127))
