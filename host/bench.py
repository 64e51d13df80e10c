"""`agent-host bench SUITE`: pass rate, iterations, tokens and cost over a set of problems,
reported separately for runs with and without access to the reference.

A suite file (YAML):
    name: smoke
    problems:
      - design: designs/counter.yaml      # relative to the suite file
        reference: refs/counter_ref.sv    # optional: what "with reference" runs may read
    modes: [without_reference, with_reference]
    samples: 1                            # runs of each problem per mode

Every problem x mode x sample is one campaign task (its own run folder), so the suite runs on
any executor (a local process pool by default, Ray with --ray) and sums up the same.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from silicon_agent.campaigns.executors import Executor, SerialExecutor
from silicon_agent.campaigns.runner import CampaignRun
from silicon_agent.campaigns.task import Outcome, Task
from silicon_agent.campaigns.tools import PROJECT
from silicon_agent.host.design_file import load_design

from .run_setup import create_run
from .runs import execute_run
from .state import DONE, StateStore

Mode = Literal["without_reference", "with_reference"]


class Problem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    design: str
    reference: str | None = None


class Suite(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    problems: list[Problem] = Field(min_length=1)
    modes: list[Mode] = Field(default_factory=lambda: ["without_reference", "with_reference"])
    samples: int = Field(1, ge=1, le=1000)


class ModeSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: Mode
    runs: int = 0
    blocks: int = 0
    passed: int = 0
    pass_rate: float = 0.0
    mean_iterations: float = 0.0
    tokens: int = 0
    cost_usd: float = 0.0
    run_ids: list[str] = Field(default_factory=list)


def design_for_mode(
    problem: Problem, base: Path, mode: Mode, out: Path, leave_out: Path | None = None
) -> Path:
    """The problem's design in a private copy of its workspace under ``out`` (runs of one
    design write their RTL into the workspace, so runs at once must not share it); with the
    reference, each block's spec carries it. ``leave_out`` (the runs folder) is not copied."""
    loaded = load_design(base / problem.design)
    workspace = out / "workspace"
    skip = {out.resolve(), *([leave_out.resolve()] if leave_out else [])}

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if n == ".silicon-agent" or (Path(folder) / n).resolve() in skip}

    shutil.rmtree(workspace, ignore_errors=True)
    shutil.copytree(loaded.workspace, workspace, ignore=ignore, symlinks=True)
    data = loaded.design.model_dump(mode="json")
    data["workspace"] = str(workspace)
    with_reference = mode == "with_reference" and problem.reference is not None
    reference = (base / problem.reference).read_text() if with_reference else ""
    for block in data["blocks"]:
        if with_reference:
            block["spec"] = f"{block['spec']}\n\nReference (given for this run):\n{reference}"
        block["spec_file"] = None  # load_design already put its text into the spec
    path = out / f"{loaded.path.stem}.{mode}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def load_suite(path: Path) -> Suite:
    return Suite.model_validate(yaml.safe_load(path.read_text()))


def run_id_of(suite: Suite, mode: Mode, index: int, sample: int) -> str:
    tail = f"-s{sample:03d}" if suite.samples > 1 else ""
    return f"bench-{suite.name}-{mode}-{index:03d}{tail}"


def problem_task(
    suite_path: str,
    runs_dir: str,
    config_path: str | None,
    mcp_path: str | None,
    mode: Mode,
    index: int,
    sample: int,
) -> Outcome:
    """One run of one problem in one mode: its own run folder, its figures back."""
    path = Path(suite_path)
    suite = load_suite(path)
    run_id = run_id_of(suite, mode, index, sample)
    out = Path(runs_dir)
    design = design_for_mode(
        suite.problems[index], path.resolve().parent, mode, out / "bench-designs" / run_id, out
    )
    run = create_run(design, out, config_path, mcp_path, run_id=run_id)
    states = asyncio.run(execute_run(run))
    store = StateStore(run / "state.sqlite")
    try:
        events = store.events()
    finally:
        store.close()
    passed = sum(1 for s in states.values() if s.status in DONE)
    return Outcome(
        ok=passed == len(states),
        data={
            "run_id": run_id,
            "blocks": len(states),
            "passed": passed,
            "iterations": [s.iteration for s in states.values()],
            "tokens": sum(e.input_tokens + e.output_tokens for _, e in events),
            "cost_usd": sum(e.cost_usd for _, e in events),
        },
    )


async def run_suite(
    suite_path: Path,
    runs_dir: Path,
    config_path: str | None = None,
    mcp_path: str | None = None,
    executor: Executor | None = None,
) -> dict[str, object]:
    suite = load_suite(suite_path)
    executor = executor or SerialExecutor()
    tasks = [
        Task(
            id=run_id_of(suite, mode, index, sample),
            fn="silicon_agent.host.bench:problem_task",
            args={
                "suite_path": str(suite_path.resolve()),
                "runs_dir": str(runs_dir.resolve()),
                "config_path": config_path,
                "mcp_path": mcp_path,
                "mode": mode,
                "index": index,
                "sample": sample,
            },
        )
        for mode in suite.modes
        for index in range(len(suite.problems))
        for sample in range(suite.samples)
    ]
    run = CampaignRun(f"bench-{suite.name}", executor, {PROJECT: f"pkg:{PROJECT}"})
    try:
        # The executors block; the event loop of the caller stays free meanwhile.
        results = await asyncio.to_thread(run.run, tasks)
    finally:
        executor.close()
    summaries: dict[str, ModeSummary] = {}
    for mode in suite.modes:
        summary = ModeSummary(mode=mode)
        iterations: list[int] = []
        for task, result in zip(tasks, results, strict=True):
            if task.args["mode"] != mode:
                continue
            data: dict[str, Any] = result.data
            summary.runs += 1
            summary.run_ids.append(data["run_id"])
            summary.blocks += data["blocks"]
            summary.passed += data["passed"]
            iterations += data["iterations"]
            summary.tokens += data["tokens"]
            summary.cost_usd += data["cost_usd"]
        summary.pass_rate = summary.passed / max(1, summary.blocks)
        summary.mean_iterations = sum(iterations) / max(1, len(iterations))
        summary.cost_usd = round(summary.cost_usd, 6)
        summaries[mode] = summary
    result: dict[str, object] = {
        "suite": suite.name,
        "modes": {k: v.model_dump() for k, v in summaries.items()},
    }
    (runs_dir / f"bench-{suite.name}.json").write_text(yaml.safe_dump(result, sort_keys=False))
    (runs_dir / f"bench-{suite.name}.run.json").write_text(run.record().to_json())
    return result
