"""`verify_block` as a client calls it, side by side in one run (`agent-host serve` over MCP
stdio, real simulators): per block and simulator, the wall time of the default call on the
reference RTL, and with `--mutants` how many of the block's mutants (`hdl/mutations.py`) the
default call catches (any verdict but PASS), on the one simulator named (else the judge's).

`python bench/verify_block_bench.py [--blocks a,b] [--simulators iverilog,verilator] [--mutants]`
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from silicon_agent.hdl.mutations import MUTATIONS  # noqa: E402
from silicon_agent.hdl.registry import load_registry  # noqa: E402

BLOCKS = ["crc_checker", "descrambler", "qam_demodulator", "resource_demapper"]


def mcp_json(root: Path) -> Path:
    entries = {
        name: {"command": sys.executable, "args": ["-m", f"silicon_agent.servers.{name}.server"]}
        for name in ("iverilog", "verilator", "vcd")
    }
    path = root / "mcp.json"
    path.write_text(json.dumps({"mcpServers": entries}))
    return path


async def verify(client: Client, block: str, files: list[str], sim: str | None) -> dict[str, Any]:
    args: dict[str, Any] = {"block": block, "rtl_files": files}
    if sim is not None:
        args["simulator"] = sim
    reply = await client.call_tool("verify_block", args, read_timeout_seconds=1800)
    body = reply.structured_content or {}
    return body.get("result", body) if set(body) == {"result"} else body


async def main(blocks: list[str], sims: list[str], mutants: bool) -> None:
    registry = load_registry()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ws = root / "ws"
        ws.mkdir()
        files: dict[str, str] = {}
        for name in blocks:
            rel = registry.block(name).rtl_file
            (ws / Path(rel).name).write_text((REPO / rel).read_text())
            files[name] = Path(rel).name
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "silicon_agent.host.cli", "serve", "--state-dir", str(root / "state")]
            + ["--workspace", str(ws), "--mcp-config", str(mcp_json(root))],
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            cwd=str(REPO),
        )
        async with Client(params) as client:
            for name in blocks:
                for sim in sims:
                    start = time.monotonic()
                    good = await verify(client, name, [files[name]], sim)
                    took = time.monotonic() - start
                    runs = [r["run"] for r in good.get("runs", [])]
                    print(
                        f"{name:18s} {sim:9s} reference {good.get('status'):9s} {took:6.1f} s "
                        f"seed={good.get('seed')} runs={runs}",
                        flush=True,
                    )
                if not mutants:
                    continue
                own = [m for m in MUTATIONS if m[0] == name]
                caught = 0
                for index, (_, label, path, original, mutant) in enumerate(own):
                    text = (REPO / path).read_text()
                    if text.count(original) != 1:
                        print(f"  {label}: site not found in {path}", flush=True)
                        continue
                    if path != registry.block(name).rtl_file:
                        print(f"  {label}: mutates {path}, not the candidate's file", flush=True)
                        continue
                    bad = ws / f"{name}_mutant{index}" / Path(path).name
                    bad.parent.mkdir()
                    bad.write_text(text.replace(original, mutant))
                    start = time.monotonic()
                    sim = sims[0] if len(sims) == 1 else None  # one simulator: its verdict
                    got = await verify(client, name, [str(bad.relative_to(ws))], sim)
                    took = time.monotonic() - start
                    hit = got.get("status") not in ("PASS", None)
                    caught += hit
                    print(
                        f"  {'caught' if hit else 'MISSED'} {label}: {got.get('status')} "
                        f"{took:.1f} s",
                        flush=True,
                    )
                print(f"{name}: {caught}/{len(own)} mutants caught by the default call", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--blocks", default=",".join(BLOCKS))
    parser.add_argument("--simulators", default="iverilog")
    parser.add_argument("--mutants", action="store_true")
    a = parser.parse_args()
    anyio.run(main, a.blocks.split(","), a.simulators.split(","), a.mutants)
