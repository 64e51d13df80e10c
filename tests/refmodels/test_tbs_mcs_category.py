"""TBS (TS 36.213 Table 7.1.7.2.1-1), MCS (Table 7.1.7.1-1) and Cat-1 limits (TS 36.306
Table 4.1-1): against the shared copy of the table and by the table's own rules."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from silicon_agent.refmodels.cell_config import CellConfig
from silicon_agent.refmodels.dl_sch_encoder import plan_dl_sch
from silicon_agent.refmodels.rate_matching import n_ir_bits
from silicon_agent.refmodels.reference_channels import R2, R31_1
from silicon_agent.refmodels.resource_grid import pdsch_capacity
from silicon_agent.refmodels.segmentation import segmentation_params
from silicon_agent.refmodels.tbs import (
    TABLE_FILE,
    mcs_entry,
    mcs_to_itbs,
    table,
    tbs_for_mcs,
    transport_block_size,
)
from silicon_agent.refmodels.ue_category import (
    CAT1,
    CapabilityError,
    check_soft_bits,
    check_transport_blocks,
)

SHARED_TABLE = Path(__file__).resolve().parents[3] / "shared" / "data"
SHARED_TABLE = SHARED_TABLE / "tbs_36213_7.1.7.2.1-1.json"
# The one place the specification itself is not monotone in N_PRB (noted in the table file).
SPEC_EXCEPTIONS = {(6, 1)}


@pytest.mark.skipif(not SHARED_TABLE.exists(), reason="shared/ is not beside this checkout")
def test_project_table_equals_the_shared_table() -> None:
    shared = json.loads(SHARED_TABLE.read_text())
    for i_tbs, row in shared["tbs"].items():
        for n_prb, size in zip(shared["n_prb"], row, strict=True):
            assert transport_block_size(int(i_tbs), n_prb) == size, (i_tbs, n_prb)


def test_table_states_its_source() -> None:
    stored = json.loads(TABLE_FILE.read_text())
    assert "136 213" in stored["source"] and "7.1.7.2.1-1" in stored["what"]
    assert len(table().tbs) == 27 and len(table().n_prb) == 110


def test_known_entries() -> None:
    assert transport_block_size(5, 50) == 4392  # R.2 (TS 36.101 A.3.3.1)
    assert transport_block_size(14, 50) == 14112  # 16QAM MCS 15 (TS 36.104 A.13-4)
    assert transport_block_size(0, 1) == 16
    assert transport_block_size(26, 110) == 75376
    assert transport_block_size(6, 1) == 328  # larger than N_PRB 2 in the spec itself


def test_monotone_except_where_the_spec_is_not() -> None:
    t = table()
    breaks = set()
    for i_tbs, row in t.tbs.items():
        for n in range(1, len(row)):
            if row[n] < row[n - 1]:
                breaks.add((i_tbs, n))  # N_PRB n is above N_PRB n + 1
        for n_prb in range(1, len(row) + 1):
            if i_tbs and t.tbs[i_tbs - 1][n_prb - 1] > row[n_prb - 1]:
                breaks.add((i_tbs - 1, n_prb))
    assert breaks == SPEC_EXCEPTIONS


def test_every_size_segments_without_filler_and_is_byte_aligned() -> None:
    for row in table().tbs.values():
        for size in row:
            assert size % 8 == 0
            if size + 24 >= 40:
                assert segmentation_params(size + 24).F == 0, size


@pytest.mark.parametrize(("i_tbs", "n_prb"), [(-1, 1), (27, 1), (0, 0), (0, 111)])
def test_lookups_outside_the_table_are_refused(i_tbs: int, n_prb: int) -> None:
    with pytest.raises(ValueError, match="outside"):
        transport_block_size(i_tbs, n_prb)


def test_mcs_table() -> None:
    assert [mcs_to_itbs(i) for i in (0, 9, 10, 16, 17, 28)] == [
        (2, 0),
        (2, 9),
        (4, 9),
        (4, 15),
        (6, 15),
        (6, 26),
    ]
    # Every I_TBS 0..26 is reached, each modulation's range is contiguous.
    itbs = [mcs_to_itbs(i)[1] for i in range(29)]
    assert sorted(set(itbs)) == list(range(27))
    assert all(b - a in (0, 1) for a, b in zip(itbs, itbs[1:], strict=False))
    assert [mcs_entry(i).modulation for i in (29, 30, 31)] == ["QPSK", "16QAM", "64QAM"]
    assert mcs_entry(30).i_tbs is None
    with pytest.raises(ValueError, match="reserved"):
        mcs_to_itbs(29)
    with pytest.raises(ValueError, match="outside"):
        mcs_entry(32)


def test_cat1_limits() -> None:
    check_transport_blocks(10296)
    with pytest.raises(CapabilityError, match="10296 bits per DL-SCH transport block"):
        check_transport_blocks(10304)
    with pytest.raises(CapabilityError, match="at most 1"):
        check_transport_blocks([4392, 4392])
    check_soft_bits(CAT1.total_soft_channel_bits)
    with pytest.raises(CapabilityError, match="250368"):
        check_soft_bits(CAT1.total_soft_channel_bits + 1)
    assert n_ir_bits() * CAT1.harq_processes == CAT1.total_soft_channel_bits


def test_mcs_lookups_beyond_cat1_are_refused() -> None:
    # Every (I_MCS, N_PRB) within the 10 MHz carrier: allowed exactly when the TBS fits Cat-1.
    for i_mcs in range(29):
        for n_prb in range(1, 51):
            size = tbs_for_mcs(i_mcs, n_prb, category=None)
            if size <= CAT1.max_dl_sch_tb_bits:
                assert tbs_for_mcs(i_mcs, n_prb) == size
            else:
                with pytest.raises(CapabilityError):
                    tbs_for_mcs(i_mcs, n_prb)


@pytest.mark.parametrize(("channel", "i_mcs"), [(R2, 5), (R31_1, 19)])
def test_reference_channels_rebuild_from_mcs_and_prbs(channel, i_mcs: int) -> None:
    """R.2 and R.31-1 come out of the tables from (I_MCS, N_PRB) alone: TBS, modulation, and
    a DL-SCH plan whose code blocks match the channel's (TS 36.101 A.3)."""
    qm, _ = mcs_to_itbs(i_mcs)
    n_prb = len(channel.prbs)
    assert qm == channel.qm
    assert tbs_for_mcs(i_mcs, n_prb) == channel.tbs
    g = pdsch_capacity(CellConfig(cfi=channel.cfi, subframe=1), np.array(channel.prbs), qm)
    assert g == (13800 if channel is R2 else 26100)  # G of TS 36.101 A.3.3.1 / A.3.9.1
    plan = plan_dl_sch(channel.tbs, g, qm)
    assert plan.seg.F == 0 and plan.seg.C == (1 if channel is R2 else 2)
