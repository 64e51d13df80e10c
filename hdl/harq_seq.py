"""The back end's multi-subframe HARQ case: a seeded sequence of subframes
(``refmodels.harq_sequence``) run by its own testbench, ``tb_pdsch_rx_seq``, on
``pdsch_rx_backend``'s design files; the mutants of the HARQ entity run on it too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from silicon_agent.hdl.mutations import SEQUENCE_CASE
from silicon_agent.hdl.registry import Block, Registry
from silicon_agent.hdl.sim import VectorCase, VectorSet
from silicon_agent.refmodels.harq_sequence import SequenceVectors, write_sequence

SEQ_TESTBENCH = "hdl/tb/tb_pdsch_rx_seq.sv"
SEQ_TB_TOP = "tb_pdsch_rx_seq"
SEQ_SEED = 19
SEQ_SUBFRAMES = 10


def with_testbench(registry: Registry, name: str, testbench: str, top: str) -> Block:
    """Block ``name`` with another testbench in place of its own (no trace streams: a sequence
    testbench checks every byte itself)."""
    block = registry.block(name)
    verification = block.verification
    assert verification is not None
    return block.model_copy(
        update={
            "verification": verification.model_copy(update={"testbench": [testbench], "top": top}),
            "trace": None,
        }
    )


def sequence_block(registry: Registry) -> Block:
    """pdsch_rx_backend with the sequence testbench in place of its own."""
    return with_testbench(registry, "pdsch_rx_backend", SEQ_TESTBENCH, SEQ_TB_TOP)


def written_case(
    out: Path, block: str, case: str, plusargs: Callable[[Path], list[str]]
) -> VectorCase:
    """Describe the case whose vectors were written to ``out`` (readable by the simulators)."""
    for p in (out.parent, out):
        p.chmod(0o755)
    where = out.resolve()
    return VectorCase(block=block, case=case, directory=str(where), plusargs=plusargs(where))


def sequence_case(
    vectors: VectorSet, seed: int = SEQ_SEED, n_subframes: int = SEQ_SUBFRAMES
) -> tuple[VectorCase, SequenceVectors]:
    """Write the sequence's vectors into ``vectors`` and describe the case."""
    out = vectors.root / "pdsch_rx_backend" / SEQUENCE_CASE
    seq = write_sequence(out, seed, n_subframes)
    return written_case(out, "pdsch_rx_backend", SEQUENCE_CASE, seq.plusargs), seq
