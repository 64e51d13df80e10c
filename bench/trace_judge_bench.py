"""What the trace judge adds to ``run_testbench``, on a small example and on a receiver block.

Prints, side by side in one run, per simulator: the build (first call, compiled afresh) and the
median of ``REPEATS`` simulation runs (build cached, run cache missed by a varying plusarg)
without and with ``trace``, and the added time and ratio. The example is the counter
(``hdl/examples/counter``, about 600 cycles); the receiver block is the descrambler on its
R.2 case (three passes of some 13 000 LLRs, every one an output beat the judge writes and
compares).

Run: ``.venv/bin/python bench/trace_judge_bench.py [--repeats N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from silicon_agent.hdl.registry import PACKAGE_SV, load_registry
from silicon_agent.hdl.sim import VectorSet, repo_workspace
from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.sv.flow import SimulatorFlow
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.verilator.api import Verilator
from silicon_agent.suite.design import testbench_side

COUNTER = "hdl/examples/counter"


def _counter_call() -> tuple[dict, dict]:
    spec = json.loads(Path(COUNTER, "trace.json").read_text())
    spec["expected"] = f"{COUNTER}/{spec['expected']}"
    call = {
        "design": [f"{COUNTER}/counter.sv"],
        "testbench": [f"{COUNTER}/tb_counter.sv"],
        "top": "tb_counter",
        "plusargs": [],
    }
    return call, spec


async def _timed(flow: SimulatorFlow, call: dict, trace: dict | None, tag: str) -> float:
    # A plusarg the testbench ignores makes every call miss the run cache, never the build's.
    args = {**call, "plusargs": [*call["plusargs"], f"BENCH={tag}"]}
    started = time.monotonic()
    result = await flow.run_testbench(**args, trace=trace, timeout_s=600)
    took = time.monotonic() - started
    if result.status != Status.PASS or (trace is not None and not result.trace):
        raise SystemExit(f"{flow.name} {call['top']}: {result.status} {result.summary}")
    return took


async def _measure(flow: SimulatorFlow, label: str, call: dict, spec: dict, repeats: int) -> None:
    nonce = uuid.uuid4().hex[:8]
    # The first call of each variant compiles (a build per variant: the trace adds a module).
    build = [await _timed(flow, call, t, f"{nonce}b{i}") for i, t in enumerate((None, spec))]
    plain, traced = [], []
    for n in range(repeats):
        plain.append(await _timed(flow, call, None, f"{nonce}p{n}"))
        traced.append(await _timed(flow, call, spec, f"{nonce}t{n}"))
    p, t = statistics.median(plain), statistics.median(traced)
    print(
        f"{flow.name:9s} {label:22s} first call {build[0]:6.2f} s / {build[1]:6.2f} s   "
        f"run {p:6.3f} s / {t:6.3f} s   added {t - p:+.3f} s ({t / p:.2f}x)",
        flush=True,
    )


async def main_async(repeats: int) -> None:
    ws = repo_workspace()
    block = load_registry().block("descrambler")
    vs = VectorSet(ws, "bench-trace")
    try:
        case = next(c for c in vs.generate(block) if c.case == "r2_sf1")
        assert block.trace is not None and block.testbench is not None
        design, shared = testbench_side(block.rtl, PACKAGE_SV)
        receiver = {
            "design": design,
            "testbench": [*shared, block.testbench],
            "top": block.tb_top,
            "include_dirs": [str(Path(block.testbench).parent)],
            "plusargs": [*case.plusargs, "SEED=1"],
        }
        receiver_spec = block.trace.spec(case.expected).model_dump()
        counter, counter_spec = _counter_call()
        print(f"median of {repeats} runs; each column: without trace / with trace")
        for flow in (Icarus(ws), Verilator(ws)):
            await _measure(flow, "counter (example)", counter, counter_spec, repeats)
            await _measure(flow, "descrambler r2_sf1", receiver, receiver_spec, repeats)
    finally:
        vs.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    asyncio.run(main_async(ap.parse_args().repeats))


if __name__ == "__main__":
    main()
