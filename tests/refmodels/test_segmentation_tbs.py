"""Segmentation (36.212 5.1.2) against the 3GPP reference channels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from silicon_agent.refmodels.crc import crc_check
from silicon_agent.refmodels.qpp_table import VALID_K
from silicon_agent.refmodels.segmentation import desegment, segment, segmentation_params


# (TBS, C, coded block size 3K+12) from the fixed reference channels of TS 36.104 A.1 / A.13 and
# TS 36.101 (R.2, R.31-1).
@pytest.mark.parametrize(
    ("tbs", "c", "k"),
    [
        (600, 1, 624),
        (1544, 1, 1568),
        (2216, 1, 2240),
        (256, 1, 280),
        (1736, 1, 1760),
        (4264, 1, 4288),
        (7224, 2, 3648),
        (14112, 3, 4736),
        (21384, 4, 5376),
        (28336, 5, 5696),
        (4392, 1, 4416),
        (10296, 2, 5184),
    ],
)
def test_reference_channel_segmentation(tbs: int, c: int, k: int) -> None:
    seg = segmentation_params(tbs + 24)
    assert c == seg.C
    assert seg.K_plus == k
    # Fixed reference channels are chosen filler-free with equal block sizes.
    assert seg.F == 0 and seg.C_minus == 0


@settings(max_examples=60, deadline=None)
@given(b=st.integers(40, 4 * 6144 + 500))
def test_segmentation_properties(b: int) -> None:
    seg = segmentation_params(b)
    sizes = seg.block_sizes()
    assert all(k in VALID_K for k in sizes)
    assert sum(sizes) == b + seg.C * seg.L + seg.F
    assert 0 <= seg.F < 64
    assert (24 if seg.C > 1 else 0) == seg.L
    if seg.C > 1:
        assert seg.K_minus < seg.K_plus or seg.C_minus == 0


@settings(max_examples=20, deadline=None)
@given(b=st.integers(6000, 20000), seed=st.integers(0, 2**31))
def test_segment_roundtrip_and_crc(b: int, seed: int) -> None:
    bits = np.random.default_rng(seed).integers(0, 2, b).astype(np.uint8)
    blocks, seg = segment(bits)
    assert [blk.size for blk in blocks] == seg.block_sizes()
    assert not blocks[0][: seg.F].any()
    if seg.C > 1:
        assert all(crc_check(blk, "24B") for blk in blocks)
    assert np.array_equal(desegment(blocks, seg), bits)
