"""Second red team, the sandbox: a testbench (the code a simulation runs) probes the suite's
private state, the workspace and inherited descriptors. The hidden expected beats and the
caches are protected by the uid a run drops to; a workspace only its owner can enter (as
`tempfile.mkdtemp` makes it) keeps that uid from being dropped."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.sandbox import plan_sandbox
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus

from .conftest import put

needs_bwrap = pytest.mark.skipif(
    "bwrap" not in plan_sandbox([Path("/tmp")], []).description,
    reason="bubblewrap is not usable here",
)
pytestmark = needs_bwrap
SECRET = "RT2-ANSWER-KEY-7f3a"


def probe_tb(reads: list[str], writes: list[str]) -> str:
    """Opens each path; prints whether it opened and, for reads, the first line."""
    body = []
    for p in reads:
        body.append(
            f'    fd = $fopen("{p}", "r"); $display("READ {p} %0d", fd != 0);\n'
            f'    if (fd) begin r = $fgets(s, fd); $display("LINE %0s", s); $fclose(fd); end'
        )
    for p in writes:
        body.append(
            f'    fd = $fopen("{p}", "a"); $display("WRITE {p} %0d", fd != 0);\n'
            f'    if (fd) begin $fdisplay(fd, "planted"); $fclose(fd); end'
        )
    return (
        "module tb_rt2probe;\n  integer fd, r;\n  reg [8*80:1] s;\n  initial begin\n"
        + "\n".join(body)
        + '\n    $display("Mismatches: 0 in 1 samples");\n    $finish;\n  end\nendmodule\n'
    )


def plant_hidden(workspace: Workspace) -> Path:
    """A hidden answer file the way hdl/sim.py keeps one: a 0700 folder under the state."""
    folder = workspace.keep_dir("hidden") / f"rt2-{uuid.uuid4().hex[:8]}"
    folder.mkdir(mode=0o700)
    beats = folder / "beats.json"
    beats.write_text(SECRET + "\n")
    beats.chmod(0o600)
    return beats


def probe(
    workspace: Workspace, root: Path, reads: list[str], writes: list[str], private: bool = False
) -> str:
    tag = uuid.uuid4().hex[:8]
    tb = put(root, f"rt2sb/tb_{tag}.sv", probe_tb(reads, writes))
    design = put(root, f"rt2sb/d_{tag}.sv", f"module rt2_d_{tag};\nendmodule\n")
    if private:
        root.chmod(0o700)  # put() opened the root for others; the owner's workspace is 0700
    result = asyncio.run(
        Icarus(workspace).run_testbench([design], [tb], top="tb_rt2probe", timeout_s=60)
    )
    assert result.status == Status.PASS, result.summary
    return (root / result.artifacts["log"]).read_text()


@pytest.fixture(scope="module")
def private_root() -> Iterator[Path]:
    """A workspace as mkdtemp makes it: 0700, owned by the server's user."""
    root = Path(tempfile.mkdtemp(prefix="sa-rt2-own-"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def test_hidden_answers_unreadable_in_a_private_workspace(private_root: Path) -> None:
    workspace = Workspace.open(private_root)
    beats = plant_hidden(workspace)
    log = probe(workspace, private_root, [str(beats)], [], private=True)
    assert SECRET not in log, log


def test_hidden_answers_unreadable_in_an_open_workspace(
    workspace: Workspace, adv_root: Path
) -> None:
    beats = plant_hidden(workspace)
    log = probe(workspace, adv_root, [str(beats), beats.relative_to(adv_root).as_posix()], [])
    assert SECRET not in log and f"READ {beats} 0" in log, log


def test_user_files_are_not_writable(workspace: Workspace, adv_root: Path) -> None:
    target = put(adv_root, "rt2sb/user_file.txt", "mine\n")
    log = probe(workspace, adv_root, [], [str(adv_root / target), target])
    assert (adv_root / target).read_text() == "mine\n", log


def test_private_workspace_files_are_not_writable(private_root: Path) -> None:
    workspace = Workspace.open(private_root)
    target = private_root / "user_file.txt"
    target.write_text("mine\n")
    probe(workspace, private_root, [], [str(target)], private=True)
    assert target.read_text() == "mine\n"


def test_cache_and_builds_are_not_writable(workspace: Workspace, adv_root: Path) -> None:
    cache = workspace.keep_dir("cache")
    build = workspace.keep_dir("build")
    targets = [cache / f"rt2-{uuid.uuid4().hex[:6]}.json", build / "rt2-planted.txt"]
    probe(workspace, adv_root, [], [str(t) for t in targets])
    assert not any(t.exists() for t in targets)


def test_another_runs_scratch_is_not_writable(workspace: Workspace, adv_root: Path) -> None:
    first = probe(workspace, adv_root, [], [])
    assert "Mismatches" in first
    logs = sorted(workspace.state_dir.rglob("sim.log"), key=lambda p: p.stat().st_mtime)
    victim = logs[-1]
    before = victim.read_text()
    probe(workspace, adv_root, [], [str(victim), str(victim.parent / "planted.txt")])
    assert victim.read_text() == before
    assert not (victim.parent / "planted.txt").exists()


def test_no_descriptor_of_the_server_is_inherited(workspace: Workspace, adv_root: Path) -> None:
    # Whatever the server holds open (its log, sockets, the cache database) must not be
    # reachable through /proc/self/fd or /dev/fd in the run.
    fds = [f"/proc/self/fd/{n}" for n in range(3, 12)] + ["/dev/fd/5", "/dev/fd/7"]
    log = probe(workspace, adv_root, fds, [])
    for path in fds:
        assert f"READ {path} 0" in log, (path, log)
