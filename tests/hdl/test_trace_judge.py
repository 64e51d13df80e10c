"""The trace judge withholds a verdict whose testbench summary lies, on both simulators.

A testbench whose harness prints a false summary stands in for any path by which the summary
could lie: with the mutant design it says PASS (and hides its MISMATCH lines), with the
reference design it says it failed. The server's own trace of the DUT's output beats disagrees
either way, so the verdict is withheld. The agreement on every block and mutant is shown by
test_blocks_sim.py and test_mutations.py, whose runs go through the same judge.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.hdl.registry import REPO, Block, Registry
from silicon_agent.hdl.sim import VectorCase, VectorSet, run_case, simulator
from silicon_agent.servers.core.models import Category, Status
from silicon_agent.servers.core.workspace import Workspace
from tests.hdl.test_mutations import MUTATIONS

pytestmark = pytest.mark.anyio

# The descrambler mutant of test_mutations.py that its testbench catches.
MUTATION = next((m[3], m[4]) for m in MUTATIONS if m[1] == "dropped x2 tap")
SILENT_MISMATCH = (
    '$display("%sMISMATCH time=%0t cycle=%0d signal=%s expected=%h actual=%h", '
    "tb_verdict_tag(), \\\n             $time, cycle, SIGNAL, EXPECTED, ACTUAL); \\\n",
    "",
)
FALSE_PASS = (
    '$display("%sMismatches: %0d in %0d samples", tb_verdict_tag(), errors, samples);',
    '$display("%sMismatches: 0 in %0d samples", tb_verdict_tag(), samples);',
)
FALSE_FAIL = (
    '$display("%sMismatches: %0d in %0d samples", tb_verdict_tag(), errors, samples);',
    '$display("%sMismatches: 1 in %0d samples", tb_verdict_tag(), samples);',
)


@pytest.fixture(scope="module")
def forged(workspace: Workspace, registry: Registry) -> Iterator[tuple[VectorSet, VectorCase]]:
    """One descrambler case, and a folder the sandboxed tools can read for the edited copies."""
    vs = VectorSet(workspace, "forged")
    try:
        yield vs, vs.generate(registry.block("descrambler"))[0]
    finally:
        vs.close()


def _copy(src: Path, dst: Path, *edits: tuple[str, str]) -> Path:
    text = src.read_text()
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    dst.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    dst.write_text(text)
    dst.chmod(0o644)
    return dst


def _lying(block: Block, bench: str) -> Block:
    """The block with its hidden testbench replaced (the testbench is the block's verification's,
    and its own folder is where its harness is included from)."""
    assert block.verification is not None
    verification = block.verification.model_copy(
        update={"testbench": [bench], "include_dirs": [str(Path(bench).parent)]}
    )
    return block.model_copy(update={"verification": verification})


def _forged_bench(root: Path, label: str, *edits: tuple[str, str]) -> str:
    """tb_descrambler beside a harness whose summary line is edited."""
    folder = root / label
    _copy(REPO / "hdl/tb/tb_harness.svh", folder / "tb_harness.svh", *edits)
    tb = _copy(REPO / "hdl/tb/tb_descrambler.sv", folder / "tb_descrambler.sv")
    return str(tb.relative_to(REPO))


@pytest.mark.parametrize(
    "sim_name", ["iverilog", pytest.param("verilator", marks=pytest.mark.slow)]
)
async def test_a_false_pass_is_withheld(
    sim_name: str,
    registry: Registry,
    workspace: Workspace,
    forged: tuple[VectorSet, VectorCase],
) -> None:
    vs, case = forged
    block = registry.block("descrambler")
    mutant = _copy(REPO / "hdl/rtl/descrambler.sv", vs.root / "mutant" / "descrambler.sv", MUTATION)
    bench = _forged_bench(vs.root, "false-pass", SILENT_MISMATCH, FALSE_PASS)
    lying = _lying(block, bench)
    design = [block.rtl[0], str(mutant.relative_to(REPO))]
    result = await run_case(simulator(workspace, sim_name), lying, case, design=design)  # type: ignore[arg-type]
    assert result.status == Status.INVALID_INPUT, (result.summary, result.output_tail)
    assert "withheld" in result.summary and "PASS" in result.summary
    assert result.trace is not None and not result.trace.agrees and not result.trace.passed
    assert result.trace.first_mismatch is not None
    assert result.diagnostics[0].category == Category.INVALID_INPUT


@pytest.mark.parametrize(
    "sim_name", ["iverilog", pytest.param("verilator", marks=pytest.mark.slow)]
)
async def test_a_false_failure_is_withheld(
    sim_name: str,
    registry: Registry,
    workspace: Workspace,
    forged: tuple[VectorSet, VectorCase],
) -> None:
    vs, case = forged
    block = registry.block("descrambler")
    bench = _forged_bench(vs.root, "false-fail", FALSE_FAIL)
    lying = _lying(block, bench)
    result = await run_case(simulator(workspace, sim_name), lying, case)  # type: ignore[arg-type]
    assert result.status == Status.INVALID_INPUT, (result.summary, result.output_tail)
    assert "withheld" in result.summary
    assert result.trace is not None and not result.trace.agrees and result.trace.passed
