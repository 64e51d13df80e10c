"""Benchmarks of the hdl/ blocks, measured by simulation through the suite's own tools.

Prints, side by side in one run:
* turbo_decoder cycles per code block and the throughput at 100 MHz, for K = 6144 and K = 512,
  at 8 iterations (CRC never passes) and with early stop: decode only (last input beat to first
  output beat), load + decode + unload of one block (full-rate stream: K + 4 beats of
  {d2[k], d1[k], d0[k]} in, one APP LLR per beat out) and the steady state of back-to-back
  blocks (the input and output are double-buffered: the interval between the last output beats
  of two blocks), against the 10.3 Mbit/s Cat-1 needs and the 50 Mbit/s aim;
* the wall time of the same testbench on Verilator and on Icarus (ratio).

Run: ``.venv/bin/python bench/hdl_bench.py [--quick]`` (``--quick`` uses K = 1024 and 512).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from silicon_agent.hdl.registry import load_registry
from silicon_agent.hdl.sim import VectorCase, VectorSet, repo_workspace, run_case, simulator
from silicon_agent.refmodels.turbo_decoder import siso_count

CLOCK_HZ = 100e6
CAT1_MBPS = 10.3
AIM_MBPS = 50.0
CYCLES = re.compile(r"tb: block_cycles=(\d+)")
DECODE = re.compile(r"tb: decode_cycles=(\d+)")
STEADY = re.compile(r"tb: steady_cycles=(\d+)")


async def _cycles(sim_name: str, case: VectorCase) -> tuple[int, int, int, float]:
    ws = repo_workspace()
    block = load_registry().block("turbo_decoder")
    full = case.model_copy(update={"plusargs": [*case.plusargs, "FULL_RATE"]})
    started = time.monotonic()
    res = await run_case(simulator(ws, sim_name), block, full, timeout_s=1800)  # type: ignore[arg-type]
    wall = time.monotonic() - started
    if res.status != "PASS":
        raise SystemExit(f"{sim_name} {case.case}: {res.status} {res.summary}")
    log = (ws.root / res.artifacts["log"]).read_text()
    found, decode, steady = CYCLES.search(log), DECODE.search(log), STEADY.search(log)
    if not found or not decode or not steady:
        raise SystemExit(f"{sim_name} {case.case}: no block / decode / steady cycles in the log")
    return int(found[1]), int(decode[1]), int(steady[1]), wall


def _rate(k: int, cycles: int) -> str:
    mbps = k / cycles * CLOCK_HZ / 1e6
    return f"{mbps:6.2f} Mbit/s ({mbps / CAT1_MBPS:4.2f}x Cat-1, {mbps / AIM_MBPS:4.2f}x aim)"


async def main_async(quick: bool) -> None:
    ws = repo_workspace()
    block = load_registry().block("turbo_decoder")
    vs = VectorSet(ws, "bench")
    try:
        print(f"turbo_decoder at {CLOCK_HZ / 1e6:.0f} MHz: Cat-1 needs {CAT1_MBPS}, aim {AIM_MBPS}")
        for k in (1024, 512) if quick else (6144, 512):
            worst = vs.generate(block, seed=7, params={"K": k, "ebn0_db": -2.0, "iters": 8})[0]
            typical = vs.generate(block, seed=8, params={"K": k, "ebn0_db": 1.0, "iters": 8})[0]
            print(f"K = {k} ({siso_count(k)} SISOs)")
            for label, case in (("8 iterations", worst), ("early stop", typical)):
                total, decode, steady, wall_v = await _cycles("verilator", case)
                print(f"  {label} (verilator wall {wall_v:.1f} s)")
                print(f"    decode only         {decode:6d} cycles {_rate(k, decode)}")
                print(f"    load+decode+unload  {total:6d} cycles {_rate(k, total)}")
                print(f"    steady state        {steady:6d} cycles {_rate(k, steady)}")
        small = vs.generate(block, seed=9, params={"K": 512, "ebn0_db": -2.0, "iters": 8})[0]
        c_v, _, _, wall_v = await _cycles("verilator", small)
        c_i, _, _, wall_i = await _cycles("iverilog", small)
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
