"""The whole receiver over a multi-subframe sequence (hdl/top_seq.py): ten subframes of IQ
samples with varying MCS, N_PRB, RNTI and HARQ process, new and retransmitted transport blocks
interleaved, decoded by lte_baseband_top bit-exactly with refmodels."""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.hdl.registry import Registry
from silicon_agent.hdl.sim import VectorCase, VectorSet, run_case, simulator
from silicon_agent.hdl.top_seq import subframe_timing, top_sequence_block, top_sequence_case
from silicon_agent.refmodels.harq_sequence import schedule
from silicon_agent.refmodels.top_sequence import TopSequence
from silicon_agent.refmodels.vectors import TOP_CFG_WORDS
from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import Workspace
from tests.hdl.sequence_checks import assert_cat1_harq_mix

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def top_sequence(workspace: Workspace) -> Iterator[tuple[VectorCase, TopSequence]]:
    vs = VectorSet(workspace, "top-seq")
    try:
        yield top_sequence_case(vs)
    finally:
        vs.close()


def test_sequence_covers_the_receiver(top_sequence: tuple[VectorCase, TopSequence]) -> None:
    _, seq = top_sequence
    assert_cat1_harq_mix(seq)
    # New and retransmitted blocks interleaved: a new block follows a retransmission.
    news = seq.new_data
    assert any(not a and b for a, b in zip(news, news[1:], strict=False))
    # The verdicts come from the receiver: some blocks fail, most pass.
    assert not all(seq.crc_ok) and sum(seq.crc_ok) > seq.n_subframes // 2


def test_schedule_is_seed_stable() -> None:
    assert schedule(19, 10) == schedule(19, 10)
    assert schedule(19, 10) != schedule(20, 10)


def _retransmissions_alone(case: VectorCase, seq: TopSequence) -> VectorCase:
    """A copy of the case whose retransmissions toggle their NDI (new data: their soft
    buffers cleared), run up to the last of them."""
    src = Path(case.directory)
    copy = src.parent / f"{src.name}-alone-{uuid.uuid4().hex[:8]}"
    shutil.copytree(src, copy)
    copy.chmod(0o755)
    path = copy / "seq_config.hex"
    words = path.read_text().split()
    retx = [i for i, new in enumerate(seq.new_data) if not new]
    for i in retx:
        w = int(words[i * TOP_CFG_WORDS], 16) ^ (1 << 28)
        words[i * TOP_CFG_WORDS] = f"{w:08x}"
    path.write_text("\n".join(words) + "\n")
    plusargs = [f"VECTORS={copy}", f"N_SF={retx[-1] + 1}", f"BYTES_TOTAL={seq.bytes_total}"]
    return case.model_copy(update={"plusargs": plusargs})


@pytest.mark.slow
# Icarus: about 9 minutes with its build on a lightly loaded machine (32 under load 15-18), a
# sixth of the main run's time for the case Verilator already passes: `make test-full` runs it.
@pytest.mark.parametrize(
    "sim_name", ["verilator", pytest.param("iverilog", marks=pytest.mark.full)]
)
async def test_top_sequence_passes(
    sim_name: str,
    top_sequence: tuple[VectorCase, TopSequence],
    registry: Registry,
    workspace: Workspace,
) -> None:
    case, seq = top_sequence
    block = top_sequence_block(registry)
    sim = simulator(workspace, sim_name)  # type: ignore[arg-type]
    started = time.perf_counter()
    result = await run_case(sim, block, case, timeout_s=3300.0)
    wall = time.perf_counter() - started
    assert result.status == Status.PASS, (result.summary, result.first_mismatch, result.output_tail)
    assert result.mismatch_count == 0
    assert result.samples == seq.bytes_total
    timing = subframe_timing((workspace.root / result.artifacts["log"]).read_text())
    assert [t.subframe for t in timing] == list(range(seq.n_subframes))
    # At least the 14 symbols' FFTs between a subframe's first sample and its CRC.
    assert all(t.latency > 14 * 5120 for t in timing)
    print(f"{sim_name}: {seq.n_subframes} subframes in {wall:.1f} s wall")
    for t in timing:
        print(f"sf {t.subframe}: latency {t.latency} cycles, interval {t.interval} cycles")
    if sim_name != "verilator":
        return
    # The harness can fail: the retransmissions decoded alone (NDI toggled) do not match (shown
    # once, on the faster simulator: it is the vectors' and the testbench's property).
    alone = await run_case(sim, block, _retransmissions_alone(case, seq), timeout_s=3300.0)
    assert alone.status == Status.SIM_FAIL, alone.summary
    assert (alone.mismatch_count or 0) > 0 and alone.first_mismatch is not None
