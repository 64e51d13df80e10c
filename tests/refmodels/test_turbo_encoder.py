"""Turbo encoder and QPP table (36.212 5.1.3.2, Table 5.1.3-3) against sionna-no-rt."""

from __future__ import annotations

import numpy as np
import pytest

from silicon_agent.refmodels.qpp_table import QPP_TABLE, VALID_K, qpp_permutation
from silicon_agent.refmodels.turbo_encoder import turbo_encode


def test_table_shape_and_k_grid() -> None:
    # 36.212 5.1.3.2.3: K steps by 8 to 512, 16 to 1024, 32 to 2048, 64 to 6144.
    expected = (
        list(range(40, 513, 8))
        + list(range(528, 1025, 16))
        + list(range(1056, 2049, 32))
        + list(range(2112, 6145, 64))
    )
    assert len(QPP_TABLE) == 188
    assert list(VALID_K) == expected


@pytest.mark.parametrize("k", VALID_K)
def test_qpp_is_a_permutation(k: int) -> None:
    perm = qpp_permutation(k)
    assert np.array_equal(np.sort(perm), np.arange(k))


def test_qpp_table_matches_sionna() -> None:
    from sionna.phy.fec.interleaving import Turbo3GPPInterleaver

    other = Turbo3GPPInterleaver().coeffs_dict
    assert {k: (f1, f2) for k, f1, f2 in QPP_TABLE} == {k: other[k] for k in VALID_K}


def test_encoder_is_linear_and_terminates(rng: np.random.Generator) -> None:
    k = 1024
    a = rng.integers(0, 2, k).astype(np.uint8)
    b = rng.integers(0, 2, k).astype(np.uint8)
    assert np.array_equal(turbo_encode(a) ^ turbo_encode(b), turbo_encode(a ^ b))
    assert not turbo_encode(np.zeros(k, np.uint8)).any()


@pytest.mark.slow
def test_encoder_matches_sionna_all_188_sizes(rng: np.random.Generator) -> None:
    import torch
    from sionna.phy.fec.turbo import TurboEncoder

    enc = TurboEncoder(constraint_length=4, rate=1 / 3, terminate=True, interleaver_type="3GPP")
    for k in VALID_K:
        c = rng.integers(0, 2, (2, k)).astype(np.float32)
        out = enc(torch.tensor(c)).numpy()
        for i in range(2):
            ref = out[i].reshape(k + 4, 3).T.astype(np.uint8)
            assert np.array_equal(turbo_encode(c[i].astype(np.uint8)), ref), f"K={k}"
