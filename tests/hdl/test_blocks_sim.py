"""Every verified block passes its vector-driven testbench on Icarus and Verilator."""

from __future__ import annotations

from pathlib import Path

import pytest

from silicon_agent.hdl.registry import Registry, load_registry, load_sidecar
from silicon_agent.hdl.sim import VectorCase, run_case, simulator
from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import Workspace

pytestmark = pytest.mark.anyio
BLOCK_NAMES = [b.name for b in load_registry().verified()]

# Minimum samples one run must check: the whole replayed case (pass 1) at least.
MIN_SAMPLES = {
    "crc_checker": 4,
    "descrambler": 12960,
    "qam_demodulator": 1200,
    "rate_dematcher": 2 * 44,  # beats of {d2, d1, d0} at K = 40
    "resource_demapper": 2 * 4350,
    "turbo_decoder": 40,
    "dl_sch_processor": 2 * 1008 // 8,
    "equalizer": 4350,
    "channel_estimator": 8400,
    "ofdm_demodulator": 2 * 8400,
    "pdsch_rx_backend": 2 * 520 // 8,
    "lte_baseband_top": 2 * 520 // 8,
}


# Icarus interprets the turbo decoder at a few thousand trellis steps per second on this
# machine (each case decodes its block twice, back to back), so its Icarus run covers the code
# blocks up to K = 256: 1, 2, 4 and 8 parallel SISOs (every case runs on Verilator);
# `python -m silicon_agent.hdl.run turbo_decoder --simulator iverilog` runs them all.
ICARUS_MAX_K = 256


# The receive back end's whole subframes (R.2, R.31-1) take 1-2.5 minutes each on Icarus;
# there it runs the small-allocation cases, and every case on Verilator.
ICARUS_MAX_TBS = 1008


# The whole receiver is slow on Icarus (14 FFTs of 5120 cycles, the estimator and the turbo
# decoder per subframe: about 1 minute for the smallest allocation, 6.5 minutes for R.2): on
# Icarus it runs its smallest case only, in a slow test of its own; every case runs on
# Verilator (and test_end_to_end.py).
ICARUS_ONE_CASE = {"lte_baseband_top"}


def _smallest(cases: list[VectorCase]) -> list[VectorCase]:
    def tbs(case: VectorCase) -> int:
        return int(load_sidecar(Path(case.directory), case.block)["params"]["tbs"])

    return [min(cases, key=tbs)]


def _icarus_covers(case: VectorCase) -> bool:
    params = load_sidecar(Path(case.directory), case.block)["params"]
    if case.block == "pdsch_rx_backend":
        return int(params["tbs"]) <= ICARUS_MAX_TBS
    return case.block != "turbo_decoder" or int(params["K"]) <= ICARUS_MAX_K


async def _run_all(
    sim_name: str,
    name: str,
    registry: Registry,
    workspace: Workspace,
    vector_cases: dict[str, list[VectorCase]],
) -> None:
    block = registry.block(name)
    sim = simulator(workspace, sim_name)  # type: ignore[arg-type]
    cases = vector_cases[name]
    if sim_name == "iverilog" and name in ICARUS_ONE_CASE:
        cases = _smallest(cases)
    elif sim_name == "iverilog":
        cases = [c for c in cases if _icarus_covers(c)]
    assert len(cases) >= (1 if sim_name == "iverilog" and name in ICARUS_ONE_CASE else 2)
    for case in cases:
        # A hang guard, not a speed target: the receiver's Verilator build alone takes minutes
        # on a loaded machine.
        result = await run_case(sim, block, case, timeout_s=1200.0)
        assert result.status == Status.PASS, (
            case.case,
            result.summary,
            result.first_mismatch,
            result.output_tail,
        )
        assert result.mismatch_count == 0
        # The server's own trace of the output beats agrees with the testbench.
        assert result.trace is not None and result.trace.passed, (case.case, result.trace)
        # The registry's fixed cases carry their full size; a drawn case (parameters from the
        # seed, as verify_block draws them) is sized by its draw.
        least = 1 if "drawn" in case.case else MIN_SAMPLES.get(name, 1)
        assert result.samples is not None and result.samples >= least, case.case


# The Icarus runs of the largest blocks (minutes each; their Verilator runs stay in the main
# run) are in `make test-full`; the main run still builds each of them, design and testbench,
# with Icarus, so a construct Icarus refuses shows there.
ICARUS_FULL = {"pdsch_rx_backend", "turbo_decoder", *ICARUS_ONE_CASE}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.full) if n in ICARUS_FULL else n
        for n in BLOCK_NAMES
        if n not in ICARUS_ONE_CASE
    ],
)
async def test_block_passes_on_icarus(
    name: str, registry: Registry, workspace: Workspace, vector_cases: dict[str, list[VectorCase]]
) -> None:
    await _run_all("iverilog", name, registry, workspace, vector_cases)


@pytest.mark.full
@pytest.mark.parametrize("name", sorted(ICARUS_ONE_CASE))
async def test_whole_receiver_passes_on_icarus(
    name: str, registry: Registry, workspace: Workspace, vector_cases: dict[str, list[VectorCase]]
) -> None:
    await _run_all("iverilog", name, registry, workspace, vector_cases)


@pytest.mark.parametrize("name", sorted(ICARUS_FULL))
async def test_largest_blocks_build_on_icarus(
    name: str, registry: Registry, workspace: Workspace
) -> None:
    block = registry.block(name)
    result = await simulator(workspace, "iverilog").call(
        "compile", {"sources": [*block.rtl, block.testbench], "top": block.tb_top}
    )
    assert result.status == Status.PASS, (result.summary, result.diagnostics)
    assert "image" in result.artifacts
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert not errors, [(d.file, d.line, d.message) for d in errors]


@pytest.mark.slow
@pytest.mark.parametrize("name", BLOCK_NAMES)
async def test_block_passes_on_verilator(
    name: str, registry: Registry, workspace: Workspace, vector_cases: dict[str, list[VectorCase]]
) -> None:
    await _run_all("verilator", name, registry, workspace, vector_cases)


@pytest.mark.slow
@pytest.mark.parametrize("name", BLOCK_NAMES)
async def test_block_lints_clean_with_wall(
    name: str, registry: Registry, workspace: Workspace
) -> None:

    block = registry.block(name)
    result = await simulator(workspace, "verilator").lint(block.rtl, top=block.name)
    assert result.status == Status.PASS, result.summary
    assert result.diagnostics == [], [(d.code, d.line, d.message) for d in result.diagnostics]
