"""Run one tool process: argv only, confined, limited, killed whole on timeout or cancel."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .sandbox import hand_over, plan_sandbox, socket_filter
from .workspace import remove_tree

DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
MAX_KEPT_LINES = 10_000
MAX_LINE_BYTES = 64 * 1024
MAX_PARALLEL = max(2, (os.cpu_count() or 2) * 2)
_slots: asyncio.Semaphore | None = None
_slots_loop: asyncio.AbstractEventLoop | None = None


@dataclass(frozen=True)
class Limits:
    cpu_s: int = 600
    memory_bytes: int = 8 << 30
    file_bytes: int = 2 << 30
    processes: int = 512
    output_bytes: int = 1 << 20  # per stream: half kept from the head, half from the tail


@dataclass
class ProcessOutcome:
    argv: list[str]
    exit_code: int | None
    stdout: str
    stderr: str
    truncated: bool
    timed_out: bool
    duration_s: float
    sandbox: str
    signal: int | None = None
    kept_lines: list[str] = field(default_factory=list)
    # More lines matched `keep` than MAX_KEPT_LINES: some were not kept, so whatever they
    # decide (a verdict) cannot be read from kept_lines.
    kept_overflow: bool = False


class _Capture:
    """Keeps the head and the tail of a stream under a byte cap, and every line that matches
    `keep` (up to MAX_KEPT_LINES) wherever it falls, so a cut never hides a verdict line; past
    that many, `overflow` says that some were lost."""

    def __init__(self, cap: int, keep: re.Pattern[str] | None):
        self.half = cap // 2
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0
        self.keep = keep
        self.partial = b""
        self.kept: list[str] = []
        self.overflow = False
        self.skipping = False  # inside a line already kept as its first MAX_LINE_BYTES

    def _scan(self, chunk: bytes) -> None:
        if self.keep is None:
            return
        data = self.partial + chunk
        *complete, self.partial = data.split(b"\n")
        if self.skipping and complete:
            complete.pop(0)  # the rest of a line cut at the cap: not a line of its own
            self.skipping = False
        if len(self.partial) > MAX_LINE_BYTES:
            # A line past the cap is kept as its start, where a report's header is (a design's
            # $error names its file there); what follows up to its end is not a new line.
            if not self.skipping:
                complete.append(self.partial)
            self.partial = b""
            self.skipping = True
        for raw in complete:
            line = raw[:MAX_LINE_BYTES].decode("utf-8", errors="replace")
            if not self.keep.search(line):
                continue
            if len(self.kept) >= MAX_KEPT_LINES:
                self.overflow = True
                break
            self.kept.append(line)

    def finish(self) -> None:
        if self.partial:
            self._scan(b"\n")

    def feed(self, chunk: bytes) -> None:
        self._scan(chunk)
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            excess = len(self.tail) - self.half
            if excess > 0:
                self.dropped += excess
                del self.tail[:excess]

    def text(self) -> str:
        body = bytes(self.head)
        if self.dropped:
            body += f"\n[... {self.dropped} bytes cut ...]\n".encode()
        body += bytes(self.tail)
        return body.decode("utf-8", errors="replace")


def _limit_prefix(limits: Limits) -> list[str]:
    """rlimits applied by prlimit in the child's argv: a preexec_fn would force a full fork
    of this (large) Python process for every tool call."""
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return []
    return [
        prlimit,
        f"--cpu={limits.cpu_s}:{limits.cpu_s + 5}",
        f"--as={limits.memory_bytes}",
        f"--fsize={limits.file_bytes}",
        f"--nproc={limits.processes}",
        "--core=0",
        "--",
    ]


def _slot() -> asyncio.Semaphore:
    global _slots, _slots_loop
    loop = asyncio.get_running_loop()
    if _slots is None or _slots_loop is not loop:
        _slots, _slots_loop = asyncio.Semaphore(MAX_PARALLEL), loop
    return _slots


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


async def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    scratch: Path,
    readable: Sequence[Path] = (),
    timeout_s: float,
    env: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    keep: re.Pattern[str] | None = None,
    hidden: Sequence[Path] = (),
) -> ProcessOutcome:
    """Run argv in cwd with only `scratch` writable. Never a shell: argv[0] is the program.
    `hidden` paths show empty to the run (see plan_sandbox).

    Nothing is created or chowned under a fixed name: `scratch` (and `cwd` inside it) may hold
    links to the user's files, so the run's own directory is a fresh one mkdtemp makes."""
    if isinstance(argv, str) or not argv:
        raise TypeError("argv must be a non-empty list of strings")
    limits = limits or Limits()
    private = Path(tempfile.mkdtemp(prefix=".sa-run-", dir=scratch))
    seccomp_fd = _filter_pipe()
    try:
        return await _run_confined(
            argv, cwd, scratch, private, readable, timeout_s, env, limits, keep, hidden,
            seccomp_fd,
        )  # fmt: skip
    finally:
        os.close(seccomp_fd)
        remove_tree(private)


def _filter_pipe() -> int:
    """A descriptor to read the seccomp program from (bwrap reads it; see sandbox)."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, socket_filter())
    finally:
        os.close(write_end)
    return read_end


