"""What a set of sources pulls in with `include, checked before any tool reads it.

Every include must name a regular file inside the workspace: an include of /etc/... would be
read by slang in the server process (outside the sandbox) and quoted back in diagnostics, and a
named pipe would block it forever. The closure also goes into the cache keys, so an edited
header is never answered from a stale build.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..workspace import InvalidInput, Workspace

MAX_INCLUDED_FILES = 500
MAX_DEPTH = 16
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_INCLUDE = re.compile(r'`include\b\s*(?P<arg>"[^"\n]*"|<[^>\n]*>|\S+)')
_PACKAGE = re.compile(r"^\s*package\s+(?:(?:automatic|static)\s+)?[A-Za-z_]\w*\s*;", re.M)


def strip_comments(text: str) -> str:
    """Comments blanked out (newlines kept, so line numbers stay right)."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


# `include spelled with anything between the backtick and the word (a macro's pasting, a
# line continuation) counts as an include too, so it is refused rather than followed.
_ANY_INCLUDE = re.compile(r"`[`\s\\]*include\b")


def foreign_includes(files: dict[str, str]) -> list[tuple[str, int, str]]:
    """(file, line, argument) of every `include in `files` (name → text) that does not name
    another of those files, as a plain quoted name next to the including file: a design
    judged beside hidden files (a testbench, its vectors) may include only its own files,
    refused on its own line before any tool reads a token of anything else."""
    own = {str(Path(name)) for name in files}
    found: list[tuple[str, int, str]] = []
    for name, text in files.items():
        clean = strip_comments(text)
        plain = {m.start(): m for m in _INCLUDE.finditer(clean)}
        for hit in _ANY_INCLUDE.finditer(clean):
            line = clean.count("\n", 0, hit.start()) + 1
            match = plain.get(hit.start())
            arg = (
                match.group("arg") if match else clean[hit.start() : hit.end() + 40].split("\n")[0]
            )
            target = (Path(name).parent / arg[1:-1]) if arg.startswith('"') else None
            if target is None or ".." in target.parts or str(target) not in own:
                found.append((name, line, arg))
    return found


def declares_package(path: Path) -> bool:
    """Whether a (testbench) file declares a package: the compilers need it before the design
    text that imports it. Only the order depends on it, never a check."""
    return bool(_PACKAGE.search(strip_comments(path.read_text(errors="replace"))))


def is_regular_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def _locate(
    workspace: Workspace, name: str, including: Path, include_dirs: Sequence[Path]
) -> Path | None:
    """The file an include names, searched as the compilers do: next to the including file,
    the working directory (the workspace root), then the include directories."""
    relative = workspace.relative(including)
    if Path(name).is_absolute():
        candidates = [Path(name)]
    else:
        candidates = [including.parent / name, workspace.root / name]
        candidates += [directory / name for directory in include_dirs]
    for candidate in candidates:
        if not candidate.exists():
            continue
        try:
            target = workspace.resolve(
                str(candidate), argument="include", must_exist=True, kind="any"
            )
        except InvalidInput as exc:
            raise InvalidInput(
                f'{relative}: `include "{name}" reaches outside the workspace',
                argument="include",
                hint="Keep included files inside the workspace and name them relative to it.",
            ) from exc
        if workspace.is_private(target) and not workspace.is_private(including):
            raise InvalidInput(
                f'{relative}: `include "{name}" names a file in the workspace\'s private '
                "state folder",
                argument="include",
                hint="The suite's own files (hidden answers, build state) cannot be included; "
                "include headers from your own folders.",
            )
        if not is_regular_file(target):
            raise InvalidInput(
                f'{relative}: `include "{name}" is not a regular file', argument="include"
            )
        return target
    return None


def refuse_reads_outside(
    workspace: Workspace, manager: object, *, private: bool = False, listed: Sequence[Path] = ()
) -> None:
    """Nothing slang read outside the workspace may reach the caller, not even quoted; with
    `private`, nothing it read in the workspace's state folder either, beyond the `listed`
    files the caller named itself (the suite keeps its own scratch copies there)."""
    paths = [
        path.resolve()
        for buffer in manager.getAllBuffers()  # type: ignore[attr-defined]
        if (path := Path(manager.getFullPath(buffer)))  # type: ignore[attr-defined]
        and path.is_absolute()
    ]
    outside = [path for path in paths if workspace.root not in path.parents]
    if outside:
        raise InvalidInput(
            f"sources read {len(outside)} file(s) outside the workspace", argument="include"
        )
    named = {Path(p).resolve() for p in listed}
    if private and any(workspace.is_private(path) for path in paths if path not in named):
        raise InvalidInput(
            "design sources read a file in the workspace's private state folder",
            argument="include",
        )


def include_closure(
    workspace: Workspace, sources: Iterable[Path], include_dirs: Sequence[Path] = ()
) -> list[Path]:
    """Every file the sources include, transitively; refuses includes that leave the
    workspace, are not regular files, or are not a plain quoted name."""
    seen: set[Path] = set()
    found: list[Path] = []
    stack = [(path, 0) for path in sources]
    while stack:
        path, depth = stack.pop()
        text = strip_comments(path.read_text(errors="replace"))
        for match in _INCLUDE.finditer(text):
            arg = match["arg"]
            if not (arg.startswith('"') and arg.endswith('"')):
                raise InvalidInput(
                    f"{workspace.relative(path)}: `include {arg} is not a quoted file name",
                    argument="include",
                    hint='Write `include "file.svh" with a path relative to the workspace.',
                )
            target = _locate(workspace, arg[1:-1], path, include_dirs)
            if target is None or target in seen:
                continue
            seen.add(target)
            found.append(target)
            if len(found) > MAX_INCLUDED_FILES:
                raise InvalidInput("more than 500 included files", argument="include")
            if depth < MAX_DEPTH:
                stack.append((target, depth + 1))
    return found
