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
from silicon_agent.refmodels.tbs import tbs_for_mcs
from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import Workspace

pytestmark = pytest.mark.anyio


def test_sequence_covers_the_harq_entity(harq_sequence: tuple[VectorCase, SequenceVectors]) -> None:
    _, seq = harq_sequence
    assert seq.n_subframes >= 10
    assert seq.processes_retransmitting >= 3
    # Combining is what decodes them: their first transmissions failed on their own.
    assert seq.combined_rescues >= 3
    dcis = seq.dcis
    assert len({d.i_mcs for d in dcis}) >= 4 and len({d.n_prb for d in dcis}) >= 3
    assert len({d.rnti for d in dcis}) >= 4 and len({d.process for d in dcis}) >= 4
    for d in dcis:
        assert d.tbs == tbs_for_mcs(d.i_mcs, d.n_prb)  # from the table, within Cat-1
    # A process reused for new data toggles its NDI.
    seen: dict[int, int] = {}
    toggles = 0
    for d in dcis:
        toggles += int(d.process in seen and seen[d.process] != d.ndi)
        seen[d.process] = d.ndi
    assert toggles >= 1


@pytest.mark.slow
@pytest.mark.parametrize("sim_name", ["iverilog", "verilator"])
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
