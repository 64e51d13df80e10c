"""Throughput of the equalizer and the channel estimator, measured by simulation.

Prints, side by side in one run (full-rate stream: no input gaps, no back-pressure, via the
``tb: stream_cycles=`` line of each testbench under ``+FULL_RATE``):
* equalizer cycles per RE over a whole R.2 subframe's PDSCH (ZF and MMSE) against the
  target of one RE per 2 cycles;
* channel_estimator cycles per subframe (input phase + output phase) and per RE, and the
  share of a 1 ms subframe that takes at 100 MHz;
* the Icarus / Verilator wall-time ratio of the same equalizer case.

Run: ``.venv/bin/python bench/hdl_eq_chest_bench.py``.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from silicon_agent.hdl.registry import load_registry
from silicon_agent.hdl.sim import VectorCase, VectorSet, repo_workspace, run_case, simulator

CLOCK_HZ = 100e6
SUBFRAME_S = 1e-3
EQ_TARGET_CYCLES_PER_RE = 2.0
STREAM = re.compile(r"tb: stream_cycles=(\d+) items=(\d+)")


async def _stream_cycles(
    sim_name: str, block_name: str, case: VectorCase
) -> tuple[int, int, float]:
    ws = repo_workspace()
    block = load_registry().block(block_name)
    full = case.model_copy(update={"plusargs": [*case.plusargs, "FULL_RATE"]})
    started = time.monotonic()
    res = await run_case(simulator(ws, sim_name), block, full, timeout_s=900)  # type: ignore[arg-type]
    wall = time.monotonic() - started
    if res.status != "PASS":
        raise SystemExit(f"{sim_name} {block_name} {case.case}: {res.status} {res.summary}")
    found = STREAM.search((ws.root / res.artifacts["log"]).read_text())
    if not found:
        raise SystemExit(f"{sim_name} {block_name} {case.case}: no stream_cycles line")
    return int(found[1]), int(found[2]), wall


async def main_async() -> None:
    ws = repo_workspace()
    reg = load_registry()
    vs = VectorSet(ws, "bench")
    try:
        print(f"clock {CLOCK_HZ / 1e6:.0f} MHz, full-rate streams")
        for method in ("zf", "mmse"):
            case = vs.generate(reg.block("equalizer"), seed=3, params={"method": method})[0]
            cycles, items, _ = await _stream_cycles("verilator", "equalizer", case)
            per_re = cycles / items
            print(
                f"  equalizer {method:4s}: {cycles} cycles for {items} REs -> {per_re:.3f} "
                f"cycles/RE ({EQ_TARGET_CYCLES_PER_RE / per_re:.2f}x the 1 RE per 2 cycles target)"
            )
        case = vs.generate(reg.block("channel_estimator"), seed=3, params={"cell_id": 7})[0]
        cycles, items, _ = await _stream_cycles("verilator", "channel_estimator", case)
        busy = cycles / CLOCK_HZ / SUBFRAME_S
        print(
            f"  channel_estimator: {cycles} cycles per subframe of {items} REs -> "
            f"{cycles / items:.3f} cycles/RE, {busy * 100:.1f}% of a 1 ms subframe"
        )
        case = vs.generate(reg.block("equalizer"), seed=4, params={"method": "zf"})[0]
        c_v, _, wall_v = await _stream_cycles("verilator", "equalizer", case)
        c_i, _, wall_i = await _stream_cycles("iverilog", "equalizer", case)
        assert c_v == c_i, (c_v, c_i)
        print(
            f"simulation wall time, equalizer R.2 subframe ({c_v} cycles): verilator "
            f"{wall_v:.1f} s (cached build), iverilog {wall_i:.1f} s, ratio icarus/verilator "
            f"{wall_i / max(wall_v, 1e-3):.1f}x"
        )
    finally:
        vs.close()


def main() -> None:
    asyncio.run(main_async())


if __name__ == "__main__":
    main()
