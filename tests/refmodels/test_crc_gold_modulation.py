"""CRC (36.212 5.1.1), Gold sequence (36.211 7.2) and modulation (36.211 7.1) against py3gpp."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from py3gpp import nrCRCEncode, nrPRBS, nrSymbolModulate

from silicon_agent.refmodels.crc import crc_attach, crc_check, crc_check_batch
from silicon_agent.refmodels.gold import gold_sequence
from silicon_agent.refmodels.modulation import modulate
from silicon_agent.refmodels.scrambling import pdsch_c_init, scramble


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 700),
    seed=st.integers(0, 2**32 - 1),
    name=st.sampled_from(["24A", "24B", "16"]),
)
def test_crc_matches_py3gpp(n: int, seed: int, name: str) -> None:
    bits = np.random.default_rng(seed).integers(0, 2, n).astype(np.uint8)
    ref = np.asarray(nrCRCEncode(bits.reshape(-1, 1).astype(np.int64), name)).ravel()
    assert np.array_equal(crc_attach(bits, name), ref.astype(np.uint8))


@pytest.mark.parametrize("name", ["24A", "24B", "16", "8"])
def test_crc_detects_single_bit_errors(name: str, rng: np.random.Generator) -> None:
    blk = crc_attach(rng.integers(0, 2, 500).astype(np.uint8), name)
    assert crc_check(blk, name)
    batch = np.repeat(blk[None], 64, axis=0)
    flips = rng.choice(blk.size, 64, replace=False)
    batch[np.arange(64), flips] ^= 1
    assert not crc_check_batch(batch, name).any()
    assert crc_check_batch(blk[None], name).all()


@pytest.mark.parametrize("c_init", [0, 1, 0x1234, 2**31 - 1, pdsch_c_init(0xFFFF, 503, 9, 1)])
def test_gold_matches_py3gpp(c_init: int) -> None:
    ref = np.asarray(nrPRBS(c_init, 3000)).astype(np.uint8)
    assert np.array_equal(gold_sequence(c_init, 3000), ref)


def test_scrambling_is_an_involution(rng: np.random.Generator) -> None:
    b = rng.integers(0, 2, 999).astype(np.uint8)
    c_init = pdsch_c_init(61, 17, 3)
    s = scramble(b, c_init)
    assert not np.array_equal(s, b)
    assert np.array_equal(scramble(s, c_init), b)


@pytest.mark.parametrize(("name", "qm"), [("QPSK", 2), ("16QAM", 4), ("64QAM", 6)])
def test_modulation_matches_py3gpp(name: str, qm: int, rng: np.random.Generator) -> None:
    # Every constellation point at least once, then random symbols.
    allpts = ((np.arange(2**qm)[:, None] >> np.arange(qm - 1, -1, -1)) & 1).reshape(-1)
    bits = np.concatenate([allpts, rng.integers(0, 2, qm * 200)]).astype(np.int64)
    ref = np.asarray(nrSymbolModulate(bits, name)).ravel()
    got = modulate(bits.astype(np.uint8), name)
    np.testing.assert_allclose(got, ref, atol=1e-12)
    assert np.isclose(np.mean(np.abs(modulate(allpts.astype(np.uint8), name)) ** 2), 1.0)
