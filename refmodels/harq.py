"""Downlink HARQ entity of an FDD UE (TS 36.321 5.3.2): eight HARQ processes, each with its own
soft buffers, selected by the HARQ process number of the DCI; the new data indicator decides
whether a transmission replaces the process's soft buffers (new data) or combines into them (a
retransmission, any redundancy version).

The soft buffers hold what the receiver's rate dematcher holds: the three soft d streams,
3 (K_r + 4) LLRs, of every code block r of the process's transport block, packed one after the
other. `soft_words_per_process` sizes them for the UE category (TS 36.306 Table 4.1-1)."""

from __future__ import annotations

from functools import cache

import numpy as np
from pydantic import BaseModel

from silicon_agent.refmodels.dl_sch_encoder import DlSchPlan
from silicon_agent.refmodels.dl_sch_processor import DlSchResult, decode_soft_blocks, dematch_blocks
from silicon_agent.refmodels.segmentation import segmentation_params
from silicon_agent.refmodels.tbs import table
from silicon_agent.refmodels.ue_category import CAT1, CapabilityError, UeCategory, check_soft_bits


def tb_soft_words(tbs: int) -> int:
    """Words one soft d stream of a transport block of ``tbs`` bits needs: sum of K_r + 4 over
    its code blocks (TS 36.212 5.1.2, 5.1.3.2)."""
    seg = segmentation_params(tbs + 24)
    return sum(k + 4 for k in seg.block_sizes())


@cache
def soft_words_per_process(category: UeCategory = CAT1) -> int:
    """Words per soft d stream of one HARQ process: the largest transport block of the TBS table
    (TS 36.213 Table 7.1.7.2.1-1) the category receives. Refused when the processes' soft bits
    (3 streams) exceed the category's total soft channel bits."""
    sizes = {s for row in table().tbs.values() for s in row if s <= category.max_dl_sch_tb_bits}
    words = max(tb_soft_words(s) for s in sizes)
    check_soft_bits(3 * words * category.harq_processes, category)
    return words


class HarqReception(BaseModel):
    """What one transmission did to its process: new data or combined, and the decode."""

    process: int
    new_data: bool
    result: DlSchResult


class HarqEntity:
    """The UE's downlink HARQ processes (TS 36.321 5.3.2.1, 5.3.2.2), bit-true with the
    receiver: a process that has never received, or whose NDI toggled, starts afresh."""

    def __init__(self, category: UeCategory = CAT1) -> None:
        self.category = category
        self.words = soft_words_per_process(category)
        self._ndi: list[int | None] = [None] * category.harq_processes
        self._soft: list[list[np.ndarray] | None] = [None] * category.harq_processes

    def is_new(self, process: int, ndi: int) -> bool:
        """New data unless the process holds a transport block sent with the same NDI."""
        self._check_process(process)
        return self._ndi[process] is None or self._ndi[process] != ndi

    def receive(
        self, process: int, ndi: int, codeword_llr: np.ndarray, plan: DlSchPlan, max_iters: int
    ) -> HarqReception:
        """Rate-dematch one transmission into the process's soft buffers (replacing or
        combining by the NDI) and decode them (TS 36.212 5.3.2 inverse)."""
        new = self.is_new(process, ndi)
        if tb_soft_words(plan.tbs) > self.words:
            raise CapabilityError(
                f"transport block of {plan.tbs} bits needs {3 * tb_soft_words(plan.tbs)} soft "
                f"bits; a HARQ process of UE category {self.category.name} holds {3 * self.words}"
            )
        previous = None if new else self._soft[process]
        if previous is not None and len(previous) != plan.seg.C:
            raise ValueError(
                f"retransmission on HARQ process {process} has {plan.seg.C} code blocks; "
                f"its buffers hold {len(previous)}"
            )
        soft = dematch_blocks(codeword_llr, plan, fixed=True, combine_with=previous)
        self._soft[process] = soft
        self._ndi[process] = ndi
        result = decode_soft_blocks(soft, plan, fixed=True, max_iters=max_iters)
        return HarqReception(process=process, new_data=new, result=result)

    def _check_process(self, process: int) -> None:
        if not 0 <= process < self.category.harq_processes:
            raise ValueError(
                f"HARQ process {process} is outside 0..{self.category.harq_processes - 1}"
            )


__all__ = ["HarqEntity", "HarqReception", "soft_words_per_process", "tb_soft_words"]
