"""Red team, class 8 of issue 16: user entries named like the suite's scratch, build and tmp
folders (folders, files, links, FIFOs). A run leaves every one as it was (owner, mode,
content, inode) and writes nothing outside the workspace."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status, ToolResult
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.verilator.api import Verilator
from tests.conftest import EXAMPLES, make_world_readable_dir


@pytest.fixture
def root() -> Iterator[Path]:
    path = make_world_readable_dir("sa-rt-ws-")
    shutil.copytree(EXAMPLES / "counter", path / "c")
    (path / "c").chmod(0o755)
    for item in (path / "c").iterdir():
        item.chmod(0o644)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def outside() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="sa-rt-ws-out-"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def fingerprint(path: Path) -> tuple:
    st = path.lstat()
    body = path.read_bytes() if path.is_file() and not path.is_symlink() else None
    target = os.readlink(path) if path.is_symlink() else None
    listing = sorted(os.listdir(path)) if path.is_dir() and not path.is_symlink() else None
    return (st.st_ino, st.st_uid, st.st_gid, st.st_mode, body, target, listing)


def run(root: Path, simulator: type = Icarus) -> ToolResult:
    tool = simulator(Workspace.open(root))
    if not tool.tool.available:
        pytest.skip(f"{tool.name} is not installed")
    return asyncio.run(tool.run_testbench(["c/counter.sv"], ["c/tb_counter.sv"], timeout_s=120))


def plant(root: Path, outside: Path, kind: str) -> list[Path]:
    """User entries of one kind; returns the entries to fingerprint."""
    if kind == "folders":
        for name in ("tmp", "build", "scratch", "sim_build"):
            (root / name).mkdir(mode=0o700)
            (root / name / "keep.txt").write_text(f"user data in {name}\n")
        return [root / n for n in ("tmp", "build", "scratch", "sim_build")] + [
            root / "tmp" / "keep.txt"
        ]
    if kind == "files":
        for name in ("tmp", "build", "scratch", "obj_dir", "a.out"):
            (root / name).write_text(f"{name} is a user file\n")
            (root / name).chmod(0o600)
        return [root / n for n in ("tmp", "build", "scratch", "obj_dir", "a.out")]
    if kind == "fifos":
        for name in ("tmp", "sim.vvp"):
            os.mkfifo(root / name)
        return [root / "tmp", root / "sim.vvp"]
    if kind == "links_out":
        for name in ("tmp", "build", "scratch"):
            (root / name).symlink_to(outside)
        return [root / n for n in ("tmp", "build", "scratch")]
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["folders", "files", "fifos", "links_out"])
def test_user_entries_named_like_scratch_are_left_alone(
    kind: str, root: Path, outside: Path
) -> None:
    entries = plant(root, outside, kind)
    before = [fingerprint(p) for p in entries]
    result = run(root)
    assert result.status == Status.PASS, result.summary
    assert [fingerprint(p) for p in entries] == before
    assert os.listdir(outside) == []


def test_a_file_named_like_the_suite_folder(root: Path) -> None:
    (root / ".silicon-agent").write_text("my notes\n")
    before = fingerprint(root / ".silicon-agent")
    result = run(root)
    assert result.status in (Status.PASS, Status.INVALID_INPUT), result.summary
    assert fingerprint(root / ".silicon-agent") == before


@pytest.mark.parametrize("where", [".silicon-agent", ".silicon-agent/scratch"])
def test_suite_folder_linked_out_writes_nothing_outside(
    where: str, root: Path, outside: Path
) -> None:
    link = root / where
    link.parent.mkdir(exist_ok=True)
    link.symlink_to(outside)
    result = run(root)
    assert os.listdir(outside) == [], (result.status, result.summary)


@pytest.mark.slow
def test_verilator_leaves_a_user_obj_dir_alone(root: Path, outside: Path) -> None:
    (root / "obj_dir").mkdir()
    (root / "obj_dir" / "Vtb_counter").write_text("not a model\n")
    entries = [root / "obj_dir", root / "obj_dir" / "Vtb_counter"]
    before = [fingerprint(p) for p in entries]
    result = run(root, Verilator)
    assert result.status == Status.PASS, result.summary
    assert [fingerprint(p) for p in entries] == before
