"""Parse what iverilog and Verilator print into diagnostics."""

from __future__ import annotations

import re

from ..models import Category, Diagnostic, Severity
from ..workspace import Workspace
from .categories import HINTS, TOOL_CRASH_PATTERNS, category_for_message, category_for_verilator

# iverilog: "file:line: error: msg", "file:line: syntax error", "file:line: sorry: msg",
# "file:line: warning: msg".
_IVERILOG = re.compile(
    r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):\s*(?:(?P<kind>error|warning|sorry):\s*)?(?P<msg>.*)$"
)
# Verilator: "%Error: f:l:c: msg", "%Warning-CODE: f:l:c: msg", "%Error-CODE: f:l:c: msg".
_VERILATOR = re.compile(
    r"^(?:\[[^\]]*\]\s*)?%(?P<sev>Error|Warning|Fatal)(?:-(?P<code>[A-Z0-9_]+))?:\s*"
    r"(?:(?P<file>[^:\s][^:]*):(?P<line>\d+):(?:(?P<col>\d+):)?\s*)?(?P<msg>.*)$"
)
_NOISE = re.compile(
    r"^(I give up\.|\d+ error\(s\) during elaboration\.|Exiting due to|Cannot continue)"
)


def _workspace_path(workspace: Workspace, raw: str) -> str:
    return workspace.relative(raw) if raw.startswith("/") else raw


def parse_iverilog(workspace: Workspace, text: str) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if not line or _NOISE.match(line):
            continue
        match = _IVERILOG.match(line)
        if TOOL_CRASH_PATTERNS.search(line):
            # "f.sv:2: assert: elab_type.cc:86: failed assertion scope": the line is what
            # triggered the crash, so the user knows what to rewrite.
            found.append(
                Diagnostic(
                    severity=Severity.ERROR,
                    category=Category.TOOL_CRASH,
                    file=_workspace_path(workspace, match["file"]) if match else None,
                    line=int(match["line"]) if match else None,
                    message=f"iverilog crashed: {match['msg'] if match else line}",
                    hint=HINTS[Category.TOOL_CRASH],
                    source="iverilog",
                )
            )
            continue
        if not match:
            continue
        kind = match["kind"] or ("error" if "error" in match["msg"].lower() else None)
        if kind is None:
            continue
        message = match["msg"].strip() or "syntax error"
        if "syntax error" in line and not match["kind"]:
            message = "syntax error"
        if message.startswith("Unable to elaborate"):
            continue  # iverilog's echo of an error already reported on the same line
        category = (
            Category.UNSUPPORTED_CONSTRUCT if kind == "sorry" else category_for_message(message)
        )
        found.append(
            Diagnostic(
                severity=Severity.WARNING if kind == "warning" else Severity.ERROR,
                category=category,
                code="sorry" if kind == "sorry" else None,
                file=_workspace_path(workspace, match["file"]),
                line=int(match["line"]),
                message=message,
                hint=HINTS[category],
                source="iverilog",
            )
        )
    return found


def limitations_as_warnings(found: list[Diagnostic], failed: bool) -> list[Diagnostic]:
    """Icarus's "sorry:" messages are errors only when they alone stopped the build: with a
    build that succeeded, or that failed on other errors, each is a warning of the simulator's
    own limits (`SIMULATOR_LIMITATION`), so one misnamed port reads as one error."""
    sorry = [d.code == "sorry" and d.severity == Severity.ERROR for d in found]
    others = any(d.severity == Severity.ERROR and not s for d, s in zip(found, sorry, strict=True))
    if failed and not others:
        return found
    return [
        d.model_copy(
            update={
                "severity": Severity.WARNING,
                "category": Category.SIMULATOR_LIMITATION,
                "hint": HINTS[Category.SIMULATOR_LIMITATION],
            }
        )
        if s
        else d
        for d, s in zip(found, sorry, strict=True)
    ]


def parse_verilator(workspace: Workspace, text: str) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for raw_line in text.splitlines():
        match = _VERILATOR.match(raw_line.strip())
        if not match:
            continue
        message = match["msg"].strip()
        if _NOISE.match(message) or message.startswith("Exiting due to"):
            continue
        code = match["code"]
        category = category_for_verilator(code, message)
        if "Internal Error" in message:
            category = Category.TOOL_CRASH
        severity = Severity.WARNING if match["sev"] == "Warning" else Severity.ERROR
        found.append(
            Diagnostic(
                severity=severity,
                category=category,
                code=code,
                file=_workspace_path(workspace, match["file"]) if match["file"] else None,
                line=int(match["line"]) if match["line"] else None,
                column=int(match["col"]) if match["col"] else None,
                message=message,
                hint=HINTS[category],
                source="verilator",
            )
        )
    return found
