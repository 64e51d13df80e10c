"""Spec, clause and table identifiers as users type them, normalised to one form."""

from __future__ import annotations

import re

from silicon_agent.servers.core.workspace import InvalidInput

# clause numbers as printed: 5.2.2.6A, 4.1A, 6.1.3.1a, B.3.1
CLAUSE_NUMBER = r"(?:[A-Z]|\d+[A-Za-z]?)(?:\.\d+[A-Za-z]?)*"
# table ids: 5.1.3-3, 4.1A-1, 6.2.1-1a, 5.2.2.6-A, 5.2.2.6.1-1A-1
TABLE_NUMBER = r"(?:[A-Z]|\d+[A-Za-z]?)(?:\.\d+[A-Za-z]?)*(?:-[0-9A-Za-z]+)+"

# "36.212", "TS 36.212", "3GPP TS 36.212", "TR 38.912"
_3GPP = re.compile(r"^(?:3GPP\s+)?(?:(TS|TR)\s*)?(\d{2})\.(\d{3})(?:-(\d+))?$", re.I)
# ETSI's numbering of 3GPP specs: "TS 136 212" is TS 36.212 (first digit 1 = 3GPP series).
_ETSI_3GPP = re.compile(r"^(?:ETSI\s+)?(TS|TR)\s*1(\d{2})\s?(\d{3})(?:-(\d+))?$", re.I)
_ETSI_OTHER = re.compile(
    r"^(?:ETSI\s+)?(TS|TR|EN|ES|EG|GS|GR)\s*(\d{3})\s?(\d{3})(?:-(\d+))?$", re.I
)
_CLAUSE = re.compile(
    r"^(?:(?:sub-?)?clause\s+|section\s+|§\s*)?([a-z]|\d+[A-Za-z]?)((?:\.\d+[A-Za-z]?)*)$", re.I
)
_ANNEX = re.compile(r"^annex\s+([A-Z])((?:\.\d+[A-Za-z]?)*)$", re.I)
_TABLE = re.compile(rf"^(?:table\s+)?({TABLE_NUMBER})$", re.I)

MAX_ID_LEN = 64


def spec_key(raw: str, *, argument: str = "spec") -> str:
    """The canonical key of a spec: '36.212' for 3GPP specs, 'EN 300 328' for other ETSI ones."""
    text = " ".join(str(raw).split())
    if not text or len(text) > MAX_ID_LEN:
        raise InvalidInput(
            f"{argument}: expected a spec id like '36.212', 'TS 36.212' or 'TS 136 212'",
            argument=argument,
        )
    for pattern in (_3GPP, _ETSI_3GPP):
        match = pattern.match(text)
        if match:
            key = f"{match.group(2)}.{match.group(3)}"
            return f"{key}-{match.group(4)}" if match.group(4) else key
    match = _ETSI_OTHER.match(text)
    if match:
        key = f"{match.group(1).upper()} {match.group(2)} {match.group(3)}"
        return f"{key}-{match.group(4)}" if match.group(4) else key
    raise InvalidInput(
        f"{argument}: '{text[:40]}' is not a spec id",
        argument=argument,
        hint="Use '36.212', 'TS 36.212' (3GPP) or 'TS 136 212' (ETSI); list_specs shows them.",
    )


def display_spec(key: str, kind: str = "TS") -> str:
    """'36.212' -> 'TS 36.212'; ETSI keys already carry their kind."""
    return key if " " in key else f"{kind} {key}"


def clause_id(raw: str, *, argument: str = "clause") -> str:
    text = " ".join(str(raw).split()).rstrip(".")
    if 0 < len(text) <= MAX_ID_LEN:
        match = _ANNEX.match(text) or _CLAUSE.match(text)
        if match:
            head = match.group(1)
            # an annex letter is a capital; a suffix letter keeps its case (6.1.3.1a)
            return (head.upper() if len(head) == 1 else head) + match.group(2)
    raise InvalidInput(
        f"{argument}: '{text[:40]}' is not a clause number",
        argument=argument,
        hint="Use the clause number as printed, e.g. '5.1.3.2.3' or 'A.2'.",
    )


def table_id(raw: str, *, argument: str = "table_id") -> str:
    text = " ".join(str(raw).split()).rstrip(":.")
    if 0 < len(text) <= MAX_ID_LEN:
        match = _TABLE.match(text)
        if match:
            return match.group(1)
    raise InvalidInput(
        f"{argument}: '{text[:40]}' is not a table id",
        argument=argument,
        hint="Use the number in the caption, e.g. '5.1.3-3' or 'Table 5.1.3-3'.",
    )


def parent_clause(clause: str) -> str | None:
    return clause.rsplit(".", 1)[0] if "." in clause else None


def clause_sort_key(clause: str) -> tuple[tuple[int, int | str], ...]:
    parts: list[tuple[int, int | str]] = []
    for part in clause.split("."):
        parts.append((0, int(part)) if part.isdigit() else (1, part))
    return tuple(parts)
