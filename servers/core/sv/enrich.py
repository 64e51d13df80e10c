"""Merge a simulator's diagnostics with slang's: columns, categories, snippets, one list."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from ..models import Category, Diagnostic, Severity
from ..workspace import Workspace
from .categories import HINTS

SNIPPET_CONTEXT = 2
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_QUOTED = re.compile(r"['`]([A-Za-z_][A-Za-z0-9_$]*)'")


def _matches(primary: Diagnostic, candidate: Diagnostic) -> bool:
    if primary.file != candidate.file or primary.line is None or candidate.line is None:
        return False
    if primary.line == candidate.line:
        return True
    # iverilog and Verilator report a missing ';' on the next line; slang on the line itself.
    return (
        primary.category == Category.SYNTAX_ERROR
        and candidate.category == Category.SYNTAX_ERROR
        and 0 < primary.line - candidate.line <= 2
    )


def merge(
    primary: list[Diagnostic], slang: list[Diagnostic], tool_failed: bool
) -> list[Diagnostic]:
    """The simulator decides pass/fail; slang adds the column and a sharper category.

    slang errors the simulator did not report are kept: as errors when the simulator failed
    too (it often stops at the first), as warnings when it accepted the code.
    """
    used: set[int] = set()
    merged: list[Diagnostic] = []
    for diag in primary:
        best = (
            next(
                (
                    i
                    for i, s in enumerate(slang)
                    if i not in used and _matches(diag, s) and s.severity == Severity.ERROR
                ),
                None,
            )
            if diag.severity == Severity.ERROR
            else None
        )
        if best is None:
            best = next(
                (i for i, s in enumerate(slang) if i not in used and _matches(diag, s)), None
            )
        if best is not None:
            used.add(best)
            other = slang[best]
            category = diag.category
            if category in (Category.OTHER, Category.LINT) or (
                category == Category.SYNTAX_ERROR and other.category != Category.OTHER
            ):
                category = other.category if other.category != Category.OTHER else category
            diag = diag.model_copy(
                update={
                    "line": other.line if diag.category == Category.SYNTAX_ERROR else diag.line,
                    "column": diag.column or other.column,
                    "category": category,
                    "code": diag.code or other.code,
                    "message": f"{other.message} [{diag.source}: {diag.message}]"
                    if diag.category == Category.SYNTAX_ERROR
                    else diag.message,
                    "hint": HINTS[category],
                }
            )
        merged.append(diag)
    for i, extra in enumerate(slang):
        if i in used:
            continue
        if extra.severity == Severity.ERROR and not tool_failed:
            extra = extra.model_copy(
                update={
                    "severity": Severity.WARNING,
                    "message": f"{extra.message} (slang rejects this; the simulator accepted it)",
                }
            )
        merged.append(extra)
    return merged


def add_snippets(workspace: Workspace, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    cache: dict[str, list[str]] = {}
    out: list[Diagnostic] = []
    for diag in diagnostics:
        if diag.file and diag.line:
            lines = cache.get(diag.file)
            if lines is None:
                lines = _read_lines(workspace.root / diag.file)
                cache[diag.file] = lines
            if lines:
                diag = diag.model_copy(
                    update={
                        "snippet": snippet(lines, diag.line, diag.column),
                        "hint": _sharpen_hint(diag, lines),
                    }
                )
        out.append(diag)
    return out


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(errors="replace").splitlines()
    except OSError:
        return []


def snippet(lines: list[str], line: int, column: int | None) -> str:
    start = max(1, line - SNIPPET_CONTEXT)
    end = min(len(lines), line + SNIPPET_CONTEXT)
    rows: list[str] = []
    for number in range(start, end + 1):
        mark = ">" if number == line else " "
        rows.append(f"{mark}{number:5d} | {lines[number - 1]}")
        if number == line and column:
            rows.append(f"       | {' ' * (column - 1)}^")
    return "\n".join(rows)


def _sharpen_hint(diag: Diagnostic, lines: list[str]) -> str | None:
    """For an undeclared name, suggest the closest identifier the file does declare."""
    if diag.category != Category.UNDECLARED_IDENTIFIER:
        return diag.hint
    quoted = _QUOTED.search(diag.message)
    if not quoted:
        return diag.hint
    name = quoted.group(1)
    known = {tok for text in lines for tok in _IDENT.findall(text)} - {name}
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    if close:
        return f"'{name}' is not declared; did you mean '{close[0]}'? " + (diag.hint or "")
    return f"'{name}' is not declared. " + (diag.hint or "")
