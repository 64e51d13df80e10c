"""`agent-host bench SUITE`: pass rate, iterations, tokens and cost over a set of problems,
reported separately for runs with and without access to the reference.

A suite file (YAML):
    name: smoke
    problems:
      - design: designs/counter.yaml      # relative to the suite file
        reference: refs/counter_ref.sv    # optional: what "with reference" runs may read
    modes: [without_reference, with_reference]
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from .design import load_design
from .runs import create_run, execute_run
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


def design_for_mode(problem: Problem, base: Path, mode: Mode, out: Path) -> Path:
    """The problem's design; with the reference, each block's spec carries it."""
    loaded = load_design(base / problem.design)
    if mode == "without_reference" or problem.reference is None:
        return loaded.path
    reference = (base / problem.reference).read_text()
    data = loaded.design.model_dump(mode="json")
    data["workspace"] = str(loaded.workspace)
    for block in data["blocks"]:
        block["spec"] = f"{block['spec']}\n\nReference (given for this run):\n{reference}"
        block["spec_file"] = None
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{loaded.path.stem}.with_reference.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


async def run_suite(
    suite_path: Path,
    runs_dir: Path,
    config_path: str | None = None,
    mcp_path: str | None = None,
) -> dict[str, object]:
    suite = Suite.model_validate(yaml.safe_load(suite_path.read_text()))
    base = suite_path.resolve().parent
    summaries: dict[str, ModeSummary] = {}
    for mode in suite.modes:
        summary = ModeSummary(mode=mode)
        iterations: list[int] = []
        for index, problem in enumerate(suite.problems):
            design = design_for_mode(problem, base, mode, runs_dir / "bench-designs")
            run_id = f"bench-{suite.name}-{mode}-{index:03d}"
            run = create_run(design, runs_dir, config_path, mcp_path, run_id=run_id)
            states = await execute_run(run)
            store = StateStore(run / "state.sqlite")
            try:
                events = store.events()
            finally:
                store.close()
            summary.runs += 1
            summary.run_ids.append(run_id)
            summary.blocks += len(states)
            summary.passed += sum(1 for s in states.values() if s.status in DONE)
            iterations += [s.iteration for s in states.values()]
            summary.tokens += sum(e.input_tokens + e.output_tokens for _, e in events)
            summary.cost_usd += sum(e.cost_usd for _, e in events)
        summary.pass_rate = summary.passed / max(1, summary.blocks)
        summary.mean_iterations = sum(iterations) / max(1, len(iterations))
        summary.cost_usd = round(summary.cost_usd, 6)
        summaries[mode] = summary
    result: dict[str, object] = {
        "suite": suite.name,
        "modes": {k: v.model_dump() for k, v in summaries.items()},
    }
    (runs_dir / f"bench-{suite.name}.json").write_text(yaml.safe_dump(result, sort_keys=False))
    return result
