"""The sandboxed runner: argv only, limits, capture caps, confinement, whole-group kills."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from silicon_agent.servers.core.runner import Limits, run_process
from silicon_agent.servers.core.sandbox import plan_sandbox
from silicon_agent.servers.core.workspace import Workspace
from tests.conftest import processes_mentioning

pytestmark = pytest.mark.anyio
HAS_BWRAP = shutil.which("bwrap") is not None and plan_sandbox([], []).prefix != []


async def _run(ws: Workspace, argv: list[str], **kw: object):
    scratch = ws.new_scratch("t")
    return scratch, await run_process(
        argv,
        cwd=scratch,
        scratch=scratch,
        readable=[ws.root],
        timeout_s=kw.pop("timeout_s", 20),
        **kw,  # type: ignore[arg-type]
    )


async def test_argv_is_not_a_shell(workspace_dir: Path) -> None:
    ws = Workspace.open(workspace_dir)
    _, out = await _run(ws, ["/bin/echo", "$(id); rm -rf /", "`whoami`"])
    assert out.exit_code == 0
    assert out.stdout.strip() == "$(id); rm -rf / `whoami`"
    with pytest.raises(TypeError):
        await run_process("echo hi", cwd=ws.root, scratch=ws.root, timeout_s=5)  # type: ignore[arg-type]


async def test_timeout_kills_the_whole_process_group(workspace_dir: Path) -> None:
    ws = Workspace.open(workspace_dir)
    marker = f"sa-sleep-{os.getpid()}"
    started = time.monotonic()
    _, out = await _run(
        ws,
        ["/bin/bash", "-c", f"(exec -a {marker} sleep 300) & (exec -a {marker} sleep 300); wait"],
        timeout_s=1.0,
    )
    assert out.timed_out and out.exit_code != 0
    assert time.monotonic() - started < 15
    await asyncio.sleep(0.5)
    survivors = processes_mentioning(marker)
    assert survivors == []


async def test_output_is_capped_and_flagged_but_kept_lines_survive(workspace_dir: Path) -> None:
    ws = Workspace.open(workspace_dir)
    script = (
        "import sys\nfor i in range(200000): print('x'*99)\nprint('Mismatches: 0 in 5 samples')\n"
    )
    _, out = await _run(
        ws,
        ["/usr/bin/python3", "-c", script],
        limits=Limits(output_bytes=64 * 1024),
        keep=re.compile("Mismatches"),
    )
    assert out.truncated
    assert len(out.stdout) < 80 * 1024
    assert out.kept_lines == ["Mismatches: 0 in 5 samples"]


@pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap not available")
async def test_writes_outside_scratch_fail(workspace_dir: Path) -> None:
    ws = Workspace.open(workspace_dir)
    victim = workspace_dir / "victim.txt"
    scratch, out = await _run(
        ws,
        [
            "/bin/sh",
            "-c",
            f"echo inside > ok.txt; echo outside > {victim}; echo x > /tmp/sa-escape-{os.getpid()}",
        ],
    )
    assert (scratch / "ok.txt").read_text() == "inside\n"
    assert not victim.exists()
    assert not Path(f"/tmp/sa-escape-{os.getpid()}").exists()
    assert "Read-only file system" in out.stderr


@pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap not available")
async def test_no_network(workspace_dir: Path) -> None:
    ws = Workspace.open(workspace_dir)
    _, out = await _run(ws, ["/bin/cat", "/proc/net/dev"])
    interfaces = [line.split(":")[0].strip() for line in out.stdout.splitlines()[2:]]
    assert interfaces == ["lo"]


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid drop applies when running as root")
async def test_process_limit_binds(workspace_dir: Path) -> None:
    ws = Workspace.open(workspace_dir)
    script = (
        "import os\nn=0\n"
        "try:\n"
        "  for i in range(100):\n"
        "    pid=os.fork()\n"
        "    if pid==0:\n"
        "      import time; time.sleep(3); os._exit(0)\n"
        "    n+=1\n"
        "except OSError: pass\n"
        "print('forked', n)\n"
    )
    _, out = await _run(ws, ["/usr/bin/python3", "-c", script], limits=Limits(processes=20))
    forked = int(out.stdout.split()[-1])
    assert forked < 20, out.stdout
    assert "uid nobody" in out.sandbox


async def test_cancel_kills_the_process(workspace_dir: Path) -> None:
    ws = Workspace.open(workspace_dir)
    marker = f"sa-cancel-{os.getpid()}"
    task = asyncio.ensure_future(
        _run(ws, ["/bin/bash", "-c", f"exec -a {marker} sleep 300"], timeout_s=120)
    )
    await asyncio.sleep(1.0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.3)
    alive = processes_mentioning(marker)
    assert alive == []


@pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap not available")
async def test_tools_under_tmp_stay_reachable() -> None:
    """A checkout (and its venv) under /tmp must stay readable by the tool uid inside the
    sandbox's private /tmp, however deep it lies."""
    outer = Path(tempfile.mkdtemp(prefix="sa-deep-"))
    deep = outer / "clone" / ".venv" / "bin"
    deep.mkdir(parents=True)
    tool = deep / "tool.sh"
    tool.write_text("#!/bin/sh\necho reachable\n")
    for path in (outer, outer / "clone", outer / "clone" / ".venv", deep):
        path.chmod(0o755)
    tool.chmod(0o755)
    try:
        ws = Workspace.open(outer / "clone")
        _, out = await _run(ws, [str(tool)])
        assert out.exit_code == 0 and out.stdout.strip() == "reachable", out.stderr
    finally:
        shutil.rmtree(outer, ignore_errors=True)


async def test_a_tool_nobody_can_reach_still_runs() -> None:
    """A checkout inside a folder only root may enter (mktemp -d's 0700): its venv's tools are
    bound by a sandbox that keeps root's uid, not dropped from a sandbox that runs as nobody."""
    private = Path(tempfile.mkdtemp(prefix="sa-private-"))  # 0700
    shared = Path(tempfile.mkdtemp(prefix="sa-shared-"))
    shared.chmod(0o755)
    bindir = private / "clone" / ".venv" / "bin"
    bindir.mkdir(parents=True)
    tool = bindir / "tool.sh"
    tool.write_text("#!/bin/sh\necho reachable\n")
    tool.chmod(0o755)
    try:
        _, out = await _run(Workspace.open(shared), [str(tool)])
        assert out.exit_code == 0 and out.stdout.strip() == "reachable", out.stderr
    finally:
        shutil.rmtree(private, ignore_errors=True)
        shutil.rmtree(shared, ignore_errors=True)
