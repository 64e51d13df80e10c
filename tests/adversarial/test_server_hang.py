"""A design must not freeze the server: every call answers within its timeout."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import REPO

from .conftest import put

TB = """module tb_hang;
  hang_dut d ();
  initial begin
    $display("Mismatches: 0 in 1 samples");
    $finish;
  end
endmodule
"""

# Runs the attack in a child process: a frozen interpreter must not take pytest with it.
CHILD = """
import asyncio, sys
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
result = asyncio.run(Icarus(Workspace.open(sys.argv[1])).run_testbench(
    [sys.argv[2]], [sys.argv[3]], timeout_s=5))
print("STATUS", result.status)
"""


def _files(root: Path, name: str, body: str) -> tuple[str, str]:
    tb = put(root, "hang/tb_hang.sv", TB)
    design = put(root, f"hang/{name}.sv", f"module hang_dut;\n{body}\nendmodule\n")
    return design, tb


@pytest.mark.slow
def test_including_stdin_over_stdio_still_answers(adv_root: Path) -> None:
    """slang reading the server's own MCP channel must not swallow the protocol."""
    design, tb = _files(adv_root, "stdin", '`include "/dev/stdin"')
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "silicon_agent.servers.iverilog.server", "--workspace", str(adv_root)],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SILICON_AGENT_NO_CACHE": "1"},
        cwd=str(REPO),
    )

    async def call() -> dict | None:
        answer = None
        with anyio.fail_after(120):
            async with Client(params) as client:
                with anyio.move_on_after(40):
                    result = await client.call_tool(
                        "run_testbench", {"design": [design], "testbench": [tb], "timeout_s": 5}
                    )
                    answer = result.structured_content
        return answer

    answer = asyncio.run(call())
    assert answer is not None, "the call never returned"
    assert answer["status"] in ("PASS", "COMPILE_FAIL", "INVALID_INPUT")


@pytest.mark.slow
def test_a_named_pipe_does_not_freeze_the_server(adv_root: Path) -> None:
    pipe = adv_root / "hang" / "pipe.svh"
    pipe.parent.mkdir(parents=True, exist_ok=True)
    if not pipe.exists():
        os.mkfifo(pipe)
        pipe.chmod(0o644)
    design, tb = _files(adv_root, "fifo", '`include "hang/pipe.svh"')
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(adv_root), design, tb],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("run_testbench did not return within 30 s (timeout_s was 5)")
    assert "STATUS" in done.stdout, done.stderr[-2000:]
    assert "PASS" not in done.stdout
