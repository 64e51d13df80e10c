"""Merge a simulator's diagnostics with slang's: columns, categories, snippets, one list."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from ..models import Category, Diagnostic, Severity
from ..workspace import InvalidInput, Workspace
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
    too (it often stops at the first), as warnings when it accepted the code. Several tool
    messages at one place collapse into one diagnostic.
    """
    used: set[int] = set()
    merged: dict[tuple[object, ...], Diagnostic] = {}
    for diag in primary:
        candidates = [i for i, s in enumerate(slang) if _matches(diag, s)]
        errors_first = sorted(candidates, key=lambda i: slang[i].severity != Severity.ERROR)
        if errors_first:
            best = errors_first[0]
            used.update(candidates)
            diag = _enrich(diag, slang[best])
        key = (diag.file, diag.line, diag.column, diag.category, diag.severity)
        if key in merged:
            first = merged[key]
            if diag.message not in first.message:
                merged[key] = first.model_copy(
                    update={"message": f"{first.message}; {diag.message}"}
                )
            continue
        merged[key] = diag
    result = list(merged.values())
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
        result.append(extra)
    return result


def _enrich(diag: Diagnostic, other: Diagnostic) -> Diagnostic:
    category = diag.category
    if category in (Category.OTHER, Category.LINT) or (
        category == Category.SYNTAX_ERROR and other.category != Category.OTHER
    ):
        category = other.category if other.category != Category.OTHER else category
    syntax = diag.category == Category.SYNTAX_ERROR
    return diag.model_copy(
        update={
            # For syntax errors slang points at the missing token; the simulators at the next.
            "line": other.line if syntax else diag.line,
            "column": other.column if syntax else (diag.column or other.column),
            "category": category,
            "code": diag.code or other.code,
            "message": f"{other.message} [{diag.source}: {diag.message}]"
            if syntax
            else diag.message,
            "hint": HINTS[category],
        }
    )


def add_snippets(workspace: Workspace, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Snippets from the files diagnostics name; a file outside the workspace (a tool can be
    made to name any file on the machine) is never read and is named by its bare name."""
    cache: dict[str, list[str]] = {}
    out: list[Diagnostic] = []
    for diag in diagnostics:
        if diag.file and workspace.is_private(diag.file):
            # The suite's own files (hidden answers, secrets, builds): named, never quoted.
            diag = _redacted(workspace, diag, Path(diag.file).name)
            out.append(diag)
            continue
        if diag.file and workspace.shown(diag.file) != diag.file:
            diag = _redacted(workspace, diag)
        if diag.file and diag.line:
            lines = cache.get(diag.file)
            if lines is None:
                lines = _read_lines(workspace, diag.file)
                cache[diag.file] = lines
            if lines:
                column = diag.column or _column_of_quoted(diag, lines)
                diag = diag.model_copy(
                    update={
                        "column": column,
                        "snippet": snippet(lines, diag.line, column),
                        "hint": _sharpen_hint(diag, lines),
                    }
                )
        out.append(diag)
    return out


def _redacted(workspace: Workspace, diag: Diagnostic, shown: str | None = None) -> Diagnostic:
    """The diagnostic naming its file as the workspace shows it: relative inside, the bare
    name outside, in the file field and in the message text alike."""
    assert diag.file is not None
    shown = shown or workspace.shown(diag.file)
    return diag.model_copy(
        update={"file": shown, "message": diag.message.replace(diag.file, shown)}
    )


def _read_lines(workspace: Workspace, name: str) -> list[str]:
    """A file a diagnostic names, read only if it is a regular file inside the workspace
    after links are resolved: a `line directive can make a tool name any file."""
    try:
        return workspace.read_confined(name, argument="file").decode(errors="replace").splitlines()
    except InvalidInput:
        return []


def _column_of_quoted(diag: Diagnostic, lines: list[str]) -> int | None:
    """Where no tool gave a column, the construct a message quotes (iverilog's
    '"inside" expressions not supported') still locates it on the line."""
    if diag.line is None or diag.line > len(lines):
        return None
    text = lines[diag.line - 1]
    for word in re.findall(r"[\"'`]([A-Za-z_$][A-Za-z0-9_$]*)[\"']", diag.message):
        found = re.search(rf"(?<![A-Za-z0-9_$]){re.escape(word)}(?![A-Za-z0-9_$])", text)
        if found:
            return found.start() + 1
    return None


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
