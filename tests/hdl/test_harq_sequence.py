"""The back end's HARQ entity over a multi-subframe sequence (hdl/harq_seq.py): ten
subframes with varying MCS, N_PRB, RNTI and HARQ process, new and retransmitted transport
blocks interleaved, bit-exact with refmodels on Icarus and Verilator."""

from __future__ import annotations

import time

import pytest

from silicon_agent.hdl.harq_seq import sequence_block
from silicon_agent.hdl.registry import Registry
from silicon_agent.hdl.sim import VectorCase, run_case, simulator
from silicon_agent.refmodels.harq_sequence import SequenceVectors
from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import Workspace
from tests.hdl.sequence_checks import assert_cat1_harq_mix

pytestmark = pytest.mark.anyio


def test_sequence_covers_the_harq_entity(harq_sequence: tuple[VectorCase, SequenceVectors]) -> None:
    assert_cat1_harq_mix(harq_sequence[1])


@pytest.mark.slow
# Icarus takes about four minutes for the case Verilator passes in one: `make test-full`.
@pytest.mark.parametrize(
    "sim_name", [pytest.param("iverilog", marks=pytest.mark.full), "verilator"]
)
async def test_sequence_passes(
    sim_name: str,
    harq_sequence: tuple[VectorCase, SequenceVectors],
    registry: Registry,
    workspace: Workspace,
) -> None:
    case, seq = harq_sequence
    block = sequence_block(registry)
    started = time.perf_counter()
    result = await run_case(simulator(workspace, sim_name), block, case, timeout_s=3300.0)  # type: ignore[arg-type]
    wall = time.perf_counter() - started
    print(f"{sim_name}: {seq.n_subframes} subframes in {wall:.1f} s wall")
    assert result.status == Status.PASS, (result.summary, result.first_mismatch, result.output_tail)
    assert result.mismatch_count == 0
    assert result.samples == seq.bytes_total
