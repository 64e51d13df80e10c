"""What a reader makes of one spec file: identity plus an ordered stream of blocks."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

from .ids import CLAUSE_NUMBER, TABLE_NUMBER, spec_key


class BlockKind(StrEnum):
    HEADING = "heading"
    PROSE = "prose"
    EQUATION = "equation"
    TABLE = "table"


@dataclass
class Block:
    kind: BlockKind
    text: str
    page: int | None = None
    # headings
    clause: str | None = None
    level: int = 0
    # tables
    table_id: str | None = None
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    layout_header: list[list[str]] | None = None  # the table as laid out, when it differs
    layout_rows: list[list[str]] | None = None
    # prose: list level (B1 = 1 ... B5 = 5), kept as indentation
    indent: int = 0


@dataclass
class ParsedDoc:
    spec: str  # canonical key, e.g. "36.212"
    kind: str  # TS / TR / EN ...
    version: str
    title: str
    blocks: list[Block]
    pages: int | None = None
    formulas_extracted: int = 0  # formulas read as text
    formulas_marked: int = 0  # formulas left as a visible marker only


# "3GPP TS 36.212 V15.6.0 (2019-06)" or "ETSI TS 136 212 V15.6.0 (2019-07)"
_IDENTITY = re.compile(
    r"(?:3GPP|ETSI)\s+(TS|TR|EN|ES|EG|GS|GR)\s+(\d{2}\.\d{3}|\d{3}\s?\d{3})(?:-(\d+))?"
    r"\s+V(\d+\.\d+\.\d+)"
)
_HEADING = re.compile(rf"^\s*((?:Annex\s+)?{CLAUSE_NUMBER})\.?[\s\t]+(\S.*)$")
# "Table 5.1.3-3: title", "Table 5.1.4-1 title" (no colon), "Table 4.1-1" (bare id)
_CAPTION = re.compile(rf"^\s*Table\s+({TABLE_NUMBER})(?:\s*[:.]\s*|\s+|$)(.*)$")


def identify(text: str) -> tuple[str, str, str] | None:
    """(spec key, kind, version) from front-matter or running-header text."""
    match = _IDENTITY.search(text)
    if not match:
        return None
    kind, number, part, version = match.groups()
    raw = f"{kind} {number}" + (f"-{part}" if part else "")
    return spec_key(raw), kind.upper(), version


def split_heading(text: str) -> tuple[str, str] | None:
    """'5.1.3\tTurbo coding' -> ('5.1.3', 'Turbo coding'); 'Annex A (normative): X' -> 'A'."""
    match = _HEADING.match(text)
    if not match:
        return None
    number, title = match.group(1), match.group(2).strip()
    if number.lower().startswith("annex"):
        number = number.split()[-1]
        title = title.lstrip("(").split(":", 1)[-1].strip() if ":" in title else title
    return number, title


def caption_id(text: str) -> tuple[str, str] | None:
    match = _CAPTION.match(text)
    return (match.group(1), match.group(2).strip()) if match else None


_MATH_WORDS = {"mod", "floor", "ceil", "max", "min", "log", "exp", "for", "and"}
_EQ_SYMBOLS = re.compile(r"[=+·×∑Σ⋅^_()\[\]≤≥<>/]|mod\b|floor|ceil")


def looks_like_equation(text: str) -> bool:
    """A short line dominated by symbols and an '=' sign (the way 3GPP sets displayed formulas)."""
    stripped = text.strip()
    if "=" not in stripped or len(stripped) > 240:
        return False
    words = [w for w in re.findall(r"(?<![\w^_])[a-z]{3,}\b", stripped) if w not in _MATH_WORDS]
    symbols = len(_EQ_SYMBOLS.findall(stripped))
    return symbols >= 2 and len(words) <= 1
