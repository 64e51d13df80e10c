"""Hostile inputs: the peak memory of each server while it refuses files built to exhaust it.

The waveform server runs as its console process over real MCP stdio. Its peak resident set
(VmHWM from /proc) is read after a good call alone and again after every hostile file of
tests/vcd/hostile.py, side by side, with the time each refusal took.

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

from tests.vcd import hostile  # noqa: E402
from tests.vcd.vcdgen import write_vcd  # noqa: E402


def peak_rss_mb(marker: str) -> float | None:
    """VmHWM of the process whose command line holds marker (the server's workspace)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            if marker not in cmdline or "silicon_agent.servers.vcd.server" not in cmdline:
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


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="sa-hostile-"))
    try:
        expected = hostile.write_all(root)
        write_vcd(root / "good.vcd", [("clk", 1)], [(0, "clk", "0"), (5, "clk", "1")], end=10)
        print("mcp-vcd over stdio, hostile waveforms (each followed by a good call):")
        anyio.run(measure, root, expected)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
