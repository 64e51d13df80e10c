"""``python -m hdl.run BLOCK [--simulator iverilog|verilator] [--seed N] [--lint]``: generate
the block's refmodels vectors, run its testbench on every case through the suite's simulator
API and print one verdict line per case (exit status 1 when any case fails)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from hdl.registry import load_registry
from hdl.sim import VectorSet, repo_workspace, run_case, simulator


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
    ap = argparse.ArgumentParser(prog="python -m hdl.run")
    ap.add_argument("block")
    ap.add_argument("--simulator", default="verilator", choices=["iverilog", "verilator"])
    ap.add_argument("--seed", type=int, default=0, help="refmodels vector seed")
    ap.add_argument("--lint", action="store_true", help="also lint with verilator -Wall")
    args = ap.parse_args()
    sys.exit(asyncio.run(run_block(args.block, args.simulator, args.seed, args.lint)))


if __name__ == "__main__":
    main()
