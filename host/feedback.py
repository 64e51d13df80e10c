"""Turning server verdicts into what the generating roles may see: compact diagnostics with
anything from the hidden verification assets removed, and signatures for stagnation."""

from __future__ import annotations

import hashlib
import re
from typing import Any

HIDDEN = "<hidden verification asset>"


def scrub(text: str, hidden: set[str]) -> str:
    """Any text bound for a generating role, with hidden asset paths taken out."""
    for path in sorted(hidden, key=len, reverse=True):
        text = text.replace(path, HIDDEN)
    return text


def compact_diagnostics(
    result: dict[str, Any], hidden: set[str], limit: int = 12, errors_only: bool = False
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for diag in result.get("diagnostics") or []:
        if errors_only and diag.get("severity") != "error":
            continue
        item = {
            key: diag.get(key)
            for key in (
                "severity",
                "category",
                "code",
                "file",
                "line",
                "message",
                "hint",
                "snippet",
            )
            if diag.get(key) is not None
        }
        if item.get("file") in hidden or any(h in str(item.get("message", "")) for h in hidden):
            # Where a hidden testbench is named, neither its path nor its lines go out.
            item["file"] = HIDDEN
            item.pop("snippet", None)
            message = str(item.get("message", ""))
            for path in hidden:
                message = message.replace(path, HIDDEN)
            item["message"] = message
        out.append(item)
        if len(out) >= limit:
            break
    return out


def has_errors(result: dict[str, Any]) -> bool:
    return any(d.get("severity") == "error" for d in result.get("diagnostics") or [])


def diagnostic_signature(kind: str, diagnostics: list[dict[str, Any]]) -> str:
    """The same diagnostic, whatever line it moved to: category, code and message with the
    numbers taken out."""
    errors = [d for d in diagnostics if d.get("severity") == "error"] or diagnostics
    if not errors:
        return f"{kind}:none"
    first = errors[0]
    message = re.sub(r"\d+", "#", str(first.get("message", "")))
    text = f"{kind}:{first.get('category')}:{first.get('code')}:{message}"
    return hashlib.sha1(text.encode()).hexdigest()[:12] + " " + text[:120]


def mismatch_signature(mismatch: dict[str, Any] | None, count: int | None) -> str:
    mismatch = mismatch or {}
    text = (
        f"simulation:{mismatch.get('signal')}@{mismatch.get('time')}:"
        f"{mismatch.get('expected')}!={mismatch.get('actual')}:{count}"
    )
    return hashlib.sha1(text.encode()).hexdigest()[:12] + " " + text[:120]


def module_header(code: str, top: str) -> str | None:
    """The interface a dependent sees: the module's header, whitespace-normalised."""
    match = re.search(rf"\bmodule\s+{re.escape(top)}\b(.*?\))\s*;", code, re.S)
    if match is None:
        return None
    header = re.sub(r"//[^\n]*", "", match.group(1))
    return " ".join(header.split())
