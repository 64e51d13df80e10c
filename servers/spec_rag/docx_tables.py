"""A Word table as laid out to the table as meant.

Cells are placed on the grid (`w:gridSpan`, `w:gridBefore`); a vertically merged cell
(`w:vMerge`) gives its text to every row it covers. Leading rows marked as headers (`TAH`
cells or `w:tblHeader`) merge into one name per column ('Uplink / PUCCH format'). A row that
is one cell across the whole table (`TAN`, or a merged title row) is a note, not data. A
header that repeats the same columns side by side (36.212 Table 5.1.3-3: i, K, f1, f2 four
times) is a grouped layout: it unfolds into one logical row per entry, group after group.
A cell with several paragraphs keeps them apart, joined by CELL_SEPARATOR.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CELL_SEPARATOR = "\n"
HEADER_SEPARATOR = " / "
_HEADER_STYLES = {"tah"}
_NOTE_STYLES = {"tan"}


@dataclass
class RawCell:
    paragraphs: list[str]
    span: int = 1
    vmerge: str | None = None  # None, "restart" or "continue"
    styles: set[str] = field(default_factory=set)

    @property
    def text(self) -> str:
        return CELL_SEPARATOR.join(p for p in self.paragraphs if p)


@dataclass
class RawRow:
    cells: list[RawCell]
    header: bool = False  # w:tblHeader
    before: int = 0  # w:gridBefore


@dataclass
class LogicalTable:
    header: list[str]
    rows: list[list[str]]
    notes: list[str]
    layout_header: list[list[str]] | None = None  # the original layout, when it differs
    layout_rows: list[list[str]] | None = None


def _place(rows: list[RawRow]) -> tuple[list[list[tuple[int, RawCell] | None]], int]:
    """Each row as grid slots holding (start column, cell); vMerge continuations filled."""
    width = max((r.before + sum(c.span for c in r.cells) for r in rows), default=0)
    grid: list[list[tuple[int, RawCell] | None]] = []
    for row in rows:
        slots: list[tuple[int, RawCell] | None] = [None] * width
        col = row.before
        for cell in row.cells:
            for k in range(col, min(col + cell.span, width)):
                slots[k] = (col, cell)
            col += cell.span
        grid.append(slots)
    for r in range(1, len(grid)):
        for c, slot in enumerate(grid[r]):
            if slot is not None and slot[1].vmerge == "continue" and grid[r - 1][c] is not None:
                above = grid[r - 1][c]
                assert above is not None
                grid[r][c] = (slot[0], RawCell(above[1].paragraphs, above[1].span, "continue"))
    return grid, width


def _is_note(row: RawRow, width: int) -> bool:
    styled = [c for c in row.cells if c.styles]
    if styled and all(c.styles <= _NOTE_STYLES for c in styled):
        return True
    return width > 1 and len(row.cells) == 1 and row.cells[0].span + row.before >= width


def _is_header(row: RawRow) -> bool:
    if row.header:
        return True
    texts = [c for c in row.cells if c.text]
    return bool(texts) and all(c.styles and c.styles <= _HEADER_STYLES for c in texts)


def _text(slot: tuple[int, RawCell] | None) -> str:
    return slot[1].text if slot is not None else ""


def logical_table(rows: list[RawRow]) -> LogicalTable:
    grid, width = _place(rows)
    notes: list[str] = []
    kept: list[int] = []
    for i, row in enumerate(rows):
        if _is_note(row, width):
            text = " ".join(c.text for c in row.cells if c.text)
            if text:
                notes.append(text)
        else:
            kept.append(i)
    if not kept:
        return LogicalTable(header=[], rows=[], notes=notes)
    n_head = 0
    while n_head < len(kept) - 1 and _is_header(rows[kept[n_head]]):
        n_head += 1
    n_head = max(n_head, 1)
    # a grid column that never starts a cell only widens another one: not a column of its own
    columns = [
        c
        for c in range(width)
        if any(grid[i][c] is not None and grid[i][c][0] == c for i in kept)  # type: ignore[index]
    ]
    header_rows = [[_text(grid[i][c]) for c in columns] for i in kept[:n_head]]
    header: list[str] = []
    for c in range(len(columns)):
        names: list[str] = []
        for hrow in header_rows:
            if hrow[c] and (not names or names[-1] != hrow[c]):
                names.append(hrow[c])
        header.append(HEADER_SEPARATOR.join(n.replace(CELL_SEPARATOR, " ") for n in names))
    body = [[_text(grid[i][c]) for c in columns] for i in kept[n_head:]]
    body = [r for r in body if any(r)]
    period = _group_period(header)
    if period is None:
        return LogicalTable(
            header=header,
            rows=body,
            notes=notes,
            layout_header=header_rows if n_head > 1 else None,
        )
    unfolded: list[list[str]] = []
    for g in range(len(header) // period):
        for row in body:
            part = row[g * period : (g + 1) * period]
            if any(part):
                unfolded.append(part)
    return LogicalTable(
        header=header[:period],
        rows=unfolded,
        notes=notes,
        layout_header=header_rows,
        layout_rows=body,
    )


def _group_period(header: list[str]) -> int | None:
    """The width of one group when the header repeats the same names side by side."""
    n = len(header)
    for period in range(2, n // 2 + 1):
        if n % period:
            continue
        first = header[:period]
        if not any(first):
            continue
        if all(header[k] == first[k % period] for k in range(n)):
            return period
    return None
