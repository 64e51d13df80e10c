"""Modulation and TBS index (TS 36.213 Table 7.1.7.1-1) and transport block size lookup
(TS 36.213 Table 7.1.7.2.1-1, single layer).

The TBS figures live in `tbs_table_36213.json` beside this module, with their source stated in
the file; they are data of the specification, not computed.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, model_validator

from silicon_agent.refmodels.ue_category import CAT1, UeCategory, check_transport_blocks

TABLE_FILE = Path(__file__).with_name("tbs_table_36213.json")
I_MCS_MAX = 31
MODULATION = {2: "QPSK", 4: "16QAM", 6: "64QAM"}


class TbsTable(BaseModel):
    """Table 7.1.7.2.1-1 as stored: one row of TBS per I_TBS, one column per N_PRB."""

    model_config = ConfigDict(frozen=True)

    what: str
    source: str
    note: str
    n_prb: list[int]
    tbs: dict[int, list[int]]

    @model_validator(mode="after")
    def _rectangular(self) -> TbsTable:
        if self.n_prb != list(range(1, len(self.n_prb) + 1)):
            raise ValueError("n_prb must run 1, 2, ... without gaps")
        if sorted(self.tbs) != list(range(len(self.tbs))):
            raise ValueError("I_TBS rows must run 0, 1, ... without gaps")
        for i_tbs, row in self.tbs.items():
            if len(row) != len(self.n_prb):
                raise ValueError(f"I_TBS {i_tbs} has {len(row)} entries, not {len(self.n_prb)}")
        return self


@cache
def table() -> TbsTable:
    return TbsTable.model_validate(json.loads(TABLE_FILE.read_text()))


class McsEntry(BaseModel):
    """One row of TS 36.213 Table 7.1.7.1-1 (PDSCH, 64QAM table)."""

    model_config = ConfigDict(frozen=True)

    i_mcs: int
    qm: int
    i_tbs: int | None  # None: reserved, a retransmission that reuses the initial TBS

    @property
    def modulation(self) -> str:
        return MODULATION[self.qm]


def mcs_entry(i_mcs: int) -> McsEntry:
    """The (Q_m, I_TBS) row of I_MCS 0..31; 29..31 are reserved (modulation only)."""
    if not 0 <= i_mcs <= I_MCS_MAX:
        raise ValueError(f"I_MCS {i_mcs} is outside 0..{I_MCS_MAX}")
    if i_mcs <= 9:
        return McsEntry(i_mcs=i_mcs, qm=2, i_tbs=i_mcs)
    if i_mcs <= 16:
        return McsEntry(i_mcs=i_mcs, qm=4, i_tbs=i_mcs - 1)
    if i_mcs <= 28:
        return McsEntry(i_mcs=i_mcs, qm=6, i_tbs=i_mcs - 2)
    return McsEntry(i_mcs=i_mcs, qm={29: 2, 30: 4, 31: 6}[i_mcs], i_tbs=None)


def mcs_to_itbs(i_mcs: int) -> tuple[int, int]:
    """(Q_m, I_TBS) for PDSCH I_MCS 0..28 (TS 36.213 Table 7.1.7.1-1)."""
    entry = mcs_entry(i_mcs)
    if entry.i_tbs is None:
        raise ValueError("I_MCS 29..31 are reserved for retransmissions and carry no TBS")
    return entry.qm, entry.i_tbs


def transport_block_size(i_tbs: int, n_prb: int) -> int:
    """TBS of TS 36.213 Table 7.1.7.2.1-1 for (I_TBS, N_PRB)."""
    t = table()
    if i_tbs not in t.tbs:
        raise ValueError(f"I_TBS {i_tbs} is outside 0..{len(t.tbs) - 1}")
    if not 1 <= n_prb <= len(t.n_prb):
        raise ValueError(f"N_PRB {n_prb} is outside 1..{len(t.n_prb)}")
    return t.tbs[i_tbs][n_prb - 1]


def tbs_for_mcs(i_mcs: int, n_prb: int, category: UeCategory | None = CAT1) -> int:
    """The TBS a DCI's (I_MCS, N_PRB) gives, refused beyond the UE category when one is given."""
    _, i_tbs = mcs_to_itbs(i_mcs)
    size = transport_block_size(i_tbs, n_prb)
    if category is not None:
        check_transport_blocks(size, category)
    return size
