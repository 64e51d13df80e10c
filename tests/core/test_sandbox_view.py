"""What a sandboxed run can see, listed by a real process inside the real bwrap sandbox: this
test is the sandbox's documentation. The run sees the toolchain, its inputs and its scratch;
no host /tmp, /run, /var, /home, /root or /dev/shm; no host Unix socket; no network; and it
cannot make a new user namespace."""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
from pathlib import Path

import pytest

from silicon_agent.servers.core.runner import run_process
from silicon_agent.servers.core.sandbox import (
    ETC_ENTRIES,
    SYSTEM_TOP,
    plan_sandbox,
    toolchain_roots,
)
from silicon_agent.servers.core.workspace import Workspace

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        "bwrap" not in plan_sandbox([], []).description, reason="bubblewrap is not usable here"
    ),
]

PROBE = r"""
import json, os, socket, subprocess, sys

def listing(path):
    try:
        return sorted(os.listdir(path))
    except OSError as exc:
        return f"{type(exc).__name__}"

def connect(path):
    try:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(path)
        return "connected"
    except OSError as exc:
        return f"{type(exc).__name__}"

def run(argv):
    try:
        return subprocess.run(argv, capture_output=True, timeout=10).returncode
    except OSError as exc:
        return f"{type(exc).__name__}"

print(json.dumps({
    "uid": os.getuid(),
    "root": listing("/"),
    "etc": listing("/etc"),
    "tmp": listing("/tmp"),
    "dev_shm": listing("/dev/shm"),
    "run": listing("/run"),
    "var_run": listing("/var/run"),
    "home": listing(os.environ["HOME"]),
    "home_is_scratch": os.environ["HOME"] == sys.argv[2],
    "socket": connect(sys.argv[1]),
    "unshare_user": run(["unshare", "-Ur", "true"]),
    "unshare_user_only": run(["unshare", "-U", "true"]),
    "interfaces": [l.split(":")[0].strip() for l in open("/proc/net/dev").readlines()[2:]],
    "pid1": open("/proc/1/cmdline", "rb").read().split(b"\0")[0].decode(),
}))
"""


@pytest.fixture
def host_socket() -> tuple[Path, socket.socket]:
    """A listening Unix socket in host /tmp, open to everyone, outside any workspace."""
    directory = Path(tempfile.mkdtemp(prefix="sa-host-sock-"))
    directory.chmod(0o777)
    path = directory / "host.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    path.chmod(0o777)
    server.listen(1)
    yield path, server
    server.close()
    shutil.rmtree(directory, ignore_errors=True)


async def test_a_run_sees_only_what_it_needs(workspace_dir: Path, host_socket) -> None:
    sock_path, _ = host_socket
    # The host side really is reachable outside the sandbox.
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.connect(str(sock_path))
    probe.close()
    ws = Workspace.open(workspace_dir)
    scratch = ws.new_scratch("view")
    out = await run_process(
        ["/usr/bin/python3", "-c", PROBE, str(sock_path), str(scratch)],
        cwd=scratch,
        scratch=scratch,
        readable=[ws.root],
        timeout_s=60,
    )
    assert out.exit_code == 0, out.stderr
    seen = json.loads(out.stdout)

    # / holds the system tops, /dev, /proc, /tmp, /etc, and the top folders of the toolchain
    # roots (this Python, its site-packages) and of the inputs: nothing else of the host.
    tops = {name for name in SYSTEM_TOP if Path("/", name).exists()}
    tops |= {"dev", "proc", "tmp", "etc"}
    tops |= {p.parts[1] for p in [*toolchain_roots("/usr/bin/python3"), ws.root]}
    assert set(seen["root"]) <= tops, seen["root"]
    assert not {"run", "var", "home", "root", "mnt", "opt", "srv", "boot", "media"} & set(
        seen["root"]
    )
    assert seen["etc"] == sorted(n for n in ETC_ENTRIES if Path("/etc", n).exists())
    # /tmp is private: only the workspace (bound because it lies under /tmp) shows there.
    # (and a toolchain root that lies there too: a checkout under /tmp brings its venv).
    bound = [workspace_dir, *toolchain_roots("/usr/bin/python3")]
    under_tmp = {p.parts[2] for p in bound if len(p.parts) > 2 and p.parts[1] == "tmp"}
    assert seen["tmp"] == sorted(under_tmp)
    assert sock_path.parent.name not in seen["tmp"]
    assert seen["dev_shm"] == []
    assert seen["run"] == seen["var_run"] == "FileNotFoundError"
    assert seen["home_is_scratch"] and all(n.startswith(".sa-run-") for n in seen["home"])
    # No socket at all (seccomp), and the host's socket file is not there either.
    assert seen["socket"] == "PermissionError"
    assert seen["unshare_user"] != 0 and seen["unshare_user_only"] != 0
    assert seen["interfaces"] == ["lo"]
    assert "bwrap" in seen["pid1"]
    if os.geteuid() == 0:
        assert seen["uid"] == 65534
    assert "no new user namespaces" in out.sandbox
