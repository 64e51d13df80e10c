"""The workspace: every path a tool touches resolves inside one root."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .models import Category, Diagnostic, Severity

STATE_DIR = ".silicon-agent"
KEEP_SCRATCH = 400  # per-call directories kept (logs and waves results point at)
PRUNE_SLACK = 50
WORKSPACE_ENV = "SILICON_AGENT_WORKSPACE"


class InvalidInput(ValueError):
    """An argument the tool refuses; becomes an INVALID_INPUT result, never a crash."""

    def __init__(self, message: str, *, argument: str | None = None, hint: str | None = None):
        super().__init__(message)
        self.argument = argument
        self.hint = hint

    def diagnostic(self) -> Diagnostic:
        """The refusal as a diagnostic: the argument is its code, the hint says what to do."""
        return Diagnostic(
            severity=Severity.ERROR,
            category=Category.INVALID_INPUT,
            code=self.argument,
            message=str(self),
            hint=self.hint or "Correct the argument named in the message and call again.",
            source="silicon-agent",
        )


def default_root(explicit: str | os.PathLike[str] | None = None) -> Path:
    """--workspace beats SILICON_AGENT_WORKSPACE beats the working directory."""
    chosen = explicit or os.environ.get(WORKSPACE_ENV) or os.getcwd()
    return Path(chosen).resolve()


@dataclass(frozen=True)
class Workspace:
    root: Path

    @classmethod
    def open(cls, root: str | os.PathLike[str] | None = None) -> Workspace:
        path = default_root(root)
        if not path.is_dir():
            raise InvalidInput(f"workspace root {path} is not a directory", argument="workspace")
        return cls(path)

    @property
    def state_dir(self) -> Path:
        """The suite's own folder (builds, caches, scratch), refused while the entry of that
        name is anything but a real directory inside the workspace."""
        path = self.root / STATE_DIR
        self._own_dir(path)
        return path

    def check_state(self) -> None:
        """Refuse (InvalidInput) a state folder, or a subfolder in it, that is a file, a link
        or anything else than a real directory inside the workspace: the suite would write
        its builds, caches and scratch through it, or read a planted cache from it."""
        try:
            entries = list(os.scandir(self.state_dir))
        except FileNotFoundError:
            return
        for entry in entries:
            self._own_dir(Path(entry.path))

    def _own_dir(self, path: Path) -> None:
        try:
            mode = path.lstat().st_mode
        except FileNotFoundError:
            return
        if stat.S_ISDIR(mode):  # lstat: a link to a folder is refused (each level checked)
            return
        shown = path.relative_to(self.root).as_posix()
        raise InvalidInput(
            f"workspace: '{shown}' is not a real folder inside the workspace (a file or a "
            f"link); the suite keeps its builds, caches and scratch in '{STATE_DIR}'",
            argument="workspace",
            hint=f"Remove or rename the workspace entry '{shown}' (the suite recreates "
            "it as a folder), then call again.",
        )

    def is_private(self, path: str | os.PathLike[str]) -> bool:
        """Whether a path (relative to the root, or absolute) lies in the state folder after
        links are resolved: the suite's own files, never read for or quoted to a design."""
        full = Path(path) if Path(path).is_absolute() else self.root / path
        return self.state_dir.resolve() in full.resolve().parents

    def resolve(
        self,
        path: str,
        *,
        argument: str = "path",
        must_exist: bool = True,
        kind: str = "file",
    ) -> Path:
        """Resolve a user path (relative to the root, or absolute inside it) with links followed.

        Names that start with '-' or '+' are refused because a tool would read them as options.
        """
        if not isinstance(path, str) or not path.strip():
            raise InvalidInput(f"{argument}: empty path", argument=argument)
        if "\x00" in path:
            raise InvalidInput(f"{argument}: path contains a NUL byte", argument=argument)
        if Path(path).name.startswith(("-", "+")):
            raise InvalidInput(
                f"{argument}: '{path}' starts with '-' or '+' and would be read as an option",
                argument=argument,
                hint="Rename the file so it starts with a letter, digit or underscore.",
            )
        resolved = self._real(path)
        if resolved is None:
            raise InvalidInput(
                f"{argument}: '{path}' resolves outside the workspace {self.root}",
                argument=argument,
                hint="Use a path relative to the workspace root; '..' and links out are refused.",
            )
        if must_exist:
            if not resolved.exists():
                raise InvalidInput(
                    f"{argument}: '{path}' does not exist in the workspace",
                    argument=argument,
                    hint="List the workspace files and pass an existing path.",
                )
            if kind == "file" and not resolved.is_file():
                raise InvalidInput(f"{argument}: '{path}' is not a regular file", argument=argument)
            if kind == "dir" and not resolved.is_dir():
                raise InvalidInput(f"{argument}: '{path}' is not a directory", argument=argument)
        return resolved

    def resolve_all(self, paths: Iterable[str], *, argument: str, kind: str = "file") -> list[Path]:
        if isinstance(paths, str):
            raise InvalidInput(
                f"{argument}: expected a list of paths, got a string", argument=argument
            )
        return [self.resolve(p, argument=argument, kind=kind) for p in paths]

    def _real(self, path: str | os.PathLike[str]) -> Path | None:
        """The path (relative to the root, or absolute) with every link resolved, or None
        when that lies outside the workspace."""
        resolved = Path(os.path.realpath(self.root / path))
        inside = resolved == self.root or self.root in resolved.parents
        return resolved if inside else None

    def confine(self, path: str | os.PathLike[str], *, argument: str = "path") -> Path:
        """The real path of `path` (relative to the root, or absolute) with every link
        resolved, when it lies inside the workspace; otherwise InvalidInput naming
        `argument`. For paths a server reads on a caller's behalf: its own scratch and run
        folders included, since a tool may have planted links there."""
        resolved = self._real(path)
        if resolved is None:
            raise InvalidInput(
                f"{argument}: '{self.shown(path)}' resolves outside the workspace",
                argument=argument,
                hint="Only files inside the workspace are read; links out of it are refused.",
            )
        return resolved

    def open_confined(self, path: str | os.PathLike[str], *, argument: str = "path") -> BinaryIO:
        """A regular file opened for reading, only if it resolves inside the workspace. The
        check is repeated on the opened file itself, so a link swapped in after the first
        check cannot redirect the read; a FIFO or device is refused without blocking."""
        resolved = self.confine(path, argument=argument)
        try:
            fd = os.open(resolved, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            raise InvalidInput(
                f"{argument}: '{self.shown(path)}' cannot be read ({exc.strerror})",
                argument=argument,
            ) from exc
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise InvalidInput(
                    f"{argument}: '{self.shown(path)}' is not a regular file", argument=argument
                )
            self.confine(_opened_path(fd, resolved), argument=argument)
        except BaseException:
            os.close(fd)
            raise
        return os.fdopen(fd, "rb")

    def read_confined(
        self, path: str | os.PathLike[str], *, argument: str = "path", max_bytes: int = 64 << 20
    ) -> bytes:
        """The bytes of a file inside the workspace (see open_confined), refused over
        `max_bytes` before reading."""
        with self.open_confined(path, argument=argument) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > max_bytes:
                raise InvalidInput(
                    f"{argument}: '{self.shown(path)}' is {size} bytes, over the limit "
                    f"max_bytes={max_bytes}",
                    argument=argument,
                )
            return handle.read(max_bytes + 1)[:max_bytes]

    def shown(self, path: str | os.PathLike[str]) -> str:
        """How a result or diagnostic may name a file: workspace-relative inside the
        workspace, and only its bare name outside it (nothing about the host leaks)."""
        resolved = self._real(path)
        return Path(path).name if resolved is None else resolved.relative_to(self.root).as_posix()

    def relative(self, path: str | os.PathLike[str]) -> str:
        """Workspace-relative form for results; paths outside stay absolute."""
        resolved = Path(os.path.realpath(path))
        try:
            return resolved.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def new_scratch(self, label: str) -> Path:
        """A fresh directory for one call: nothing else writes there."""
        base = self.keep_dir("scratch")
        prune_oldest(base, KEEP_SCRATCH)
        scratch = base / f"{label}-{uuid.uuid4().hex[:12]}"
        scratch.mkdir()
        return scratch

    def keep_dir(self, *parts: str) -> Path:
        """A folder under the state folder, made level by level; each level must be a real
        folder inside the workspace (see check_state)."""
        path = self.state_dir
        path.mkdir(exist_ok=True)
        for part in parts:
            path = path / part
            self._own_dir(path)
            path.mkdir(exist_ok=True)
        return path


def open_beneath(
    root: Path, relative: str, *, argument: str = "path", max_bytes: int = 64 << 20
) -> tuple[int, bytes]:
    """Open `relative` once beneath `root` without following any link, and read it from that
    one handle: (size, bytes). Each component is opened from its parent's descriptor with
    O_NOFOLLOW, so no link, '..' or absolute path can lead out, and nothing swapped in after
    the open changes what is read. A FIFO or device is refused without blocking; the
    workspace's state folder is never a source, and neither is a file with a second name (a hard
    link, which can name a file anywhere on the device)."""
    parts = [p for p in relative.split("/") if p not in ("", ".")]
    if not relative or "\x00" in relative or relative.startswith("/") or ".." in parts:
        raise InvalidInput(
            f"{argument}: '{relative}' is not a path inside the workspace",
            argument=argument,
            hint="Give a workspace-relative path without '..'.",
        )
    if not parts or parts[0] == STATE_DIR:
        raise InvalidInput(
            f"{argument}: '{relative}' lies in the suite's own folder", argument=argument
        )
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    fds = [os.open(root, flags | os.O_DIRECTORY)]
    try:
        for part in parts[:-1]:
            fds.append(os.open(part, flags | os.O_DIRECTORY, dir_fd=fds[-1]))
        fds.append(os.open(parts[-1], flags | os.O_NONBLOCK, dir_fd=fds[-1]))
        info = os.fstat(fds[-1])
        if not stat.S_ISREG(info.st_mode):
            raise InvalidInput(f"{argument}: '{relative}' is not a regular file", argument=argument)
        if info.st_nlink != 1:
            # A hard link is a second name of a file that may live anywhere on the device
            # (the server's private state included): no path check can tell where.
            raise InvalidInput(
                f"{argument}: '{relative}' has {info.st_nlink} names (a hard link)",
                argument=argument,
                hint="Give a file of its own: copy it instead of linking it.",
            )
        if info.st_size > max_bytes:
            raise InvalidInput(
                f"{argument}: '{relative}' is {info.st_size} bytes, over {max_bytes}",
                argument=argument,
            )
        data = b""
        while len(data) <= max_bytes:
            chunk = os.read(fds[-1], max_bytes + 1 - len(data))
            if not chunk:
                break
            data += chunk
        if len(data) > max_bytes:
            raise InvalidInput(f"{argument}: '{relative}' grew over {max_bytes}", argument=argument)
        return info.st_size, data
    except OSError as exc:
        reason = "a link, or under one" if exc.errno == errno.ELOOP else exc.strerror
        raise InvalidInput(
            f"{argument}: '{relative}' cannot be opened inside the workspace ({reason})",
            argument=argument,
            hint="Give a regular file of the workspace; links are not followed.",
        ) from exc
    finally:
        for fd in fds:
            os.close(fd)


def _opened_path(fd: int, fallback: Path) -> str:
    """Where an open file really is, as the kernel sees it now."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return str(fallback)


def atomic_write(path: Path, data: bytes | str) -> None:
    """Readers see the old file or the new one, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; the sandboxed tool uid must read it
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def prune_oldest(directory: Path, keep: int) -> None:
    """Remove the oldest entries once there are `keep + PRUNE_SLACK`, so the workspace does
    not grow without bound; results whose artifacts are gone are no longer cache hits."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    if len(entries) <= keep + PRUNE_SLACK:
        return
    entries.sort(key=lambda e: e.stat(follow_symlinks=False).st_mtime)
    for entry in entries[: len(entries) - keep]:
        remove_tree(Path(entry.path))
