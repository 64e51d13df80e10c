"""``python -m silicon_agent.hdl.run BLOCK [--simulator S] [--seed N] [--lint]``: generate
the block's refmodels vectors, run its testbench on every case through the suite's simulator
API and print one verdict line per case (exit status 1 when any case fails).

With an executor option (``--ray``, ``--executor``, ``--ray-address``; or ``$RAY_ADDRESS``) or
``--out``, the block's cases run as a campaign on that executor instead of here.

``python -m silicon_agent.hdl.run --all [--blocks B[:CASE,..] ..] [--simulators ..]
[--seeds N] [--ray]``:
the regression campaign, every block x case x simulator x seed as a task on an executor.
An option that does not apply is refused in one line (exit status 2), never ignored."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from silicon_agent.campaigns.cli import (
    add_executor_options,
    executor_from_args,
    executor_if_asked,
    refusals,
)
from silicon_agent.campaigns.executors import Executor, SerialExecutor
from silicon_agent.hdl.campaign import SIMULATORS, run_regression, select
from silicon_agent.hdl.registry import Block, load_registry
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


PROG = "python -m silicon_agent.hdl.run"


def main() -> None:
    ap = argparse.ArgumentParser(prog=PROG)
    ap.add_argument("block", nargs="?")
    ap.add_argument(
        "--simulator", choices=SIMULATORS, help="the one simulator (default: verilator)"
    )
    ap.add_argument("--seed", type=int, help="refmodels vector seed (campaign: the first seed)")
    ap.add_argument("--lint", action="store_true", help="also lint with verilator -Wall")
    campaign = ap.add_argument_group("regression campaign (--all)")
    campaign.add_argument("--all", action="store_true", help="every block x case x simulator")
    campaign.add_argument("--blocks", nargs="+", help="BLOCK or BLOCK:CASE,CASE (default: all)")
    campaign.add_argument(
        "--simulators", nargs="+", choices=SIMULATORS, help="default: every simulator"
    )
    campaign.add_argument("--seeds", type=int, help="seeds per case (default 1)")
    campaign.add_argument("--out", type=Path, help="write summary.json/.txt and run.json here")
    add_executor_options(ap)
    args = ap.parse_args()
    with refusals(PROG):
        sys.exit(dispatch(args))


def dispatch(args: argparse.Namespace) -> int:
    """One block here, or a campaign on the executor asked for; an option that does not apply
    to what runs is refused, never ignored."""
    if args.simulator and args.simulators:
        raise ValueError("INVALID_INPUT: give --simulator or --simulators, not both")
    seed = args.seed or 0
    if args.all or args.blocks:
        if args.block is not None:
            raise ValueError(
                f"INVALID_INPUT: BLOCK {args.block!r} with --all/--blocks: give one or the other"
            )
        if args.lint:
            raise ValueError("INVALID_INPUT: --lint lints one BLOCK; the campaign does not lint")
        simulators = args.simulators or ([args.simulator] if args.simulator else SIMULATORS)
        return campaign_exit(
            select(args.blocks), list(simulators), args.seeds or 1, executor_from_args(args),
            args.out, seed,
        )  # fmt: skip
    if args.block is None:
        raise ValueError("INVALID_INPUT: give a BLOCK, or --all for the regression campaign")
    for option, value in (("--simulators", args.simulators), ("--seeds", args.seeds)):
        if value is not None:
            raise ValueError(
                f"INVALID_INPUT: {option} is a campaign option (--all/--blocks); for one block "
                f"give --simulator / --seed"
            )
    sim = args.simulator or "verilator"
    executor = executor_if_asked(args)
    if executor is None and args.workers is not None:
        raise ValueError("INVALID_INPUT: --workers needs an executor (--executor pool or --ray)")
    if executor is None and args.out is None:
        return asyncio.run(run_block(args.block, sim, seed, args.lint))
    # An executor (or a run record) asked for: the block's cases as a campaign there.
    if args.lint:
        executor_close(executor)
        raise ValueError(
            "INVALID_INPUT: --lint runs here, not on an executor: lint without "
            "--ray/--executor/--out, then run the cases there"
        )
    if executor is None:
        executor = SerialExecutor()
    return campaign_exit(select([args.block]), [sim], 1, executor, args.out, seed)


def executor_close(executor: Executor | None) -> None:
    if executor is not None:
        executor.close()


def campaign_exit(
    selection: list[tuple[Block, list[str]]],
    simulators: list[str],
    seeds: int,
    executor: Executor,
    out: Path | None,
    first_seed: int,
) -> int:
    summary = run_regression(selection, simulators, seeds, executor, out, first_seed=first_seed)
    return 1 if summary.failed else 0


if __name__ == "__main__":
    main()
