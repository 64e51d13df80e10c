"""``python -m silicon_agent.hdl.run BLOCK [--simulator S] [--seed N] [--lint]``: generate
the block's refmodels vectors, run its testbench on every case through the suite's simulator
API and print one verdict line per case (exit status 1 when any case fails).

``python -m silicon_agent.hdl.run --all [--blocks B[:CASE,..] ..] [--simulators ..]
[--seeds N] [--ray]``:
the regression campaign, every block x case x simulator x seed as a task on an executor."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from silicon_agent.campaigns.cli import add_executor_options, executor_from_args
from silicon_agent.hdl.campaign import SIMULATORS, run_regression, select
from silicon_agent.hdl.registry import load_registry
from silicon_agent.hdl.sim import VectorSet, repo_workspace, run_case, simulator


async def run_block(name: str, sim_name: str, seed: int, lint: bool) -> int:
    ws = repo_workspace()
    block = load_registry().block(name)
    failed = 0
    if lint:
        res = await simulator(ws, "verilator").lint(block.rtl, top=block.name)
        print(f"lint {block.name}: {res.status} {res.summary}")
        failed += res.status != "PASS" or bool(res.diagnostics)
    vs = VectorSet(ws, "run")
    try:
        sim = simulator(ws, sim_name)  # type: ignore[arg-type]
        for case in vs.generate(block, seed=seed):
            res = await run_case(sim, block, case, timeout_s=900)
            judged = f"; {res.trace.summary}" if res.trace is not None else ""
            print(
                f"{block.name} {case.case} {sim_name}: {res.status} {res.summary}{judged} "
                f"({res.duration_s:.1f} s)",
                flush=True,
            )
            failed += res.status != "PASS"
    finally:
        vs.close()
    return 1 if failed else 0


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m silicon_agent.hdl.run")
    ap.add_argument("block", nargs="?")
    ap.add_argument("--simulator", default="verilator", choices=["iverilog", "verilator"])
    ap.add_argument("--seed", type=int, default=0, help="refmodels vector seed")
    ap.add_argument("--lint", action="store_true", help="also lint with verilator -Wall")
    campaign = ap.add_argument_group("regression campaign (--all)")
    campaign.add_argument("--all", action="store_true", help="every block x case x simulator")
    campaign.add_argument("--blocks", nargs="+", help="BLOCK or BLOCK:CASE,CASE (default: all)")
    campaign.add_argument("--simulators", nargs="+", choices=SIMULATORS, default=SIMULATORS)
    campaign.add_argument("--seeds", type=int, default=1, help="seeds 0..N-1 per case")
    campaign.add_argument("--out", type=Path, help="write summary.json/.txt and run.json here")
    add_executor_options(ap)
    args = ap.parse_args()
    if args.all or args.blocks:
        try:
            summary = run_regression(
                select(args.blocks),
                list(args.simulators),
                args.seeds,
                executor_from_args(args),
                args.out,
            )
        except ValueError as exc:
            ap.error(str(exc))
        sys.exit(1 if summary.failed else 0)
    if args.block is None:
        ap.error("give a BLOCK, or --all for the regression campaign")
    sys.exit(asyncio.run(run_block(args.block, args.simulator, args.seed, args.lint)))


if __name__ == "__main__":
    main()
