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

from servers.core.workspace import Workspace
from servers.spec_rag.api import SpecLibrary
from tests.spec_rag.corpus import SPEC_36211, SPEC_36212, write_docx, write_pdf

REPO = Path(__file__).resolve().parents[2]
NOT_MERGED = "DEFENCE NOT MERGED: HTTP bearer token and Host/Origin allow-list off loopback"
INIT = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26",'
    b'"capabilities":{},"clientInfo":{"name":"rt","version":"1"}}}'
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(host: str, port: int, workspace: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if "TOKEN" not in k}  # no token given
    return subprocess.Popen(
        [sys.executable, "-m", "servers.vcd.server", "--workspace", str(workspace),
         "--transport", "streamable-http", "--host", host, "--port", str(port)],
        cwd=REPO, env={**env, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def refused_to_start(proc: subprocess.Popen, port: int, wait_s: float = 60) -> bool:
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


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[bool, int]]:
    """A server asked to bind every interface without a token: (refused, port)."""
    port = free_port()
    proc = start("0.0.0.0", port, tmp_path_factory.mktemp("http"))
    try:
        yield refused_to_start(proc, port), port
    finally:
        stop(proc)


@pytest.mark.xfail(strict=True, reason=NOT_MERGED)
@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_no_start_off_loopback_without_a_token(host: str, tmp_path: Path) -> None:
    port = free_port()
    proc = start(host, port, tmp_path)
    try:
        assert refused_to_start(proc, port)
    finally:
        stop(proc)


def status_of(port: int, headers: dict[str, str]) -> int:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp", data=INIT, method="POST",
        headers={"Content-Type": "application/json",
                 "Accept": "application/json, text/event-stream", **headers},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.mark.xfail(strict=True, reason=NOT_MERGED)
@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "attacker.example"},  # DNS rebinding
        {"Origin": "http://attacker.example"},  # a web page's cross-site request
        {},  # no Authorization at all
    ],
    ids=["foreign_host", "foreign_origin", "no_bearer"],
)
def test_off_loopback_requests_are_rejected(
    headers: dict[str, str], open_server: tuple[bool, int]
) -> None:
    refused, port = open_server
    if refused:
        return  # the defence held before any request
    assert status_of(port, headers) in (401, 403, 421)


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
