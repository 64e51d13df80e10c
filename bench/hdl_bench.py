"""Benchmarks of the hdl/ blocks, measured by simulation through the suite's own tools.

Prints, side by side in one run:
* turbo_decoder cycles per code block (load + decode + unload, full-rate stream) and the
  throughput at 100 MHz for K = 6144 at 8 iterations (CRC never passes) and with early stop,
  against the 10.3 Mbit/s Cat-1 needs and the 50 Mbit/s aim;
* the wall time of the same testbench on Verilator and on Icarus (ratio).

Run: ``.venv/bin/python bench/hdl_bench.py [--quick]`` (``--quick`` uses K = 1024).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hdl.registry import load_registry
from hdl.sim import VectorCase, VectorSet, repo_workspace, run_case, simulator

CLOCK_HZ = 100e6
CAT1_MBPS = 10.3
AIM_MBPS = 50.0
CYCLES = re.compile(r"tb: block_cycles=(\d+)")


async def _cycles(sim_name: str, case: VectorCase) -> tuple[int, float]:
    ws = repo_workspace()
    block = load_registry().block("turbo_decoder")
    full = case.model_copy(update={"plusargs": [*case.plusargs, "FULL_RATE"]})
    started = time.monotonic()
    res = await run_case(simulator(ws, sim_name), block, full, timeout_s=1800)  # type: ignore[arg-type]
    wall = time.monotonic() - started
    if res.status != "PASS":
        raise SystemExit(f"{sim_name} {case.case}: {res.status} {res.summary}")
    log = (ws.root / res.artifacts["log"]).read_text()
    found = CYCLES.search(log)
    if not found:
        raise SystemExit(f"{sim_name} {case.case}: no block_cycles line in the log")
    return int(found[1]), wall


async def main_async(quick: bool) -> None:
    ws = repo_workspace()
    block = load_registry().block("turbo_decoder")
    k = 1024 if quick else 6144
    vs = VectorSet(ws, "bench")
    try:
        worst = vs.generate(block, seed=7, params={"K": k, "ebn0_db": -2.0, "iters": 8})[0]
        typical = vs.generate(block, seed=8, params={"K": k, "ebn0_db": 1.0, "iters": 8})
        print(f"turbo_decoder, K = {k}, clock {CLOCK_HZ / 1e6:.0f} MHz")
        for label, case in (("8 iterations", worst), ("early stop", typical[0])):
            cycles, wall_v = await _cycles("verilator", case)
            mbps = k / cycles * CLOCK_HZ / 1e6
            print(
                f"  {label:13s}: {cycles} cycles/code block -> {mbps:.2f} Mbit/s "
                f"({mbps / CAT1_MBPS:.2f}x Cat-1 10.3, {mbps / AIM_MBPS:.2f}x the 50 aim); "
                f"verilator wall {wall_v:.1f} s"
            )
        small = vs.generate(block, seed=9, params={"K": 512, "ebn0_db": -2.0, "iters": 8})[0]
        c_v, wall_v = await _cycles("verilator", small)
        c_i, wall_i = await _cycles("iverilog", small)
        assert c_v == c_i, (c_v, c_i)
        print(
            f"simulation wall time, turbo_decoder K = 512, 8 iterations ({c_v} cycles): "
            f"verilator {wall_v:.1f} s (incl. build if not cached), iverilog {wall_i:.1f} s, "
            f"ratio icarus/verilator {wall_i / max(wall_v, 1e-3):.1f}x"
        )
    finally:
        vs.close()


def main() -> None:
    ap = argparse.ArgumentParser(prog="bench/hdl_bench.py")
    ap.add_argument("--quick", action="store_true")
    asyncio.run(main_async(ap.parse_args().quick))


if __name__ == "__main__":
    main()
