"""Turning server verdicts into what the generating roles may see: compact diagnostics with
anything from the hidden verification assets removed, and signatures for stagnation."""

from __future__ import annotations

import hashlib
import re
from typing import Any

HIDDEN = "<hidden verification asset>"
STATE_FOLDER = "/.silicon-agent/"  # the servers' own folder (the trace monitor, caches)


# A path in the servers' own folder (the trace monitor's hashed file, caches), and a message
# located in a hidden file ("<file>:14: port ... is not a port of dut").
STATE_PATH = re.compile(r"[^\s:'\"`]*\.silicon-agent/[^\s:'\"`]*")
LOCATED = re.compile(re.escape(HIDDEN) + r"(?::\d+)*: [^;\n]*")


def scrub(text: str, hidden: set[str]) -> str:
    """Any text bound for a generating role, with hidden asset paths taken out, and the
    message of a diagnostic located in a hidden file with them."""
    for path in sorted(hidden, key=len, reverse=True):
        text = text.replace(path, HIDDEN)
    text = STATE_PATH.sub(HIDDEN, text)
    return LOCATED.sub(f"{HIDDEN}: a diagnostic of the hidden harness (not shown)", text)


def compact_diagnostics(
    result: dict[str, Any], hidden: set[str], limit: int = 12, errors_only: bool = False
) -> list[dict[str, Any]]:
    """The diagnostics a generating role may see. One located in a hidden file (a hidden
    asset, or the suite's own folder where the trace monitor lives), or naming one, is never
    shown, neither its snippet nor its message: they are counted in one closing item that says
    the hidden harness reported them."""
    out: list[dict[str, Any]] = []
    withheld: list[str] = []
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
        if in_hidden_file(item, hidden):
            withheld.append(str(item.get("severity", "error")))
            continue
        if len(out) < limit:
            out.append(item)
    if withheld:
        out.append(
            {
                "severity": "error" if "error" in withheld else withheld[0],
                "file": HIDDEN,
                "message": f"the hidden harness reported {len(withheld)} diagnostic(s) in "
                "files the run hides (not shown)",
            }
        )
    return out


def in_hidden_file(item: dict[str, Any], hidden: set[str]) -> bool:
    file = str(item.get("file") or "")
    if file in hidden or file == HIDDEN or STATE_FOLDER in f"/{file}":
        return True
    text = f"{item.get('message', '')} {item.get('snippet', '')}"
    return any(h in text for h in hidden) or HIDDEN in text


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
