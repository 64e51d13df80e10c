"""References in spec text, and the citing spec's reference list that says where they point.

Forms found in 3GPP text: "clause 5.1.1" and "Table 5.1.3-3" (this spec); "TS 36.331 [5],
clause 6.3.6", "clause 6.3.6 of TS 36.331" and "clause 6.3.6 of [5]" (another spec, a
clause in it); "[5]" or "TS 36.331 [5]" alone (another spec as a whole). "[n]" means entry
n of the citing spec's clause 2, an `EX` paragraph "[n]<tab>3GPP TS x: title".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .ids import CLAUSE_NUMBER, TABLE_NUMBER

_SPEC = r"(?:3GPP\s+)?(?:TS|TR)\s+\d{2}\.\d{3}(?:-\d+)?"
_WORD = r"(?:[Ss]ub-?clause|[Cc]lause|[Ss]ection|[Ss]ee)s?"
_NUM = rf"({CLAUSE_NUMBER})(?![-\w])"
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # clause 6.3.6 of TS 36.331 [5]  /  clause 6.3.6 in [5]
    (
        "clause_of",
        re.compile(rf"\b{_WORD}\s+{_NUM}\s+(?:of|in)\s+(?:({_SPEC})\s*(\[\d+\])?|(\[\d+\]))"),
    ),
    # TS 36.331 [5], clause 6.3.6  /  TS 36.331 clause 6.3.6  /  [5], clause 6.3.6
    (
        "spec_clause",
        re.compile(rf"(?:({_SPEC})\s*(\[\d+\])?|(\[\d+\]))\s*,?\s*{_WORD}\s+{_NUM}"),
    ),
    (
        "table",
        re.compile(
            rf"\bTable\s+({TABLE_NUMBER})(?:\s+(?:of|in)\s+(?:({_SPEC})\s*(\[\d+\])?|(\[\d+\])))?"
        ),
    ),
    ("clause", re.compile(rf"\b{_WORD}\s+{_NUM}")),
    # TS 36.331 [5]  /  [5]
    ("document", re.compile(rf"(?:({_SPEC})\s*)?(\[\d+\])")),
]
_ENTRY = re.compile(r"^\[(\d+)\]\s+(.*)$")
_ENTRY_SPEC = re.compile(r"((?:3GPP|ETSI)?\s*(?:TS|TR)\s+\d{2}\.\d{3}(?:-\d+)?)")
_VERSION = re.compile(r"\bV(\d+\.\d+\.\d+)|\((Release \d+)\)")


@dataclass(frozen=True)
class Mention:
    kind: str  # clause | table | document
    target: str  # clause or table number; "" for a document
    text: str  # the words as written
    spec: str | None  # "TS 36.331" when written
    label: str | None  # "[5]" when written


@dataclass(frozen=True)
class ListEntry:
    label: str  # "[5]"
    spec: str | None  # "3GPP TS 36.331", None for a non-spec document
    version: str | None
    text: str


def find_references(text: str) -> list[Mention]:
    """Every reference in order of appearance. The forms are tried in order and a later one
    never takes text an earlier one matched: "clause 6.3.1 of TS 36.211, clause 5.3 of [2]"
    is two references, not "TS 36.211, clause 5.3"."""
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, Mention]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < e and s < end for s, e in taken):
                continue
            groups = match.groups()
            if kind == "spec_clause":
                mention = Mention(
                    "clause", groups[3], match.group(0), groups[0], groups[1] or groups[2]
                )
            elif kind == "clause_of":
                mention = Mention(
                    "clause", groups[0], match.group(0), groups[1], groups[2] or groups[3]
                )
            elif kind == "table":
                mention = Mention(
                    "table", groups[0], match.group(0), groups[1], groups[2] or groups[3]
                )
            elif kind == "clause":
                mention = Mention("clause", groups[0], match.group(0), None, None)
            else:
                mention = Mention("document", "", match.group(0), groups[0], groups[1])
            taken.append((start, end))
            found.append((start, mention))
    return [m for _, m in sorted(found, key=lambda item: item[0])]


def reference_list(body: str) -> dict[str, ListEntry]:
    """Clause 2's entries by label: '[5]' -> 3GPP TS 36.331, its version if given."""
    entries: dict[str, ListEntry] = {}
    for line in body.splitlines():
        match = _ENTRY.match(line.strip())
        if not match:
            continue
        label, rest = f"[{match.group(1)}]", match.group(2)
        spec = _ENTRY_SPEC.search(rest)
        version = _VERSION.search(rest)
        entries[label] = ListEntry(
            label=label,
            spec=" ".join(spec.group(1).split()) if spec else None,
            version=(version.group(1) or version.group(2)) if version else None,
            text=rest,
        )
    return entries
