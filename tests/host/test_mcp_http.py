"""The host's MCP client over streamable HTTP (a server started on 127.0.0.1)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from silicon_agent.host.mcp_client import McpConfig, ServerEntry, ServerPool

pytestmark = pytest.mark.anyio


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(port: int, seconds: float = 60) -> None:
    """Until something listens on the port (the server is up)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)


async def test_pool_connects_over_http(tmp_path: Path) -> None:
    port = free_port()
    (tmp_path / "a.sv").write_text("module a(output logic y_o); assign y_o = 1'b1; endmodule\n")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "silicon_agent.servers.verilator.server",
            "--transport",
            "streamable-http",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workspace",
            str(tmp_path),
        ],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(port)
        config = McpConfig(
            mcpServers={"verilator": ServerEntry(url=f"http://127.0.0.1:{port}/mcp")}
        )
        async with ServerPool(config) as pool:
            assert pool.failed == {}
            result = await pool.call("verilator", "lint", {"sources": ["a.sv"], "top": "a"})
        assert result["status"] == "PASS"
    finally:
        server.terminate()
        server.wait(10)


async def test_modem_server_over_http(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`agent-host serve --transport streamable-http` with a token: the modem loop's tools
    over HTTP for a client that sends it (the client takes it from its environment)."""
    import os

    from .scenario import write_mcp_json

    token = "modem-" + "t" * 26
    monkeypatch.setenv("MODEM_TEST_TOKEN", token)
    port = free_port()
    mcp = write_mcp_json(tmp_path, ["iverilog"])
    (tmp_path / "ws").mkdir()
    server = subprocess.Popen(
        [sys.executable, "-m", "silicon_agent.host.cli", "serve"]
        + ["--transport", "streamable-http", "--port", str(port), "--mcp-config", str(mcp)]
        + ["--workspace", str(tmp_path / "ws"), "--state-dir", str(tmp_path / "state")],
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "SILICON_AGENT_HTTP_TOKEN": token},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(port)
        entry = ServerEntry(
            url=f"http://127.0.0.1:{port}/mcp",
            headers={"Authorization": "Bearer ${MODEM_TEST_TOKEN}"},
        )
        async with ServerPool(McpConfig(mcpServers={"modem": entry})) as pool:
            assert pool.failed == {}
            brief = await pool.call("modem", "block_brief", {"block": "descrambler"})
            status = await pool.call("modem", "design_status", {})
        assert brief["interface"].startswith("module descrambler")
        assert brief["clauses"] == ["TS 36.211 6.3.1", "TS 36.211 7.2"]
        assert status["state"] == "none" and status["run"] is None
    finally:
        server.terminate()
        server.wait(10)
