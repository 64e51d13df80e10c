"""Hostile inputs: the peak memory of each server while it refuses files built to exhaust it.

Each server runs as its console process over real MCP stdio. Its peak resident set (VmHWM
from /proc) is read after a good call alone and again after every hostile input, side by
side, with the time each refusal took:
- the waveform server, with every hostile file of tests/vcd/hostile.py;
- the Icarus and Verilator servers, with designs that take slang forever or blow up in its
  preprocessor (tests/core/test_compile_timeout.py); slang reads them in a capped worker that
  is killed at the limit or dies alone, so the server's peak should not move.

`python bench/hostile_inputs_bench.py`
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.core import test_compile_timeout as compile_timeout  # noqa: E402
from tests.vcd import hostile  # noqa: E402
from tests.vcd.vcdgen import write_vcd  # noqa: E402


def peak_rss_mb(marker: str, module: str = "silicon_agent.servers.vcd.server") -> float | None:
    """VmHWM of the process whose command line holds marker (the server's workspace)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            if marker not in cmdline or module not in cmdline:
                continue
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            continue
    return None


async def measure(root: Path, expected: dict[str, str]) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "silicon_agent.servers.vcd.server", "--workspace", str(root)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )
    async with Client(params) as client:
        good = {"file": "good.vcd", "signals": ["clk"], "times": [5]}
        assert (await client.call_tool("values_at", good)).structured_content["ok"]
        baseline = peak_rss_mb(str(root))
        print(f"  {'file':<14s} {'size':>12s} {'refused in':>10s} {'peak RSS':>9s}  limit named")
        print(f"  {'(good call)':<14s} {'':>12s} {'':>10s} {baseline:>7.0f}MB")
        for name, limit in expected.items():
            started = time.perf_counter()
            result = await client.call_tool("summary", {"file": name})
            took = time.perf_counter() - started
            error = result.structured_content.get("error") or {}
            named = limit if limit in error.get("message", "") else "NOT REFUSED: " + str(error)
            size = (root / name).stat().st_size
            after = await client.call_tool("values_at", good)
            assert after.structured_content["ok"], name
            peak = peak_rss_mb(str(root))
            print(f"  {name:<14s} {size:>12d} {took:>9.2f}s {peak:>7.0f}MB  {named}")
        print(f"  peak over the good call alone: x{peak / baseline:.2f}")


async def measure_simulator(root: Path, name: str) -> None:
    module = f"silicon_agent.servers.{name}.server"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", module, "--workspace", str(root)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )
    good = {"design": ["counter.sv"], "testbench": ["tb_counter.sv"], "timeout_s": 600}
    hostile_designs = {
        "macro bomb 2^18": ({"design": ["bomb18.sv"], "testbench": ["tb.sv"]}, 30),
        "macro bomb 2^20": ({"design": ["bomb20.sv"], "testbench": ["tb.sv"]}, 8),
        "1000x1000 generate": ({"design": ["huge_gen.sv"], "testbench": ["tb_huge.sv"]}, 8),
    }
    async with Client(params) as client:
        first = await client.call_tool("run_testbench", good)
        assert first.structured_content["status"] == "PASS"
        baseline = peak_rss_mb(str(root), module)
        heading = f"{'design':<20s} {'verdict':<13s} {'took':>7s} {'server peak':>11s}"
        print(f"  {heading}  why")
        print(f"  {'(good call)':<20s} {'PASS':<13s} {'':>7s} {baseline:>9.0f}MB")
        for name, (arguments, limit_s) in hostile_designs.items():
            started = time.perf_counter()
            result = await client.call_tool("run_testbench", {**arguments, "timeout_s": limit_s})
            took = time.perf_counter() - started
            status = result.structured_content.get("status") or "error"
            why = str(result.structured_content.get("summary", "")).split(": ", 1)[-1][:60]
            after = await client.call_tool("run_testbench", good)
            assert after.structured_content["status"] == "PASS", name
            peak = peak_rss_mb(str(root), module)
            print(f"  {name:<20s} {status:<13s} {took:>6.1f}s {peak:>9.0f}MB  {why}")
        print(f"  server peak over the good call alone: x{peak / baseline:.2f}")


def write_designs(root: Path) -> None:
    counter = REPO / "hdl" / "examples" / "counter"
    shutil.copy(counter / "counter.sv", root / "counter.sv")
    shutil.copy(counter / "tb_counter.sv", root / "tb_counter.sv")
    (root / "bomb18.sv").write_text(compile_timeout._macro_bomb(18))
    (root / "bomb20.sv").write_text(compile_timeout._macro_bomb(20))
    (root / "huge_gen.sv").write_text(compile_timeout.HUGE)
    (root / "tb_huge.sv").write_text(compile_timeout.TB)
    tb = compile_timeout.TB.replace("huge_gen dut(.clk(clk), .q(q));", "")
    (root / "tb.sv").write_text(tb)
    for path in root.iterdir():
        path.chmod(0o644)


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="sa-hostile-"))
    try:
        expected = hostile.write_all(root)
        write_vcd(root / "good.vcd", [("clk", 1)], [(0, "clk", "0"), (5, "clk", "1")], end=10)
        print("mcp-vcd over stdio, hostile waveforms (each followed by a good call):")
        anyio.run(measure, root, expected)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    root = Path(tempfile.mkdtemp(prefix="sa-hostile-sv-"))
    try:
        write_designs(root)
        for name in ("iverilog", "verilator"):
            print(f"mcp-{name} over stdio, hostile designs (each followed by a good call):")
            anyio.run(measure_simulator, root, name)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
