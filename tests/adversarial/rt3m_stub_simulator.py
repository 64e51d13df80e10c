"""A stand-in `iverilog` tool server for the rt3m red team: run_testbench waits, then says
whether every source it was given still exists in its workspace (the modem server's private
staging). It records each call's start and end in a log (its first argument), so a test can
see how many calls ran at once. Not a test module."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

LOG = Path(sys.argv[1])
DELAY_S = float(sys.argv[2]) if len(sys.argv) > 2 else 8.0
server = MCPServer("iverilog")


def log(event: str, **more: Any) -> None:
    with LOG.open("a") as handle:
        handle.write(json.dumps({"event": event, "t": time.time(), "pid": os.getpid(), **more}))
        handle.write("\n")


@server.tool()
async def run_testbench(
    design: list[str],
    testbench: list[str],
    top: str = "",
    include_dirs: list[str] | None = None,
    plusargs: list[str] | None = None,
    timeout_s: float = 60,
    waves: str = "none",
    trace: dict[str, Any] | None = None,
) -> dict[str, Any]:
    sources = [*design, *testbench]
    root = Path(os.environ.get("SILICON_AGENT_WORKSPACE") or os.getcwd())
    log("start", staged=all((root / s).exists() for s in sources))
    await asyncio.sleep(DELAY_S)
    missing = [s for s in sources if not (root / s).exists()]
    log("end", missing=len(missing))
    if missing:
        return {"status": "TOOL_ERROR", "summary": f"{len(missing)} staged source(s) vanished"}
    return {"status": "PASS", "summary": "stub: every staged source was still there"}


if __name__ == "__main__":
    log("up")
    server.run("stdio")
