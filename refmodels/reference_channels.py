"""TS 36.101 fixed reference channels used end to end: R.2 (Annex A.3.3.1, QPSK R=1/3) and
R.31-1 (Annex A.3.9.1, 64QAM, Cat-1 peak rate)."""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel

from silicon_agent.refmodels.cell_config import N_RB_DL


class ReferenceChannel(BaseModel):
    """A PDSCH configuration: allocation, modulation, TBS and control region size."""

    name: str
    prbs: list[int]
    qm: int
    tbs: int
    cfi: int
    note: str

    def prb_array(self) -> np.ndarray:
        """Prb array (TS 36.101 A.3)."""
        return np.array(self.prbs, dtype=np.int64)


R2 = ReferenceChannel(
    name="R.2",
    prbs=list(range(N_RB_DL)),
    qm=2,
    tbs=4392,
    cfi=2,
    note="TS 36.101 Table A.3.3.1-1: 50 RB, QPSK, 2 PDCCH symbols, G = 13800 (12960 in SF 0)",
)
# R.31-1 allocates 29 RBs outside the six central RBs (22..27) so that G = 26100 in every
# subframe with one PDCCH symbol; the exact RB positions are a choice made here.
R31_1 = ReferenceChannel(
    name="R.31-1",
    prbs=list(range(0, 22)) + list(range(28, 35)),
    qm=6,
    tbs=10296,
    cfi=1,
    note="TS 36.101 Table A.3.9.1-1: 64QAM, 1 PDCCH symbol, 2 code blocks, G = 26100",
)

REFERENCE_CHANNELS: dict[str, ReferenceChannel] = {"R.2": R2, "R.31-1": R31_1}
