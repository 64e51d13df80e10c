"""How a tool process is confined: bubblewrap where present, an unprivileged uid when root.

bwrap gives a read-only view of the machine with only the call's scratch directory writable
and no network. RLIMIT_NPROC does not bind root, so as root the tool runs as `nobody`, which
needs read access to its inputs; when the workspace is not readable by others the uid drop
is skipped and the result says so.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

NOBODY = 65534
SANDBOX_ENV = "SILICON_AGENT_SANDBOX"  # "auto" (default) or "none" to disable bwrap


@dataclass(frozen=True)
class SandboxPlan:
    prefix: list[str]
    drop_uid: bool
    description: str


@cache
def _bwrap_path() -> str | None:
    if os.environ.get(SANDBOX_ENV, "auto") == "none":
        return None
    path = shutil.which("bwrap")
    if path is None:
        return None
    import subprocess

    probe = subprocess.run(
        [path, "--ro-bind", "/", "/", "--unshare-net", "--die-with-parent", "true"],
        capture_output=True,
        timeout=10,
        check=False,
    )
    return path if probe.returncode == 0 else None


def _others_can_read(path: Path) -> bool:
    """True when uid nobody can traverse every parent and read the path."""
    current = path.resolve()
    for part in [current, *current.parents]:
        try:
            mode = part.stat().st_mode
        except OSError:
            return False
        if part == current and not (mode & stat.S_IROTH):
            return False
        if stat.S_ISDIR(mode) and not (mode & stat.S_IXOTH):
            return False
    return True


def _tmp_top(path: Path) -> Path | None:
    """/tmp/a for /tmp/a/b/c; None for a path outside /tmp."""
    parts = path.resolve().parts
    return Path("/tmp", parts[2]) if len(parts) > 2 and parts[:2] == ("/", "tmp") else None


def plan_sandbox(writable: list[Path], readable: list[Path]) -> SandboxPlan:
    bwrap = _bwrap_path()
    drop = os.geteuid() == 0 and shutil.which("setpriv") is not None
    drop = drop and all(_others_can_read(p) for p in readable)
    notes: list[str] = []
    prefix: list[str] = []
    if bwrap:
        # A private /tmp: some writers (vvp's FST) call tmpfile(), which ignores TMPDIR.
        # Whatever the tool must still see under /tmp (a workspace, this venv) is bound back.
        prefix = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        prefix += ["--perms", "1777", "--tmpfs", "/tmp"]
        # Bind each one's top directory under /tmp: bwrap would create the parents of a deeper
        # mount point as root-only directories that the tool uid cannot traverse.
        tops = {_tmp_top(p) for p in (*readable, Path(sys.prefix), Path(sys.base_prefix))}
        for top in sorted(t for t in tops if t is not None):
            prefix += ["--ro-bind", str(top), str(top)]
        for path in writable:
            prefix += ["--bind", str(path), str(path)]
        if drop and writable and not os.stat("/dev/null").st_mode & stat.S_IWOTH:
            # Some images ship /dev/null without write for others; tools (Verilator's make,
            # shells) redirect to it, so give nobody a throwaway file there instead.
            sink = writable[0] / ".devnull"
            sink.touch()
            hand_over(sink)
            prefix += ["--bind", str(sink), "/dev/null"]
        prefix += [
            "--unshare-net",
            "--unshare-pid",
            "--unshare-ipc",
            "--new-session",
            "--die-with-parent",
            "--",
        ]
        notes.append("bwrap: read-only root, scratch writable, no network, own pid namespace")
    else:
        notes.append("no bwrap: writes are not confined to scratch and network is not cut")
    if drop:
        prefix += [
            shutil.which("setpriv") or "setpriv",
            f"--reuid={NOBODY}",
            f"--regid={NOBODY}",
            "--clear-groups",
            "--",
        ]
        notes.append("uid nobody with rlimits")
    else:
        notes.append("same uid with rlimits")
    return SandboxPlan(prefix=prefix, drop_uid=drop, description="; ".join(notes))


def hand_over(path: Path) -> None:
    """Give a scratch directory to the uid the tool runs as."""
    if os.geteuid() == 0:
        os.chown(path, NOBODY, NOBODY)
