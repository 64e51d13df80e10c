"""Single-line bugs in each block (``hdl/mutations.py``) are caught by its testbench (SIM_FAIL
on Icarus); ``python -m silicon_agent.hdl.mutate`` runs the same mutants as a campaign."""

from __future__ import annotations

import uuid

import pytest

from silicon_agent.hdl.harq_seq import sequence_block
from silicon_agent.hdl.mutations import (
    CASE_FOR,
    HANDSHAKE_ONLY,
    MUTATIONS,
    SEQUENCE_CASE,
    VERILATOR_MUTANTS,
    judged_by_verify_block,
)
from silicon_agent.hdl.registry import PACKAGE_SV, REPO, Registry
from silicon_agent.hdl.sim import VectorCase, VectorSet, run_case, simulator
from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import Workspace

pytestmark = pytest.mark.anyio

# A mutant of a mapped block's own file is judged in the main run by the default verify_block
# (tests/host/test_verify_block_mutants.py, which must catch each one); its run on the block's
# testbench here is in `make test-full`. The shared package's mutants and those the testbench
# alone fails (HANDSHAKE_ONLY) stay in the main run.
_JUDGED = set(judged_by_verify_block())


def _param(mutation: tuple[str, str, str, str, str]) -> object:
    label = mutation[1]
    if mutation in _JUDGED and label not in HANDSHAKE_ONLY:
        return pytest.param(*mutation, id=label, marks=pytest.mark.full)
    return pytest.param(*mutation, id=label)


@pytest.mark.parametrize(
    ("name", "label", "path", "original", "mutant"), [_param(m) for m in MUTATIONS]
)
async def test_mutation_is_caught(
    name: str,
    label: str,
    path: str,
    original: str,
    mutant: str,
    registry: Registry,
    workspace: Workspace,
    vector_cases: dict[str, list[VectorCase]],
    scratch_set: VectorSet,
    request: pytest.FixtureRequest,
) -> None:
    block = registry.block(name)
    text = (REPO / path).read_text()
    assert text.count(original) == 1, f"{label}: mutation site not found once in {path}"
    copy_dir = scratch_set.root / uuid.uuid4().hex[:8]
    copy_dir.mkdir(mode=0o755)
    copy = copy_dir / path.rsplit("/", 1)[-1]
    copy.write_text(text.replace(original, mutant))
    copy.chmod(0o644)
    design = [workspace.relative(copy) if f == path else f for f in block.rtl]
    sim = simulator(workspace, "verilator" if name in VERILATOR_MUTANTS else "iverilog")
    # The last case: 64QAM for the demapper, the registry's extra case where there is one.
    case = vector_cases[name][-1]
    if CASE_FOR.get(label) == SEQUENCE_CASE:
        # The multi-subframe HARQ case runs on its own testbench (which checks every byte).
        block = sequence_block(registry)
        case, _ = request.getfixturevalue("harq_sequence")
    elif label in CASE_FOR:
        case = next(c for c in vector_cases[name] if c.case == CASE_FOR[label])
    package = workspace.relative(copy) if path == PACKAGE_SV else PACKAGE_SV
    result = await run_case(sim, block, case, design=design, timeout_s=900.0, package=package)
    if label in HANDSHAKE_ONLY:
        # The testbench fails it; the trace of the output beats cannot, so the server withholds.
        assert result.status == Status.INVALID_INPUT, (label, result.status, result.summary)
        assert result.trace is not None and result.trace.passed and not result.trace.agrees
        assert result.first_mismatch is not None and (result.mismatch_count or 0) > 0
        return
    assert result.status == Status.SIM_FAIL, (label, result.status, result.summary)
    assert result.first_mismatch is not None and (result.mismatch_count or 0) > 0
    if block.trace is not None:
        # The server's trace of the DUT's output beats finds the bug as well (agreement).
        assert result.trace is not None and not result.trace.passed and result.trace.agrees
