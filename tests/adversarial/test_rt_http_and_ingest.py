"""Red team, class 10 of issue 16: HTTP off loopback (a bearer token from the environment, the
Host and Origin checks kept on, no start without a token) and ingest never silently replacing
a stored spec."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.spec_rag.api import SpecLibrary
from tests.spec_rag.corpus import SPEC_36211, SPEC_36212, write_docx, write_pdf

REPO = Path(__file__).resolve().parents[2]
TOKEN = "rt-" + "k" * 29
INIT = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26",'
    b'"capabilities":{},"clientInfo":{"name":"rt","version":"1"}}}'
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(host: str, port: int, workspace: Path, token: str | None = None) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SILICON_AGENT_HTTP")}
    if token is not None:
        env["SILICON_AGENT_HTTP_TOKEN"] = token
    return subprocess.Popen(
        [sys.executable, "-m", "silicon_agent.servers.vcd.server", "--workspace", str(workspace),
         "--transport", "streamable-http", "--host", host, "--port", str(port)],
        cwd=REPO, env={**env, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def refused_to_start(proc: subprocess.Popen, port: int, wait_s: float = 90) -> bool:
    """True when the server exits with an error; False once it listens."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return proc.returncode != 0
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return False
        time.sleep(0.3)
    raise AssertionError("the server neither listened nor exited")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.mark.parametrize(
    "host,token",
    [("0.0.0.0", None), ("::", None), ("0", None), ("127.0.0.2", None), ("0.0.0.0", "short")],
    ids=["any_v4", "any_v6", "zero", "loopback_alias", "short_token"],
)
def test_no_start_off_loopback_without_a_real_token(
    host: str, token: str | None, tmp_path: Path
) -> None:
    port = free_port()
    proc = start(host, port, tmp_path, token)
    try:
        assert refused_to_start(proc, port)
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A server bound to every interface with a token; its port."""
    port = free_port()
    proc = start("0.0.0.0", port, tmp_path_factory.mktemp("http"), TOKEN)
    try:
        assert not refused_to_start(proc, port)
        yield port
    finally:
        stop(proc)


def call(port: int, headers: dict[str, str], path: str = "/mcp", method: str = "POST") -> int:
    """The HTTP status of an initialize request (a body only on POST) to the server."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=INIT if method == "POST" else None,
        method=method,
        headers={"Content-Type": "application/json",
                 "Accept": "application/json, text/event-stream", **headers},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def status_of(port: int, headers: dict[str, str]) -> int:
    return call(port, headers)


BEARER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.mark.parametrize(
    "headers,status",
    [
        ({**BEARER, "Host": "attacker.example"}, 421),  # DNS rebinding, token or not
        ({**BEARER, "Origin": "http://attacker.example"}, 403),  # a web page's request
        ({}, 401),  # no Authorization at all
        ({"Authorization": f"Bearer {TOKEN[:-1]}"}, 401),  # one character short
        ({"Authorization": f"Basic {TOKEN}"}, 401),  # another scheme
    ],
    ids=["foreign_host", "foreign_origin", "no_bearer", "near_token", "basic_scheme"],
)
def test_off_loopback_requests_are_rejected(
    headers: dict[str, str], status: int, open_server: int
) -> None:
    assert status_of(open_server, headers) == status
    assert status_of(open_server, BEARER) == 200  # and the right call still answers


# -- ingest never silently replaces a stored spec --


@pytest.fixture
def library(tmp_path: Path) -> SpecLibrary:
    write_pdf(SPEC_36211, tmp_path / "36211.pdf")
    return SpecLibrary(Workspace.open(tmp_path), embedder=None)


def stored(library: SpecLibrary) -> list[tuple[str, str]]:
    return [(s.key, s.version) for s in asyncio.run(library.list_specs()).specs]


def test_other_file_same_spec_does_not_replace(library: SpecLibrary) -> None:
    assert asyncio.run(library.ingest("36211.pdf")).status == "ingested"
    before = stored(library)
    newer = SPEC_36211.__class__(**{**SPEC_36211.__dict__, "version": "16.0.0"})
    write_docx(newer, library.workspace.root / "renamed-copy.docx")
    result = asyncio.run(library.ingest("renamed-copy.docx"))
    assert result.status == "exists" and result.error and result.error.argument == "replace"
    assert stored(library) == before


@pytest.mark.parametrize("override", ["36.211", "TS 36.211", "ts 136 211"])
def test_spec_override_cannot_overwrite_another_spec(library: SpecLibrary, override: str) -> None:
    assert asyncio.run(library.ingest("36211.pdf")).status == "ingested"
    before = stored(library)
    shutil.copy(library.workspace.root / "36211.pdf", library.workspace.root / "keep.pdf")
    write_pdf(SPEC_36212, library.workspace.root / "36212.pdf")
    result = asyncio.run(library.ingest("36212.pdf", spec=override))
    assert result.status in ("exists", "invalid_input"), result
    assert stored(library) == before


@pytest.mark.parametrize("flag", ["true", 1, "yes"])
def test_replace_must_be_a_real_boolean(library: SpecLibrary, flag: object) -> None:
    assert asyncio.run(library.ingest("36211.pdf")).status == "ingested"
    result = asyncio.run(library.ingest("36211.pdf", replace=flag))  # type: ignore[arg-type]
    assert result.status == "invalid_input" and result.error and result.error.argument == "replace"
