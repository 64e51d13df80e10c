"""A server of the suite ends when its client goes, and ends its children: a client is
SIGKILLed while its call runs (a simulation that never finishes), and the server with every
process below it is gone within a bound. Also: a client that leaves before reading its
answer gets no traceback on the server's stderr."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from silicon_agent.suite.lifetime import descendants
from tests.conftest import REPO, make_world_readable_dir

BIN = Path(sys.executable).parent
CLIENT = Path(__file__).with_name("lifetime_client.py")
GONE_WITHIN_S = 20.0  # a bound on "gone", not a speed target
FOREVER = (
    "module ticker(input logic clk, output logic q);\n"
    "  always_ff @(posedge clk) q <= ~q;\nendmodule\n"
)
FOREVER_TB = (
    "module forever_tb; logic clk = 0; logic q; ticker dut(.clk(clk), .q(q));\n"
    "  always #1 clk = ~clk;\nendmodule\n"
)
# A crc_checker whose simulation never leaves time 0: the hidden testbench's watchdog
# counts cycles that never come.
SPIN = "  logic spin_q = 1'b0;\n  initial forever #0 spin_q = ~spin_q;\nendmodule"


def started(pid: int) -> str | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()
    return None if fields[0] == "Z" else fields[19]


def alive(procs: dict[int, str]) -> list[int]:
    return [pid for pid, start in procs.items() if started(pid) == start]


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def kill_mid_call(entry: dict, workspace: Path, tool: str, arguments: dict, busy: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    client = subprocess.Popen(
        [sys.executable, str(CLIENT), json.dumps(entry), str(workspace), tool,
         json.dumps(arguments)],
        stdout=subprocess.PIPE, cwd=workspace, env=env, text=True,
    )  # fmt: skip
    try:
        assert client.stdout is not None
        assert client.stdout.readline().strip() == "calling"
        deadline = time.monotonic() + 240
        # Mid-call: the tool process the call started is running below the server.
        while not any(busy in cmdline(p) for p in descendants(client.pid)):
            assert client.poll() is None and time.monotonic() < deadline, "the call never ran"
            time.sleep(0.2)
        tree = {pid: start for pid in descendants(client.pid) if (start := started(pid))}
        assert tree
    finally:
        client.send_signal(signal.SIGKILL)
        client.wait()
    deadline = time.monotonic() + GONE_WITHIN_S
    while alive(tree) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = {pid: cmdline(pid) for pid in alive(tree)}
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"still running after the client was killed: {left}"


def test_kit_server_ends_with_its_client() -> None:
    workspace = make_world_readable_dir("sa-life-")
    try:
        for name, text in (("ticker.sv", FOREVER), ("forever_tb.sv", FOREVER_TB)):
            (workspace / name).write_text(text)
            (workspace / name).chmod(0o644)
        kill_mid_call(
            {"command": str(BIN / "mcp-iverilog"), "env": {"SILICON_AGENT_WORKSPACE": "."}},
            workspace,
            "run_testbench",
            {"design": ["ticker.sv"], "testbench": ["forever_tb.sv"], "top": "forever_tb",
             "timeout_s": 600},
            "vvp",
        )  # fmt: skip
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def test_modem_server_ends_with_its_client_and_its_tool_servers() -> None:
    workspace = make_world_readable_dir("sa-life-")
    try:
        code = (REPO / "hdl" / "rtl" / "crc_checker.sv").read_text()
        head, _, _ = code.rpartition("endmodule")
        (workspace / "spin.sv").write_text(head + SPIN + "\n")
        (workspace / "spin.sv").chmod(0o644)
        kill_mid_call(
            {"command": str(BIN / "agent-host"), "args": ["serve"],
             "env": {"SILICON_AGENT_WORKSPACE": "."}},
            workspace,
            "verify_block",
            {"block": "crc_checker", "rtl_files": ["spin.sv"], "simulator": "iverilog"},
            "vvp",
        )  # fmt: skip
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def test_no_traceback_when_the_client_leaves_before_its_answer(tmp_path: Path) -> None:
    """The client sends a request and closes both pipes: the server's answer meets a broken
    pipe, which ends the session quietly."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(REPO)}
    server = subprocess.Popen(
        [str(BIN / "mcp-vcd"), "--workspace", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None

    def send(message: dict) -> None:
        assert server.stdin is not None
        server.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        server.stdin.flush()

    hello = {"protocolVersion": "2025-06-18", "capabilities": {},
             "clientInfo": {"name": "t", "version": "1"}}  # fmt: skip
    send({"id": 1, "method": "initialize", "params": hello})
    assert b'"id":1' in server.stdout.readline()
    send({"method": "notifications/initialized"})
    send({"id": 2, "method": "tools/list"})
    server.stdout.close()
    server.stdin.close()
    assert server.stderr is not None
    err = server.stderr.read()  # to the end: the server has exited
    server.wait(timeout=60)
    assert b"Traceback" not in err, err.decode()[-2000:]
    assert server.returncode == 0
