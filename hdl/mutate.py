"""``python -m silicon_agent.hdl.mutate [--blocks B ..] [--ray]``: the mutation campaign.
Every mutant of ``hdl/mutations.py`` is one task: a mutated copy of one design file,
run on the block's case
(SIM_FAIL is a caught mutant: a result, not a failure to retry). Exit status 1 when a mutant
survives."""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from pathlib import Path

from silicon_agent.campaigns.cli import add_executor_options, executor_from_args
from silicon_agent.campaigns.executors import Executor
from silicon_agent.campaigns.runner import CampaignRun
from silicon_agent.campaigns.summary import Summary, table
from silicon_agent.campaigns.task import Outcome, Task
from silicon_agent.hdl.campaign import PROBES, case_names
from silicon_agent.hdl.harq_seq import sequence_block, sequence_case
from silicon_agent.hdl.mutations import CASE_FOR, MUTATIONS, SEQUENCE_CASE, VERILATOR_MUTANTS
from silicon_agent.hdl.registry import PACKAGE_SV, REPO, load_registry
from silicon_agent.hdl.sim import SimulatorName, VectorSet, repo_workspace, run_case, simulator
from silicon_agent.servers.core.models import Status


def mutant_id(block: str, label: str) -> str:
    return f"{block}/{re.sub(r'[^a-z0-9]+', '-', label.lower()).strip('-')}"


def mutation_tasks(blocks: list[str] | None = None) -> list[Task]:
    known = {m[0] for m in MUTATIONS}
    unknown = sorted(set(blocks or []) - known)
    if unknown:
        raise ValueError(f"INVALID_INPUT: no mutants for block {', '.join(unknown)}")
    return [
        Task(
            id=mutant_id(block, label),
            fn="silicon_agent.hdl.mutate:mutant_task",
            args={"block": block, "label": label},
            resources={sim_for(block): 1},
        )
        for block, label, *_ in MUTATIONS
        if not blocks or block in blocks
    ]


def sim_for(block: str) -> SimulatorName:
    return "verilator" if block in VERILATOR_MUTANTS else "iverilog"


def mutant_task(block: str, label: str) -> Outcome:
    """Run one mutant; ``ok`` means the testbench caught it."""
    (_, _, path, original, mutated) = next(m for m in MUTATIONS if m[:2] == (block, label))
    spec = load_registry().block(block)
    case = CASE_FOR.get(label, case_names(spec)[-1])
    text = (REPO / path).read_text()
    if text.count(original) != 1:
        data = {"status": "SITE_NOT_FOUND", "case": case, "file": path}
        return Outcome(ok=False, data=data)
    ws = repo_workspace()
    vectors = VectorSet(ws, "mutant")
    try:
        copy = vectors.root / "design" / Path(path).name
        copy.parent.mkdir(mode=0o755)
        copy.write_text(text.replace(original, mutated))
        copy.chmod(0o644)
        design = [ws.relative(copy) if f == path else f for f in spec.rtl]
        if case == SEQUENCE_CASE:
            spec = sequence_block(load_registry())
            vc, _ = sequence_case(vectors)
        else:
            (vc,) = vectors.generate(spec, only=[case])
        sim = simulator(ws, sim_for(block))
        package = ws.relative(copy) if path == PACKAGE_SV else PACKAGE_SV
        res = asyncio.run(run_case(sim, spec, vc, design=design, package=package))
    finally:
        vectors.close()
    caught = res.status == Status.SIM_FAIL and (res.mismatch_count or 0) > 0
    data = {
        "status": res.status.value,
        "case": case,
        "simulator": res.tool,
        "mismatch_count": res.mismatch_count,
        "summary": res.summary,
    }
    return Outcome(ok=caught, data=data)


def run_mutations(blocks: list[str] | None, executor: Executor, out: Path | None) -> Summary:
    tasks = mutation_tasks(blocks)
    run = CampaignRun("hdl-mutations", executor, PROBES)
    try:
        results = run.run(tasks)
    finally:
        executor.close()
    summary = run.summary({"blocks": sorted({t.args["block"] for t in tasks})}, results)
    summary.totals = {
        "caught": summary.passed,
        "survived": [r["task_id"] for r in summary.results if not r["ok"]],
        "score": round(summary.passed / max(summary.total, 1), 4),
    }
    rows = [
        [r["task_id"], "caught" if r["ok"] else "SURVIVED", r["status"], r["case"]]
        for r in summary.results
    ]
    run.finish(summary, table(rows, ["mutant", "verdict", "status", "case"]), out)
    return summary


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m silicon_agent.hdl.mutate", description=__doc__)
    ap.add_argument("--blocks", nargs="+", help="only these blocks' mutants")
    ap.add_argument("--out", type=Path, help="write summary.json/.txt and run.json here")
    add_executor_options(ap)
    args = ap.parse_args()
    try:
        summary = run_mutations(args.blocks, executor_from_args(args), args.out)
    except ValueError as exc:
        ap.error(str(exc))
    sys.exit(1 if summary.failed else 0)


if __name__ == "__main__":
    main()
