"""Foundation benchmark, all figures measured side by side in one run:

1. run_testbench over MCP (in-process client, cache off) vs the same iverilog + vvp commands
   run directly: the suite's overhead (target <= 10 %).
2. A cache hit's latency over MCP (target < 20 ms).
3. iverilog vs Verilator wall time at 10^3, 10^5 and 10^7 cycles of the counter testbench.

`python bench/foundation_bench.py [--reps N] [--max-cycles N]`
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client

from silicon_agent.servers.core import toolchain
from silicon_agent.servers.core.runner import run_process
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.iverilog.server import build
from silicon_agent.servers.verilator.api import Verilator

REPO = Path(__file__).resolve().parents[1]
DESIGN = ["examples/counter/counter.sv"]
BENCH = ["examples/counter/tb_counter.sv"]


def make_workspace() -> Path:
    root = Path(tempfile.mkdtemp(prefix="sa-bench-"))
    root.chmod(0o755)
    shutil.copytree(REPO / "hdl" / "examples", root / "examples")
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


def direct_run(root: Path, out: Path, cycles: int) -> float:
    started = time.perf_counter()
    image = out / "direct.vvp"
    subprocess.run(
        ["iverilog", "-g2012", "-o", str(image), *[str(root / p) for p in DESIGN + BENCH]],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        ["vvp", "-N", str(image), f"+CYCLES={cycles}"], check=True, capture_output=True, cwd=out
    )
    return time.perf_counter() - started


async def mcp_run(client: Client, cycles: int) -> float:
    started = time.perf_counter()
    result = await client.call_tool(
        "run_testbench", {"design": DESIGN, "testbench": BENCH, "plusargs": [f"CYCLES={cycles}"]}
    )
    assert result.structured_content["status"] == "PASS"
    return time.perf_counter() - started


async def api_run(api: Icarus, cycles: int) -> float:
    started = time.perf_counter()
    result = await api.run_testbench(DESIGN, BENCH, plusargs=[f"CYCLES={cycles}"])
    assert result.status == "PASS"
    return time.perf_counter() - started


async def confinement_floor(out: Path) -> float:
    """What confinement alone costs a run_testbench: two launches of /bin/true through the
    runner (prlimit, bwrap, uid drop) less two plain launches of it. No run can be cheaper than
    direct + this, whatever the checks around it cost."""
    scratch = Path(tempfile.mkdtemp(prefix="sa-floor-", dir=out))
    started = time.perf_counter()
    for _ in range(2):
        subprocess.run(["true"], check=True)
    plain = time.perf_counter() - started
    started = time.perf_counter()
    for _ in range(2):
        done = await run_process(["true"], cwd=scratch, scratch=scratch, timeout_s=10)
        assert done.exit_code == 0, done.stderr
    confined = time.perf_counter() - started
    shutil.rmtree(scratch, ignore_errors=True)
    return confined - plain


async def overhead(root: Path, reps: int, cycles: int) -> dict[str, float]:
    """Direct commands, the plain API (sandboxed, no MCP) and MCP runs interleaved, so machine
    load hits all three alike; besides each one's median, the median of the per-round
    MCP - direct differences and ratios, which cancel load that drifts between rounds."""
    os.environ["SILICON_AGENT_NO_CACHE"] = "1"
    out = Path(tempfile.mkdtemp(prefix="sa-direct-"))
    out.chmod(0o755)
    direct, via_api, via_mcp, floor = [], [], [], []
    api = Icarus(Workspace.open(root))
    async with Client(build(Workspace.open(root))) as client:
        for _ in range(reps):
            direct.append(direct_run(root, out, cycles))
            via_api.append(await api_run(api, cycles))
            via_mcp.append(await mcp_run(client, cycles))
            floor.append(await confinement_floor(out))
    os.environ.pop("SILICON_AGENT_NO_CACHE")
    shutil.rmtree(out, ignore_errors=True)
    return {
        "direct": statistics.median(direct),
        "api": statistics.median(via_api),
        "mcp": statistics.median(via_mcp),
        "extra": statistics.median(m - d for m, d in zip(via_mcp, direct, strict=True)),
        "ratio": statistics.median(m / d for m, d in zip(via_mcp, direct, strict=True)),
        "floor": statistics.median(f / d for f, d in zip(floor, direct, strict=True)),
    }


async def cache_hit_latency(root: Path, reps: int) -> float:
    server = build(Workspace.open(root))
    async with Client(server) as client:
        await client.call_tool("run_testbench", {"design": DESIGN, "testbench": BENCH})
        hits = []
        for _ in range(reps):
            started = time.perf_counter()
            result = await client.call_tool("run_testbench", {"design": DESIGN, "testbench": BENCH})
            hits.append(time.perf_counter() - started)
            assert result.structured_content["cache_hit"]
    return statistics.median(hits)


async def simulator_scaling(root: Path, cycle_counts: list[int]) -> list[tuple[int, float, float]]:
    os.environ["SILICON_AGENT_NO_CACHE"] = "1"
    ws = Workspace.open(root)
    icarus, verilator = Icarus(ws), Verilator(ws)
    rows = []
    for cycles in cycle_counts:
        limit = 3600
        iv = await icarus.run_testbench(
            DESIGN, BENCH, plusargs=[f"CYCLES={cycles}"], timeout_s=limit
        )
        vl = await verilator.run_testbench(
            DESIGN, BENCH, plusargs=[f"CYCLES={cycles}"], timeout_s=limit
        )
        assert iv.status == vl.status == "PASS", (iv.summary, vl.summary)
        rows.append((cycles, iv.duration_s, vl.duration_s))
    os.environ.pop("SILICON_AGENT_NO_CACHE")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--max-cycles", type=int, default=10**7)
    args = parser.parse_args()
    root = make_workspace()
    try:
        print(f"iverilog {toolchain.iverilog().version}, verilator {toolchain.verilator().version}")
        print("run_testbench on the counter example, medians of interleaved runs:")
        print(
            f"  {'cycles':>8s} {'runs':>4s} {'direct':>9s} {'API':>9s} {'MCP':>9s} "
            f"{'MCP-direct':>10s} {'MCP/direct':>10s} {'MCP/API':>8s} {'floor':>7s}"
            "  (target: <= +10 %)"
        )
        for cycles in (600, 100_000, 1_000_000):
            reps = args.reps if cycles <= 100_000 else max(3, args.reps // 3)
            r = anyio.run(overhead, root, reps, cycles)
            print(
                f"  {cycles:>8d} {reps:>4d} {r['direct'] * 1000:>7.1f}ms {r['api'] * 1000:>7.1f}ms "
                f"{r['mcp'] * 1000:>7.1f}ms {r['extra'] * 1000:>+8.1f}ms "
                f"{100 * (r['ratio'] - 1):>+9.1f}% {100 * (r['mcp'] - r['api']) / r['api']:>+7.1f}%"
                f" {100 * r['floor']:>+6.1f}%"
            )
        print(
            "  (MCP-direct, MCP/direct: medians of the per-round difference and ratio. The fixed "
            "cost per call is two sandboxed processes plus the checks; it is a large share of a "
            "short run and a small one of a long run.)"
        )
        print("  (API: the same call through the plain Python API: checks, slang and sandbox)")
        print(
            "  (floor: two confined launches of /bin/true less two plain ones, over direct: the "
            "least any confined run_testbench adds, before a single check)"
        )
        hit = anyio.run(cache_hit_latency, root, args.reps)
        print(f"  cache hit over MCP: {hit * 1000:.2f} ms (target < 20 ms)")
        counts = [c for c in (10**3, 10**5, 10**7) if c <= args.max_cycles]
        print("wall time per run_testbench (compile + simulate), fresh builds:")
        print(f"  {'cycles':>10s} {'iverilog':>10s} {'verilator':>10s} {'iv/vl':>7s}")
        for cycles, iv, vl in anyio.run(simulator_scaling, root, counts):
            print(f"  {cycles:>10d} {iv:>9.2f}s {vl:>9.2f}s {iv / vl:>7.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
