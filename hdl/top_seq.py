"""The top level's multi-subframe case: the seeded sequence of ``refmodels.top_sequence`` (IQ
samples of subframes with varying MCS, N_PRB, RNTI and HARQ process, new and retransmitted
transport blocks interleaved) run by its own testbench, ``tb_lte_top_seq``, on
``lte_baseband_top``'s design files."""

from __future__ import annotations

import re

from pydantic import BaseModel

from silicon_agent.hdl.harq_seq import with_testbench, written_case
from silicon_agent.hdl.registry import Block, Registry
from silicon_agent.hdl.sim import VectorCase, VectorSet
from silicon_agent.refmodels.top_sequence import (
    TOP_SEQ_SEED,
    TOP_SEQ_SUBFRAMES,
    TopSequence,
    write_top_sequence,
)

TOP_SEQ_TESTBENCH = "hdl/tb/tb_lte_top_seq.sv"
TOP_SEQ_TB_TOP = "tb_lte_top_seq"
TOP_SEQ_CASE = "top_seq10"
_SF_LINE = re.compile(r"tb: sf=(\d+) tb_cycles=(\d+) tb_interval=(\d+)")


def top_sequence_block(registry: Registry) -> Block:
    """lte_baseband_top with the sequence testbench in place of its own."""
    return with_testbench(registry, "lte_baseband_top", TOP_SEQ_TESTBENCH, TOP_SEQ_TB_TOP)


def top_sequence_case(
    vectors: VectorSet, seed: int = TOP_SEQ_SEED, n_subframes: int = TOP_SEQ_SUBFRAMES
) -> tuple[VectorCase, TopSequence]:
    """Write the sequence's vectors into ``vectors`` and describe the case."""
    out = vectors.root / "lte_baseband_top" / TOP_SEQ_CASE
    seq = write_top_sequence(out, seed, n_subframes)
    return written_case(out, "lte_baseband_top", TOP_SEQ_CASE, seq.plusargs), seq


class SubframeTiming(BaseModel):
    """One subframe's figures from the testbench's log, in clock cycles."""

    subframe: int
    latency: int  # first IQ sample in to the CRC verdict out
    interval: int  # the previous subframe's CRC verdict to this one's


def subframe_timing(log: str) -> list[SubframeTiming]:
    """The ``tb: sf=`` lines of a tb_lte_top_seq run."""
    return [
        SubframeTiming(subframe=int(m[1]), latency=int(m[2]), interval=int(m[3]))
        for m in _SF_LINE.finditer(log)
    ]
