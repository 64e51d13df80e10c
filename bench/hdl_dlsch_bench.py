"""Benchmark of the DL-SCH back end (hdl/rtl/dl_sch_processor.sv), by simulation through the
suite's own tools.

Prints, side by side in one run, for transport blocks of one, two and three code blocks:
* cycles per transport block at full rate (first APP LLR accepted to the last byte out), the
  cycles per input LLR and the throughput at 100 MHz against the 10.3 Mbit/s Cat-1 needs;
* the wall time of the same testbench on Verilator and on Icarus (ratio; both builds are
  made by a warm-up run first, so this is the simulation alone plus the tools' call overhead).

Run: ``.venv/bin/python bench/hdl_dlsch_bench.py``.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from silicon_agent.hdl.registry import load_registry
from silicon_agent.hdl.sim import VectorCase, VectorSet, repo_workspace, run_case, simulator

CLOCK_HZ = 100e6
CAT1_MBPS = 10.3
CYCLES = re.compile(r"tb: block_cycles=(\d+)")
CASES = {
    "R.2, C = 1": {"tbs": 4392, "G": 13800, "snr_db": 2.0},
    "R.31-1, C = 2": {"tbs": 10296, "G": 26100, "Qm": 6, "snr_db": 3.0},
    "C = 3, F = 24": {"tbs": 13000, "G": 20000, "snr_db": 4.0},
}


async def _cycles(sim_name: str, case: VectorCase) -> tuple[int, float]:
    ws = repo_workspace()
    block = load_registry().block("dl_sch_processor")
    full = case.model_copy(update={"plusargs": [*case.plusargs, "FULL_RATE"]})
    started = time.monotonic()
    res = await run_case(simulator(ws, sim_name), block, full, timeout_s=600)  # type: ignore[arg-type]
    wall = time.monotonic() - started
    if res.status != "PASS":
        raise SystemExit(f"{sim_name} {case.case}: {res.status} {res.summary}")
    found = CYCLES.search((ws.root / res.artifacts["log"]).read_text())
    if not found:
        raise SystemExit(f"{sim_name} {case.case}: no block_cycles line in the log")
    return int(found[1]), wall


async def main_async() -> None:
    ws = repo_workspace()
    block = load_registry().block("dl_sch_processor")
    vs = VectorSet(ws, "bench")
    try:
        print(f"dl_sch_processor, clock {CLOCK_HZ / 1e6:.0f} MHz, full-rate stream")
        cases = {k: vs.generate(block, seed=5, params=dict(v))[0] for k, v in CASES.items()}
        # A separate warm-up case: the simulators cache results, a repeated case would be free.
        warm = vs.generate(block, seed=6, params={"tbs": 1008, "G": 3000, "snr_db": 1.0})[0]
        for sim_name in ("verilator", "iverilog"):
            await _cycles(sim_name, warm)
        for label, case in cases.items():
            meta = json.loads((Path(case.directory) / "dl_sch_processor.json").read_text())
            n_app, tbs = meta["params"]["n_app"], meta["params"]["tbs"]
            c_v, wall_v = await _cycles("verilator", case)
            c_i, wall_i = await _cycles("iverilog", case)
            assert c_v == c_i, (c_v, c_i)
            mbps = tbs / c_v * CLOCK_HZ / 1e6
            print(
                f"  {label:14s} A = {tbs:5d}, {n_app:5d} APP LLRs: {c_v} cycles/TB "
                f"({c_v / n_app:.3f} cycles/LLR) -> {mbps:.1f} Mbit/s "
                f"({mbps / CAT1_MBPS:.1f}x Cat-1 10.3); wall verilator {wall_v:.1f} s, "
                f"iverilog {wall_i:.1f} s, ratio icarus/verilator {wall_i / max(wall_v, 1e-3):.1f}x"
            )
    finally:
        vs.close()


def main() -> None:
    asyncio.run(main_async())


if __name__ == "__main__":
    main()
