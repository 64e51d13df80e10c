"""The workspace: every path a tool touches resolves inside one root."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

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
        return self.root / STATE_DIR

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
        candidate = Path(path)
        if not candidate.is_absolute():
            candidate = self.root / candidate
        resolved = Path(os.path.realpath(candidate))
        if resolved != self.root and self.root not in resolved.parents:
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

    def relative(self, path: str | os.PathLike[str]) -> str:
        """Workspace-relative form for results; paths outside stay absolute."""
        resolved = Path(os.path.realpath(path))
        try:
            return resolved.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def new_scratch(self, label: str) -> Path:
        """A fresh directory for one call: nothing else writes there."""
        base = self.state_dir / "scratch"
        base.mkdir(parents=True, exist_ok=True)
        prune_oldest(base, KEEP_SCRATCH)
        scratch = base / f"{label}-{uuid.uuid4().hex[:12]}"
        scratch.mkdir()
        return scratch

    def keep_dir(self, *parts: str) -> Path:
        path = self.state_dir.joinpath(*parts)
        path.mkdir(parents=True, exist_ok=True)
        return path


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
