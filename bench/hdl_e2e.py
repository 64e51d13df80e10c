"""End-to-end benchmark of lte_baseband_top, measured by simulation through the suite's tools.

Prints, side by side in one run:
* cycles per transport block for R.2 (QPSK, 1 code block) and R.31-1 (64QAM, 2 code blocks),
  full-rate stream (no input gaps, no output back-pressure): latency from the subframe's first
  IQ sample to the CRC verdict on the last MAC PDU byte, and the steady-state interval between
  two back-to-back subframes, against the 100 000 cycles of a 1 ms subframe at 100 MHz;
* the simulation wall time of the R.2 end-to-end case on Verilator (build cached or not, said
  which) and on Icarus, time-boxed (``--icarus-timeout``, default 600 s; on timeout it prints
  how far Icarus got in that time).

Run: ``.venv/bin/python bench/hdl_e2e.py [--icarus-timeout S] [--skip-icarus]``.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from silicon_agent.hdl.registry import load_registry, load_sidecar
from silicon_agent.hdl.sim import VectorCase, VectorSet, repo_workspace, run_case, simulator

BLOCK = "lte_baseband_top"
CLOCK_HZ = 100e6
SUBFRAME_CYCLES = int(CLOCK_HZ * 1e-3)
CYCLES = re.compile(r"tb: tb_cycles=(\d+)")
INTERVAL = re.compile(r"tb: tb_interval=(\d+)")


async def _run(sim_name: str, case: VectorCase, full_rate: bool, timeout_s: float) -> dict:
    ws = repo_workspace()
    block = load_registry().block(BLOCK)
    extra = ["FULL_RATE"] if full_rate else []
    run = case.model_copy(update={"plusargs": [*case.plusargs, *extra]})
    started = time.monotonic()
    res = await run_case(simulator(ws, sim_name), block, run, timeout_s=timeout_s)  # type: ignore[arg-type]
    wall = time.monotonic() - started
    out = {"status": str(res.status), "summary": res.summary, "wall": wall, "cycles": None}
    out["interval"] = None
    log_rel = (res.artifacts or {}).get("log")
    if log_rel and (ws.root / log_rel).is_file():
        log = (ws.root / log_rel).read_text()
        if found := CYCLES.search(log):
            out["cycles"] = int(found[1])
        if found := INTERVAL.search(log):
            out["interval"] = int(found[1])
    out["tail"] = (res.output_tail or "")[-300:]
    return out


async def main_async(icarus_timeout: float, skip_icarus: bool) -> None:
    ws = repo_workspace()
    block = load_registry().block(BLOCK)
    vs = VectorSet(ws, "bench-e2e")
    try:
        cases = {c.case: c for c in vs.generate(block)}
        print(f"{BLOCK}: IQ samples -> MAC PDU, AWGN 20 dB, clock {CLOCK_HZ / 1e6:.0f} MHz")
        first = True
        for name, label in (("r2_awgn20", "R.2"), ("r31_1_awgn20", "R.31-1")):
            params = load_sidecar(Path(cases[name].directory), BLOCK)["params"]
            r = await _run("verilator", cases[name], True, 1800)
            if r["status"] != "PASS" or r["cycles"] is None:
                raise SystemExit(f"verilator {label}: {r['status']} {r['summary']}")
            build = " (incl. Verilator build if not cached)" if first else ""
            first = False
            print(
                f"  {label:7s} TBS {params['tbs']:5d}, C {params['C']}, Qm {params['Qm']}: "
                f"{r['cycles']} cycles first sample -> CRC verdict "
                f"({r['cycles'] / SUBFRAME_CYCLES:.2f} subframes), "
                f"interval {r['interval']} cycles/subframe "
                f"({r['interval'] / SUBFRAME_CYCLES:.2f} of 1 ms) -> "
                f"{params['tbs'] / r['interval'] * CLOCK_HZ / 1e6:.2f} Mbit/s; "
                f"verilator wall {r['wall']:.1f} s{build}"
            )
        # The test's case (random gaps and back-pressure, reset mid-subframe, 2 passes).
        v = await _run("verilator", cases["r2_awgn20"], False, 1800)
        print(
            f"simulation wall time, R.2 end-to-end testbench (reset + 2 subframes): "
            f"verilator {v['wall']:.1f} s ({v['status']})"
        )
        if skip_icarus:
            print("  icarus: skipped (--skip-icarus)")
            return
        i = await _run("iverilog", cases["r2_awgn20"], False, icarus_timeout)
        if i["status"] == "PASS":
            print(
                f"  icarus {i['wall']:.1f} s ({i['status']}, {i['summary']}); "
                f"ratio icarus/verilator {i['wall'] / max(v['wall'], 1e-3):.0f}x"
            )
        else:
            print(
                f"  icarus: {i['status']} after {i['wall']:.0f} s (time box "
                f"{icarus_timeout:.0f} s): {i['summary']}; ratio icarus/verilator > "
                f"{i['wall'] / max(v['wall'], 1e-3):.0f}x"
            )
    finally:
        vs.close()


def main() -> None:
    ap = argparse.ArgumentParser(prog="bench/hdl_e2e.py")
    ap.add_argument("--icarus-timeout", type=float, default=600.0)
    ap.add_argument("--skip-icarus", action="store_true")
    args = ap.parse_args()
    asyncio.run(main_async(args.icarus_timeout, args.skip_icarus))


if __name__ == "__main__":
    main()
