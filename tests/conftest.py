"""Fixtures shared by every test folder."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "hdl" / "examples"
FIXTURES = REPO / "tests" / "fixtures"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def processes_mentioning(text: str) -> list[str]:
    """Pids whose command line contains text; a process that exits while /proc is read is
    simply not counted (other work on the machine starts and ends processes all the time)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if text in cmdline:
            found.append(pid)
    return found


def example_trace(name: str, folder: str = "examples") -> dict:
    """hdl/examples/<name>/trace.json as a run_testbench trace argument for a workspace that
    holds the examples under ``folder`` (its expected file is relative to the example)."""
    spec = json.loads((EXAMPLES / name / "trace.json").read_text())
    if spec.get("expected"):
        spec["expected"] = f"{folder}/{name}/{spec['expected']}"
    return spec


def make_world_readable_dir(prefix: str) -> Path:
    """pytest's tmp_path is 0700 under root; the sandboxed tool uid must read the workspace."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    return path


def make_tree_readable(root: Path) -> None:
    """Directories 0755 and files 0644 below root, for the sandboxed tool uid."""
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            Path(dirpath, name).chmod(0o755)
        for name in filenames:
            Path(dirpath, name).chmod(0o644)


@pytest.fixture
def workspace_dir() -> Iterator[Path]:
    """A fresh workspace holding copies of the example designs and the SV fixtures."""
    root = make_world_readable_dir("sa-ws-")
    shutil.copytree(EXAMPLES, root / "examples")
    shutil.copytree(FIXTURES / "sv", root / "sv")
    make_tree_readable(root)
    yield root
    shutil.rmtree(root, ignore_errors=True)


async def plant_link(scratch: Path, readable: Path, target: str, name: str) -> Path:
    """A link to target that a sandboxed run (not this process) leaves in its scratch."""
    from silicon_agent.servers.core.runner import run_process

    planted = await run_process(
        ["/bin/ln", "-s", target, name], cwd=scratch, scratch=scratch, readable=[readable],
        timeout_s=20,
    )  # fmt: skip
    assert planted.exit_code == 0, planted.stderr
    link = scratch / name
    assert link.is_symlink()
    return link