async def _run_confined(
    argv: Sequence[str],
    cwd: Path,
    scratch: Path,
    private: Path,
    readable: Sequence[Path],
    timeout_s: float,
    env: Mapping[str, str] | None,
    limits: Limits,
    keep: re.Pattern[str] | None,
    hidden: Sequence[Path],
    seccomp_fd: int,
) -> ProcessOutcome:
    plan = plan_sandbox(
        [scratch],
        [Path(p) for p in readable],
        cwd=cwd,
        program=argv[0],
        private=private,
        hidden=hidden,
        seccomp_fd=seccomp_fd,
    )
    if plan.drop_uid:
        # The tool may write in its cwd when that is a directory of the scratch (never a link).
        inner = [cwd] if scratch in cwd.parents and not cwd.is_symlink() else []
        for path in (scratch, private, *inner):
            hand_over(path)
    full_env = {
        "PATH": DEFAULT_PATH,
        "HOME": str(scratch),
        "TMPDIR": "/tmp" if plan.private_tmp else str(private),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }
    full_env.update(env or {})
    command = [*plan.prefix, *_limit_prefix(limits), *plan.inner, *argv]
    async with _slot():
        started = time.monotonic()
        proc = await asyncio.create_subprocess_exec(
            *command,
            cwd=str(cwd),
            env=full_env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            pass_fds=(seccomp_fd,) if plan.prefix else (),
        )
        out = _Capture(limits.output_bytes, keep)
        err = _Capture(limits.output_bytes, keep)

        async def pump(stream: asyncio.StreamReader | None, sink: _Capture) -> None:
            assert stream is not None
            while chunk := await stream.read(1 << 16):
                sink.feed(chunk)

        pumps = asyncio.gather(pump(proc.stdout, out), pump(proc.stderr, err))
        timed_out = False
        try:
            await asyncio.wait_for(asyncio.shield(proc.wait()), timeout=timeout_s)
        except TimeoutError:
            timed_out = True
            _kill_group(proc.pid)
            await proc.wait()
        except asyncio.CancelledError:
            _kill_group(proc.pid)
            await proc.wait()
            pumps.cancel()
            raise
        # A grandchild that kept the pipes open must not hold the call: the group goes too.
        _kill_group(proc.pid)
        try:
            await asyncio.wait_for(pumps, timeout=5)
        except TimeoutError:
            pumps.cancel()
        duration = time.monotonic() - started
    out.finish()
    err.finish()
    code = proc.returncode
    sig = -code if code is not None and code < 0 else None
    return ProcessOutcome(
        argv=list(argv),
        exit_code=code,
        stdout=out.text(),
        stderr=err.text(),
        truncated=bool(out.dropped or err.dropped),
        timed_out=timed_out,
        duration_s=duration,
        sandbox=plan.description,
        signal=sig,
        kept_lines=out.kept + err.kept,
        kept_overflow=out.overflow or err.overflow,
    )
