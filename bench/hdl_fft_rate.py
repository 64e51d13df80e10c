"""Sustained rate of the ofdm_demodulator's FFT, measured by simulation through the suite's tools.

The testbench runs one subframe (15360 samples) with no input gaps and the output always ready
(``FULL_RATE``) after a warm-up pass and prints ``tb: subframe_cycles=`` (cycles between the last
REs of two back-to-back subframes, i.e. the steady state). Printed, side by side:
* cycles per OFDM symbol against the 15.36 Msps budget at 100 MHz (7142.9 cycles);
* "FFT sustained rate X Msps at 100 MHz vs 15.36 Msps needed (ratio R)";
* with ``--icarus``, the same cycle count from Icarus (must agree) and the wall-time ratio.

Run: ``.venv/bin/python bench/hdl_fft_rate.py [--icarus]``.
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

CLOCK_HZ = 100e6
NEEDED_MSPS = 15.36
SUBFRAME_SAMPLES = 15360
SYMBOLS = 14
SUBFRAME = re.compile(r"tb: subframe_cycles=(\d+)")


async def subframe_cycles(sim_name: str, case: VectorCase) -> tuple[int, float]:
    """Steady-state cycles per subframe at full rate, and the simulation's wall time."""
    ws = repo_workspace()
    block = load_registry().block("ofdm_demodulator")
    full = case.model_copy(update={"plusargs": [*case.plusargs, "FULL_RATE"]})
    started = time.monotonic()
    res = await run_case(simulator(ws, sim_name), block, full, timeout_s=1800)  # type: ignore[arg-type]
    wall = time.monotonic() - started
    if res.status != "PASS":
        raise SystemExit(f"{sim_name} {case.case}: {res.status} {res.summary}")
    found = SUBFRAME.search((ws.root / res.artifacts["log"]).read_text())
    if not found:
        raise SystemExit(f"{sim_name} {case.case}: no subframe_cycles line in the log")
    return int(found[1]), wall


def rate_msps(cycles: int) -> float:
    return SUBFRAME_SAMPLES / cycles * CLOCK_HZ / 1e6


async def main_async(icarus: bool) -> None:
    ws = repo_workspace()
    block = load_registry().block("ofdm_demodulator")
    vs = VectorSet(ws, "bench")
    try:
        case = vs.generate(block, seed=3, params={"channel": "awgn", "subframe": 1})[0]
        cycles, wall_v = await subframe_cycles("verilator", case)
        budget = SUBFRAME_SAMPLES / SYMBOLS * CLOCK_HZ / (NEEDED_MSPS * 1e6)
        per_symbol = cycles / SYMBOLS
        msps = rate_msps(cycles)
        print(
            f"ofdm_demodulator, clock {CLOCK_HZ / 1e6:.0f} MHz: {cycles} cycles/subframe, "
            f"{per_symbol:.1f} cycles/symbol vs {budget:.1f} budget "
            f"(verilator wall {wall_v:.1f} s incl. build if not cached)"
        )
        print(
            f"FFT sustained rate {msps:.2f} Msps at 100 MHz vs {NEEDED_MSPS} Msps needed "
            f"(ratio {msps / NEEDED_MSPS:.2f})"
        )
        if icarus:
            c_i, wall_i = await subframe_cycles("iverilog", case)
            if c_i != cycles:
                raise SystemExit(f"icarus counts {c_i} cycles, verilator {cycles}")
            print(
                f"icarus agrees ({c_i} cycles); wall icarus {wall_i:.1f} s vs verilator "
                f"{wall_v:.1f} s (ratio {wall_i / max(wall_v, 1e-3):.1f}x)"
            )
    finally:
        vs.close()


def main() -> None:
    ap = argparse.ArgumentParser(prog="bench/hdl_fft_rate.py")
    ap.add_argument("--icarus", action="store_true", help="also count the cycles on Icarus")
    asyncio.run(main_async(ap.parse_args().icarus))


if __name__ == "__main__":
    main()
