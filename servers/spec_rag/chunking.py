"""Blocks to the stored units: clauses (exact text), tables (rows) and search chunks.

Chunks are 384-512 tokens with overlap, carry their clause path
('TS 36.212 > 5 > 5.1 > 5.1.3 > 5.1.3.2.3 Turbo code internal interleaver') and a content
type: prose windows keep their formulas inline; each formula is also its own 'equation' chunk
with the sentence that introduces it; tables are 'table' chunks of whole rows with the header
repeated.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from .document import Block, BlockKind, ParsedDoc
from .docx_tables import CELL_SEPARATOR
from .ids import display_spec

MAX_TOKENS = 512
MIN_TOKENS = 384
OVERLAP_TOKENS = 64
_TOKEN = re.compile(r"\w+|[^\w\s]")
_INTRODUCES = re.compile(r"(:|\b(?:to|by|as|follows|is|are|form|defined))\s*$")
_NAMES = re.compile(r"^(?:where|with|and)\b|\babove\b", re.I)
INDENT = "  "
_SENTENCE = re.compile(r"(?<=[.;:])\s+(?=[A-Z(\[])")


def count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


@dataclass
class ClauseRec:
    clause: str
    title: str
    level: int
    seq: int
    page: int | None
    path: str
    body: str = ""


@dataclass
class TableRec:
    table_id: str
    caption: str
    clause: str
    page: int | None
    header: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    layout: dict[str, list[list[str]]] | None = None  # {"header": rows, "rows": rows} as laid out


@dataclass
class ChunkRec:
    clause: str
    title: str
    path: str
    content_type: str  # prose | equation | table
    page: int | None
    text: str


@dataclass
class SpecContent:
    doc: ParsedDoc
    clauses: list[ClauseRec] = field(default_factory=list)
    tables: list[TableRec] = field(default_factory=list)
    chunks: list[ChunkRec] = field(default_factory=list)


def _line(cells: list[str]) -> str:
    # a cell's paragraphs stay apart: "1; 2", never "12"
    return " | ".join(c.replace(CELL_SEPARATOR, "; ") for c in cells)


def render_table(
    caption: str, header: list[str], rows: list[list[str]], notes: list[str] | None = None
) -> str:
    lines = [caption] if caption else []
    lines.append(_line(header))
    lines.extend(_line(row) for row in rows)
    lines.extend(notes or [])
    return "\n".join(lines)


def block_text(block: Block) -> str:
    """A prose block as stored: list items indented by their level."""
    return INDENT * block.indent + block.text if block.indent else block.text


def build(doc: ParsedDoc) -> SpecContent:
    content = SpecContent(doc=doc)
    spec_name = display_spec(doc.spec, doc.kind)
    titles: dict[str, str] = {}
    current: ClauseRec | None = None
    sections: list[tuple[ClauseRec, list[Block]]] = []
    for block in doc.blocks:
        if block.kind == BlockKind.HEADING and block.clause:
            if block.clause in titles:
                continue  # a clause printed twice (e.g. repeated in a change history)
            titles[block.clause] = block.text
            current = ClauseRec(
                clause=block.clause,
                title=block.text,
                level=block.level,
                seq=len(content.clauses),
                page=block.page,
                path=_path(spec_name, block.clause, block.text),
            )
            content.clauses.append(current)
            sections.append((current, []))
        elif current is not None:
            sections[-1][1].append(block)
        # blocks before the first heading are the cover page: not quotable clause text
    unnamed = 0
    for clause, blocks in sections:
        parts: list[str] = []
        for block in blocks:
            if block.kind == BlockKind.TABLE:
                tid = block.table_id
                if tid is None:
                    unnamed += 1
                    tid = f"{clause.clause}-untitled-{unnamed}"
                caption = block.text or f"Table (no caption) in clause {clause.clause}"
                layout = None
                if block.layout_header is not None:
                    layout = {"header": block.layout_header, "rows": block.layout_rows or []}
                content.tables.append(
                    TableRec(
                        tid,
                        caption,
                        clause.clause,
                        block.page,
                        block.header,
                        block.rows,
                        block.notes,
                        layout,
                    )
                )
                parts.append(render_table(caption, block.header, block.rows, block.notes))
            else:
                # consecutive list items stay on consecutive lines
                joined = bool(parts) and block.indent > 0 and parts[-1].startswith(INDENT)
                text = block_text(block)
                parts.append(f"{parts.pop()}\n{text}" if joined else text)
        clause.body = "\n\n".join(parts)
        content.chunks.extend(_chunks(clause, blocks))
    for table in content.tables:
        clause = next(c for c in content.clauses if c.clause == table.clause)
        content.chunks.extend(_table_chunks(clause, table))
    return content


def _path(spec_name: str, clause: str, title: str) -> str:
    parts = clause.split(".")
    ancestors = [".".join(parts[: i + 1]) for i in range(len(parts) - 1)]
    return " > ".join([spec_name, *ancestors, f"{clause} {title}"])


def _chunks(clause: ClauseRec, blocks: list[Block]) -> list[ChunkRec]:
    out: list[ChunkRec] = []
    texts = [b for b in blocks if b.kind != BlockKind.TABLE]
    if not texts:
        # an empty heading still answers "what is clause X called"
        return [
            ChunkRec(
                clause.clause,
                clause.title,
                clause.path,
                "prose",
                clause.page,
                f"{clause.clause} {clause.title}",
            )
        ]
    units: list[tuple[str, int | None]] = []
    previous = 0
    for block in texts:
        for n, piece in enumerate(_split_long(block.text)):
            # a list item starts its own line, indented by its level (and so does the block
            # after a list); other blocks run on, as a paragraph split by a page does
            lead = ""
            if units and n == 0 and (block.indent or previous):
                lead = "\n" + INDENT * block.indent
            units.append((lead + piece, block.page))
        previous = block.indent
    for window_text, page in _windows(units):
        out.append(ChunkRec(clause.clause, clause.title, clause.path, "prose", page, window_text))
    for i, block in enumerate(blocks):
        if block.kind != BlockKind.EQUATION:
            continue
        # The sentence that introduces the formula ("... according to:") and the one that
        # names it ("where x is ...", "The polynomial above is ...") belong with it.
        prior = blocks[i - 1] if i > 0 else None
        after = blocks[i + 1] if i + 1 < len(blocks) else None
        context = [block.text]
        if prior is not None and prior.kind == BlockKind.PROSE and _INTRODUCES.search(prior.text):
            context.insert(0, _tail(prior.text, 300))
        if after is not None and after.kind == BlockKind.PROSE and _NAMES.search(after.text):
            context.append(_head(after.text, 300))
        out.append(
            ChunkRec(
                clause.clause,
                clause.title,
                clause.path,
                "equation",
                block.page,
                "\n".join(t for t in context if t),
            )
        )
    return out


def _split_long(text: str) -> list[str]:
    """Sentences, and a sentence longer than a chunk in word slices."""
    pieces: list[str] = []
    for sentence in _SENTENCE.split(text):
        words = sentence.split()
        if count_tokens(sentence) <= MAX_TOKENS // 2:
            pieces.append(sentence)
            continue
        step = 150
        for start in range(0, len(words), step):
            pieces.append(" ".join(words[start : start + step]))
    return pieces


def _windows(units: list[tuple[str, int | None]]) -> list[tuple[str, int | None]]:
    """Windows of MIN..MAX tokens (the last may be shorter), each starting with the last
    OVERLAP tokens of the one before."""
    windows: list[tuple[str, int | None]] = []
    current: list[tuple[str, int | None]] = []
    size = 0
    fresh = False  # does `current` hold more than the carried overlap?
    queue = deque(units)
    while queue:
        text, page = queue.popleft()
        n = count_tokens(text)
        if fresh and size + n > MAX_TOKENS:
            if size < MIN_TOKENS:
                # fill this window up to MAX with the head of the sentence
                head, rest = _split_at(text, MAX_TOKENS - size)
                if head:
                    current.append((head, page))
                if rest:
                    queue.appendleft((rest, page))
            else:
                queue.appendleft((text, page))
            joined = _joined(current)
            windows.append((joined, current[0][1]))
            overlap = _tail_tokens(joined, OVERLAP_TOKENS)
            current, size, fresh = [(overlap, current[-1][1])], count_tokens(overlap), False
            continue
        current.append((text, page))
        size += n
        fresh = True
    if fresh:
        windows.append((_joined(current), current[0][1]))
    return windows


def _joined(units: list[tuple[str, int | None]]) -> str:
    return " ".join(t for t, _ in units).replace(" \n", "\n").strip("\n")


def _split_at(text: str, budget: int) -> tuple[str, str]:
    words = text.split()
    used = 0
    for k, word in enumerate(words):
        used += count_tokens(word)
        if used > budget:
            return " ".join(words[:k]), " ".join(words[k:])
    return text, ""


def _tail_tokens(text: str, limit: int) -> str:
    words = text.split()
    used = 0
    for k in range(len(words) - 1, -1, -1):
        used += count_tokens(words[k])
        if used > limit:
            return " ".join(words[k + 1 :])
    return text


def _table_chunks(clause: ClauseRec, table: TableRec) -> list[ChunkRec]:
    out: list[ChunkRec] = []
    head = _line(table.header)
    budget = MAX_TOKENS - count_tokens(table.caption) - count_tokens(head) - 8
    rows: list[str] = []
    size = 0
    for row in table.rows:
        line = _line(row)
        n = count_tokens(line)
        if rows and size + n > budget:
            out.append(_table_chunk(clause, table, head, rows))
            rows, size = [], 0
        rows.append(line)
        size += n
    if table.notes:
        rows.extend(table.notes)
    if rows or not out:
        out.append(_table_chunk(clause, table, head, rows))
    return out


def _table_chunk(clause: ClauseRec, table: TableRec, head: str, rows: list[str]) -> ChunkRec:
    text = "\n".join([table.caption, head, *rows])
    return ChunkRec(clause.clause, clause.title, clause.path, "table", table.page, text)


def _tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else "..." + text[-limit:]


def _head(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
