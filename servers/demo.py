"""The main job: verify the bundled designs through the MCP servers, as a client would.

Each server is started as mcp.json says (stdio), and every example design is run through
iverilog and Verilator; the verdicts are printed as a table.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[1]
CASES: list[tuple[str, list[str], list[str], str]] = [
    (
        "counter",
        ["hdl/examples/counter/counter.sv"],
        ["hdl/examples/counter/tb_counter.sv"],
        "PASS",
    ),
    (
        "counter_broken",
        ["hdl/examples/counter/counter_broken.sv"],
        ["hdl/examples/counter/tb_counter.sv"],
        "SIM_FAIL",
    ),
    ("fifo", ["hdl/examples/fifo/fifo.sv"], ["hdl/examples/fifo/tb_fifo.sv"], "PASS"),
    (
        "fifo_broken",
        ["hdl/examples/fifo/fifo_broken.sv"],
        ["hdl/examples/fifo/tb_fifo.sv"],
        "SIM_FAIL",
    ),
]


def server_params(name: str) -> StdioServerParameters:
    entry = json.loads((REPO / "mcp.json").read_text())["mcpServers"][name]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **entry.get("env", {})}
    return StdioServerParameters(
        command=str(REPO / entry["command"]), args=entry.get("args", []), env=env, cwd=str(REPO)
    )


def describe(result: dict[str, Any]) -> str:
    first = result.get("first_mismatch")
    if first:
        return (
            f"first mismatch cycle {first.get('cycle')} {first.get('signal')}: "
            f"expected {first.get('expected')} got {first.get('actual')}"
        )
    return result.get("summary", "")


async def verify(simulator: str) -> list[tuple[str, str, str, str, float, bool]]:
    rows = []
    async with Client(server_params(simulator)) as client:
        for name, design, bench, expected in CASES:
            started = time.monotonic()
            call = await client.call_tool(
                "run_testbench", {"design": design, "testbench": bench, "timeout_s": 120}
            )
            body = call.structured_content or {}
            rows.append(
                (
                    name,
                    simulator,
                    body.get("status", "ERROR"),
                    expected,
                    time.monotonic() - started,
                    bool(body.get("cache_hit")),
                )
            )
            cached = " (cached)" if body.get("cache_hit") else ""
            print(
                f"{name:16s} {simulator:10s} {body.get('status', 'ERROR'):12s} "
                f"{time.monotonic() - started:6.2f}s  {describe(body)}{cached}",
                flush=True,
            )
    return rows


async def main() -> int:
    print(f"{'design':16s} {'simulator':10s} {'verdict':12s} {'time':>7s}  detail")
    rows = []
    for simulator in ("iverilog", "verilator"):
        rows += await verify(simulator)
    wrong = [r for r in rows if r[2] != r[3]]
    print(f"\n{len(rows) - len(wrong)} of {len(rows)} verdicts as expected")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
