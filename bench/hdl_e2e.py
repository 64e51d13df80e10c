"""End-to-end benchmark of lte_baseband_top, measured by simulation through the suite's tools.

Prints, side by side in one run:
* cycles per transport block for R.2 (QPSK, 1 code block) and R.31-1 (64QAM, 2 code blocks),
  full-rate stream (no input gaps, no output back-pressure) over ``--subframes`` back-to-back
  subframes (default 11, each configured by its own committed words, every byte checked):
  latency from the subframe's first IQ sample to the CRC verdict on the last MAC PDU byte, of
  the first subframe and of the last (in steady state), and the mean and the longest interval
  between consecutive verdicts, against the 100 000 cycles of a 1 ms subframe at 100 MHz, and
  per subframe the cycles each hand-over was held (IQ input, FFT grid output, the estimator's
  output phase, its estimates held, the symbol FIFO full, symbols waiting for the back end's
  configuration);
* the simulation wall time of the R.2 end-to-end case on Verilator (build cached or not, said
  which) and on Icarus, time-boxed (``--icarus-timeout``, default 600 s; on timeout it prints
  how far Icarus got in that time).

Run: ``.venv/bin/python bench/hdl_e2e.py [--subframes N] [--icarus-timeout S] [--skip-icarus]``.
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
# The testbench's figure lines (tb_rx_passes.svh).
FIGURES = ("tb_cycles", "tb_cycles_last", "tb_interval", "tb_interval_max", "tb_subframes")


async def _run(sim_name: str, case: VectorCase, full_rate: bool, timeout_s: float) -> dict:
    ws = repo_workspace()
    block = load_registry().block(BLOCK)
    extra = ["FULL_RATE"] if full_rate else []
    run = case.model_copy(update={"plusargs": [*case.plusargs, *extra]})
    started = time.monotonic()
    res = await run_case(simulator(ws, sim_name), block, run, timeout_s=timeout_s)  # type: ignore[arg-type]
    wall = time.monotonic() - started
    out: dict = {"status": str(res.status), "summary": res.summary, "wall": wall}
    out.update(dict.fromkeys(FIGURES))
    log_rel = (res.artifacts or {}).get("log")
    if log_rel and (ws.root / log_rel).is_file():
        log = (ws.root / log_rel).read_text()
        for name in FIGURES:
            if found := re.search(rf"tb: {name}=(\d+)", log):
                out[name] = int(found[1])
        # Who waited for whom: the testbench's running totals, the last line per subframe.
        if stalls := re.findall(r"tb: stalls passes=(\d+) (.*)", log):
            passes, fields = int(stalls[-1][0]), stalls[-1][1].split()
            out["stalls"] = ", ".join(
                f"{k} {int(v) // passes}" for k, v in (f.split("=") for f in fields)
            )
    out["tail"] = (res.output_tail or "")[-300:]
    return out


async def main_async(icarus_timeout: float, skip_icarus: bool, subframes: int) -> None:
    ws = repo_workspace()
    block = load_registry().block(BLOCK)
    vs = VectorSet(ws, "bench-e2e")
    try:
        cases = {c.case: c for c in vs.generate(block, only=["r2_awgn20"])}
        print(f"{BLOCK}: IQ samples -> MAC PDU, AWGN 20 dB, clock {CLOCK_HZ / 1e6:.0f} MHz")
        first = True
        for rc in ("R.2", "R.31-1"):
            # The reference channel's subframe, sent `subframes` times back to back.
            (case,) = vs.generate(block, params={"rc": rc, "passes": subframes})
            params = load_sidecar(Path(case.directory), BLOCK)["params"]
            label = rc
            r = await _run("verilator", case, True, 1800)
            if r["status"] != "PASS" or r["tb_interval"] is None:
                raise SystemExit(f"verilator {label}: {r['status']} {r['summary']}")
            build = " (incl. Verilator build if not cached)" if first else ""
            first = False
            interval, worst = r["tb_interval"], r["tb_interval_max"]
            print(
                f"  {label:7s} TBS {params['tbs']:5d}, C {params['C']}, Qm {params['Qm']}, "
                f"{r['tb_subframes']} subframes back to back ({r['summary']}): latency first "
                f"sample -> CRC verdict {r['tb_cycles']} cycles "
                f"({r['tb_cycles'] / SUBFRAME_CYCLES:.2f} ms), in steady state "
                f"{r['tb_cycles_last']} ({r['tb_cycles_last'] / SUBFRAME_CYCLES:.2f} ms); "
                f"interval mean {interval} cycles/subframe "
                f"({interval / SUBFRAME_CYCLES:.3f} of 1 ms), longest {worst} "
                f"({worst / SUBFRAME_CYCLES:.3f}) -> "
                f"{params['tbs'] / interval * CLOCK_HZ / 1e6:.2f} Mbit/s; "
                f"verilator wall {r['wall']:.1f} s{build}"
            )
            if r.get("stalls"):
                print(f"          cycles held per subframe: {r['stalls']}")
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
    ap.add_argument("--subframes", type=int, default=11, help="back-to-back subframes (>= 2)")
    args = ap.parse_args()
    if args.subframes < 2:
        ap.error("--subframes must be >= 2")
    asyncio.run(main_async(args.icarus_timeout, args.skip_icarus, args.subframes))


if __name__ == "__main__":
    main()
