"""The HTTP transport's guards over real HTTP: off loopback (127.0.0.2 here: the servers
count only 127.0.0.1, ::1 and localhost as loopback) a bearer token is required or the
server does not start; the Host and Origin allow-list stays on; the host's MCP client
reaches a guarded server with the token taken from the environment."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from silicon_agent.host.mcp_client import McpConfig, ServerEntry, ServerPool
from silicon_agent.servers.core.http import TOKEN_ENV, HttpRefused, http_plan
from tests.conftest import REPO

pytestmark = pytest.mark.anyio
OFF_LOOPBACK = "127.0.0.2"
TOKEN = "t0ken-for-the-http-guard-test"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "guard-test", "version": "0"},
    },
}


def free_port(host: str) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def command(host: str, port: int, workspace: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "silicon_agent.servers.verilator.server",
        "--transport", "streamable-http",
        "--host", host, "--port", str(port), "--workspace", str(workspace), *extra,
    ]  # fmt: skip


def environment(token: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    return env if token is None else {**env, TOKEN_ENV: token}


@contextlib.contextmanager
def running(host: str, workspace: Path, token: str | None, *extra: str) -> Iterator[int]:
    port = free_port(host)
    server = subprocess.Popen(
        command(host, port, workspace, *extra),
        cwd=REPO,
        env=environment(token),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert server.poll() is None, "the server exited"
            try:
                socket.create_connection((host, port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        server.wait(10)


def post(url: str, **headers: str) -> int:
    sent = {"accept": "application/json, text/event-stream", **headers}
    return httpx.post(url, json=INITIALIZE, headers=sent, timeout=10).status_code


def test_off_loopback_without_a_token_refuses_to_start(tmp_path: Path) -> None:
    done = subprocess.run(
        command(OFF_LOOPBACK, free_port(OFF_LOOPBACK), tmp_path),
        cwd=REPO,
        env=environment(None),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert TOKEN_ENV in done.stderr and "off loopback" in done.stderr


def test_plan_rules() -> None:
    with pytest.raises(HttpRefused, match="shorter"):
        http_plan("127.0.0.1", 1, {TOKEN_ENV: "short"})
    with pytest.raises(HttpRefused, match="off loopback"):
        http_plan("0.0.0.0", 1, {})
    wide = http_plan("0.0.0.0", 8765, {TOKEN_ENV: TOKEN, "SILICON_AGENT_HTTP_ALLOWED_HOSTS": "a:1"})
    assert "a:1" in wide.allowed_hosts and "0.0.0.0:8765" not in wide.allowed_hosts
    assert http_plan("127.0.0.1", 1, {}).token is None


def test_off_loopback_needs_the_token_and_keeps_host_and_origin_checks(tmp_path: Path) -> None:
    with running(OFF_LOOPBACK, tmp_path, TOKEN, "--allow-host", "proxy.example:*") as port:
        url = f"http://{OFF_LOOPBACK}:{port}/mcp"
        bearer = f"Bearer {TOKEN}"
        assert post(url) == 401
        assert post(url, authorization="Bearer wrong-token-wrong-token") == 401
        assert post(url, authorization=bearer) == 200
        assert post(url, authorization=bearer, host="evil.example") == 421
        assert post(url, authorization=bearer, origin="http://evil.example") == 403
        assert post(url, authorization=bearer, host=f"proxy.example:{port}") == 200


def test_loopback_keeps_the_host_check(tmp_path: Path) -> None:
    with running("127.0.0.1", tmp_path, None) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        assert post(url) == 200
        assert post(url, host="evil.example") == 421
        assert post(url, origin="http://evil.example:80") == 403


async def test_host_client_sends_the_token_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.sv").write_text("module a(output logic y_o); assign y_o = 1'b1; endmodule\n")
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    with running(OFF_LOOPBACK, tmp_path, TOKEN) as port:
        entry = ServerEntry(
            url=f"http://{OFF_LOOPBACK}:{port}/mcp",
            headers={"Authorization": f"Bearer ${{{TOKEN_ENV}}}"},
        )
        async with ServerPool(McpConfig(mcpServers={"verilator": entry})) as pool:
            assert pool.failed == {}
            result = await pool.call("verilator", "lint", {"sources": ["a.sv"], "top": "a"})
        assert result["status"] == "PASS"
        async with ServerPool(
            McpConfig(mcpServers={"verilator": ServerEntry(url=entry.url)})
        ) as unauthorised:
            assert "verilator" in unauthorised.failed
