"""The workspace is the user's: whatever its entries are called (names the runner or the flow
use for their own files among them), runs on both simulators leave each one's owner, mode,
content and inode as they were, and the runs still pass."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.verilator.api import Verilator

DESIGN = ["examples/counter/counter.sv"]
BENCH = ["examples/counter/tb_counter.sv"]
# Directories and files named like what runs create: scratch and temp folders, logs,
# dumps, build outputs, the /dev/null stand-in.
USER_DIRS = ["tmp", "build", "scratch", "work", "cwd", "obj", "home"]
USER_FILES = [".devnull", "sim.log", "compile.log", "waves.vcd", "waves.fst", "sim", "devnull"]


def _plant(root: Path) -> None:
    for name in USER_DIRS:
        folder = root / name
        folder.mkdir()
        (folder / "keep.txt").write_text(f"user data in {name}\n")
        folder.chmod(0o750)
    for name in USER_FILES:
        path = root / name
        path.write_text(f"user file {name}\n")
        path.chmod(0o640)
    # A file named like the folder the runner once made in every scratch, and a link.
    (root / "tmp.d").write_text("not a folder\n")
    (root / "link_to_tmp").symlink_to("tmp")


def _snapshot(root: Path) -> dict[str, tuple[int, int, int, int, str]]:
    """(uid, gid, mode, inode, content digest) of every user entry, links not followed."""
    seen: dict[str, tuple[int, int, int, int, str]] = {}
    for name in [*USER_DIRS, *USER_FILES, "tmp.d", "link_to_tmp"]:
        for path in [root / name, *sorted((root / name).glob("*"))]:
            st = os.lstat(path)
            if path.is_symlink():
                body = os.readlink(path)
            elif path.is_file():
                body = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                body = "dir"
            seen[str(path.relative_to(root))] = (st.st_uid, st.st_gid, st.st_mode, st.st_ino, body)
    return seen


@pytest.mark.slow
def test_runs_on_both_simulators_leave_user_entries_alone(workspace_dir: Path) -> None:
    _plant(workspace_dir)
    before = _snapshot(workspace_dir)
    ws = Workspace.open(workspace_dir)
    # Verilator builds take long: one build with a dump; iverilog with and without.
    for simulator, modes in ((Icarus(ws), ("none", "vcd")), (Verilator(ws), ("vcd",))):
        for waves in modes:
            result = asyncio.run(simulator.run_testbench(DESIGN, BENCH, waves=waves, timeout_s=600))
            assert result.status == Status.PASS, (simulator.name, waves, result.summary)
            assert _snapshot(workspace_dir) == before, (simulator.name, waves)
            if waves == "vcd":
                dump = workspace_dir / result.artifacts["waves"]
                assert ".silicon-agent" in dump.parts and dump.stat().st_size > 0
    # Only the suite's hidden folder was added.
    assert {p.name for p in workspace_dir.iterdir()} - set(before) - {"examples", "sv"} == {
        ".silicon-agent"
    }
