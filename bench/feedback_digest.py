"""How often `verify_block`'s digest names the line a mutant changed.

Each single-line mutant of the small blocks' own RTL (hdl/mutations.py) goes through
`agent-host serve`'s verify_block over MCP stdio on Icarus; of the failing replies, the share
whose explanation names the changed line ('file.sv:N' in the cone, or a function's line range
that holds it). `--checkout DIR` runs another checkout's code (its host and servers) with the
same mutants, for a before/after comparison.

    python bench/feedback_digest.py [--blocks crc_checker qam_demodulator] [--checkout DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent


def lines_named(explanation: dict[str, Any] | None, file: str) -> int:
    """How many distinct lines of `file` the digest names (a function range counts whole)."""
    text = json.dumps(explanation or {})
    lines = {int(n) for n in re.findall(rf"{re.escape(file)}:(\d+)\"", text)}
    for lo, hi in re.findall(rf"{re.escape(file)}:(\d+)-(\d+) \(function", text):
        lines |= set(range(int(lo), int(hi) + 1))
    return len(lines)


def named(explanation: dict[str, Any] | None, file: str, line: int) -> bool:
    """Whether the digest names `file:line`, itself or inside a function's line range."""
    text = json.dumps(explanation or {})
    if f'{file}:{line}"' in text:
        return True
    for lo, hi in re.findall(rf"{re.escape(file)}:(\d+)-(\d+) \(function", text):
        if int(lo) <= line <= int(hi):
            return True
    return False


async def run(blocks: list[str], checkout: Path) -> None:
    sys.path.insert(0, str(checkout))
    from silicon_agent.hdl.mutations import MUTATIONS

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        workspace = root / "ws"
        (workspace / "cand").mkdir(parents=True)
        env = {"PYTHONPATH": str(checkout)}
        servers = {
            name: {
                "command": sys.executable,
                "args": ["-m", f"silicon_agent.servers.{name}.server"],
                "env": env,
            }
            for name in ("iverilog", "vcd")
        }
        (root / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "silicon_agent.host.cli", "serve", "--state-dir", str(root / "state"),
                  "--workspace", str(workspace), "--mcp-config", str(root / "mcp.json")],
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env},
            cwd=str(checkout),
        )  # fmt: skip
        failing = hit = 0
        async with Client(params) as client:
            for index, (block, label, file, original, mutated) in enumerate(MUTATIONS):
                if block not in blocks or not file.startswith("hdl/rtl/"):
                    continue
                text = (checkout / file).read_text()
                assert text.count(original) == 1, (block, label)
                line = text[: text.index(original)].count("\n") + 1
                name = Path(file).name
                (workspace / "cand" / name).write_text(text.replace(original, mutated))
                reply = await client.call_tool(
                    "verify_block",
                    {"block": block, "rtl_files": [f"cand/{name}"], "simulator": "iverilog"},
                    read_timeout_seconds=900,
                )
                body = reply.structured_content or {}
                body = body.get("result", body) if set(body) == {"result"} else body
                status = body.get("status")
                kind = (body.get("failure") or {}).get("kind")
                found = status != "PASS" and named(body.get("explanation"), name, line)
                if status != "PASS":
                    failing += 1
                    hit += found
                span = lines_named(body.get("explanation"), name)
                print(f"{index:3d} {block:16s} {label:40s} {status:12s} {kind or '-':10s} "
                      f"line {line:4d} named={found} ({span} of {text.count(chr(10))} "
                      "lines named)")  # fmt: skip
        share = hit / failing if failing else 0.0
        print(f"failing replies {failing}, naming the changed line {hit}: {share:.0%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--blocks", nargs="+", default=["crc_checker", "qam_demodulator"])
    parser.add_argument("--checkout", type=Path, default=ROOT)
    args = parser.parse_args()
    asyncio.run(run(args.blocks, args.checkout.resolve()))


if __name__ == "__main__":
    main()
