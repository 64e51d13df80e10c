"""The downlink HARQ entity (refmodels/harq.py) and the seeded subframe sequence
(refmodels/harq_sequence.py): process selection, NDI semantics, Cat-1 soft-buffer sizing."""

from __future__ import annotations

import numpy as np
import pytest

from silicon_agent.refmodels.dl_sch_encoder import encode_dl_sch
from silicon_agent.refmodels.dl_sch_processor import dematch_blocks
from silicon_agent.refmodels.harq import HarqEntity, soft_words_per_process, tb_soft_words
from silicon_agent.refmodels.harq_sequence import schedule
from silicon_agent.refmodels.tbs import tbs_for_mcs
from silicon_agent.refmodels.ue_category import CAT1, CapabilityError, UeCategory


def _llr(tbs: int, g: int, rv: int, seed: int, sigma: float = 30.0) -> tuple[np.ndarray, object]:
    rng = np.random.default_rng(seed)
    tb = np.random.default_rng(tbs).integers(0, 2, tbs).astype(np.uint8)
    f, plan = encode_dl_sch(tb, g, 2, rv=rv)
    llr = np.clip(np.round((2.0 * f - 1) * 20 + rng.normal(0, sigma, g)), -127, 127)
    return llr.astype(np.int64), plan


def test_cat1_soft_buffers_fit_the_category() -> None:
    words = soft_words_per_process(CAT1)
    # Two code blocks of K = 5184 (a 10296-bit transport block), 4 tail positions each.
    assert words == 2 * (5184 + 4) == tb_soft_words(10296)
    assert 3 * words * CAT1.harq_processes <= CAT1.total_soft_channel_bits
    small = UeCategory(
        name="tiny",
        max_dl_sch_bits_per_tti=10296,
        max_dl_sch_tb_bits=10296,
        total_soft_channel_bits=100000,
        max_layers=1,
    )
    with pytest.raises(CapabilityError, match="100000"):
        soft_words_per_process(small)


def test_ndi_decides_new_data_or_combining() -> None:
    harq = HarqEntity()
    llr1, plan1 = _llr(1000, 3000, 0, seed=1)
    llr2, plan2 = _llr(1000, 3000, 2, seed=2)
    first = harq.receive(5, 1, llr1, plan1, 4)
    assert first.new_data and harq.is_new(5, 0) and not harq.is_new(5, 1)
    again = harq.receive(5, 1, llr2, plan2, 4)
    assert not again.new_data
    alone = dematch_blocks(llr2, plan2, fixed=True)
    combined = dematch_blocks(
        llr2, plan2, fixed=True, combine_with=dematch_blocks(llr1, plan1, True)
    )
    stored = harq._soft[5]
    assert stored is not None
    assert all(np.array_equal(s, c) for s, c in zip(stored, combined, strict=True))
    assert not all(np.array_equal(s, a) for s, a in zip(stored, alone, strict=True))
    # NDI toggled: the buffers start afresh.
    fresh = harq.receive(5, 0, llr2, plan2, 4)
    assert fresh.new_data
    assert all(np.array_equal(s, a) for s, a in zip(harq._soft[5] or [], alone, strict=True))


def test_processes_keep_their_own_buffers() -> None:
    llr1, plan1 = _llr(1000, 3000, 0, seed=1)
    llr2, plan2 = _llr(1000, 3000, 2, seed=2)
    other, plan_o = _llr(600, 2000, 0, seed=3)
    # Either transmission alone fails ...
    assert not HarqEntity().receive(2, 1, llr1, plan1, 8).result.tb_crc_ok
    assert not HarqEntity().receive(2, 1, llr2, plan2, 8).result.tb_crc_ok
    # ... combined in process 2's own buffers they decode, with process 6 used in between.
    harq = HarqEntity()
    harq.receive(2, 1, llr1, plan1, 4)
    harq.receive(6, 0, other, plan_o, 4)
    retx = harq.receive(2, 1, llr2, plan2, 8)
    assert not retx.new_data and retx.result.tb_crc_ok
    with pytest.raises(ValueError, match="outside 0..7"):
        harq.receive(8, 0, llr1, plan1, 4)
    with pytest.raises(ValueError, match="code blocks"):
        harq.receive(6, 0, *_llr(8000, 12000, 2, seed=4), 4)


def test_sequence_is_seeded_and_within_cat1() -> None:
    a, b, c = schedule(7), schedule(7), schedule(8)
    assert a == b and a != c
    for d in a:
        assert d.tbs == tbs_for_mcs(d.i_mcs, d.n_prb, CAT1)
        assert 0 <= d.process < CAT1.harq_processes and d.rb_start + d.n_prb <= 50
    retx = [d for d in a if d.rv != 0]
    assert len({d.process for d in retx}) >= 3
