"""What every multi-subframe HARQ sequence must hold, at the back end and at the top."""

from __future__ import annotations

from typing import Protocol

from silicon_agent.refmodels.harq_sequence import SubframeDci
from silicon_agent.refmodels.tbs import tbs_for_mcs
from silicon_agent.refmodels.ue_category import CAT1


class HarqMix(Protocol):
    n_subframes: int
    processes_retransmitting: int
    combined_rescues: int
    dcis: list[SubframeDci]


def assert_cat1_harq_mix(seq: HarqMix) -> None:
    assert seq.n_subframes >= 10
    assert seq.processes_retransmitting >= 3
    # Each retransmitted block's first transmission failed its CRC on its own, and its
    # retransmission decodes only combined with it.
    assert seq.combined_rescues >= 3
    dcis = seq.dcis
    assert len({d.i_mcs for d in dcis}) >= 4 and len({d.n_prb for d in dcis}) >= 3
    assert len({d.rnti for d in dcis}) >= 4 and len({d.process for d in dcis}) >= 4
    for d in dcis:
        assert d.tbs == tbs_for_mcs(d.i_mcs, d.n_prb, CAT1)  # from the table, within Cat-1
    # A process reused for new data toggles its NDI.
    seen: dict[int, int] = {}
    toggles = 0
    for d in dcis:
        toggles += int(d.process in seen and seen[d.process] != d.ndi)
        seen[d.process] = d.ndi
    assert toggles >= 1
