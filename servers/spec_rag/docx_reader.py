"""DOCX specs (3GPP's format, often inside a zip) to blocks with python-docx.

Heading styles give the clause tree; 'TH' paragraphs (or 'Table x-y:' text) caption the
native table after them; 'EQ' paragraphs are formulas; runs set as sub/superscript come back
as `_x` / `^x`. DOCX has no page layout, so blocks carry no page number.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from typing import Any

from .document import (
    Block,
    BlockKind,
    ParsedDoc,
    caption_id,
    identify,
    looks_like_equation,
    split_heading,
)

MAX_MEMBER_BYTES = 300 * 1024 * 1024
_HEADING_STYLE = re.compile(r"^heading\s*(\d)$", re.I)


class UnreadableDocx(ValueError):
    """Corrupt DOCX, or a zip without a .docx inside."""


def _norm(text: str) -> str:
    return " ".join(text.replace("\u2003", " ").replace("\t", " ").split())


def _script(text: str, mark: str) -> str:
    return mark + (text if re.fullmatch(r"[A-Za-z0-9']+", text) else "{" + text + "}")


def _paragraph_text(paragraph: Any) -> str:
    from docx.text.hyperlink import Hyperlink

    parts: list[str] = []
    runs: list[Any] = []
    for inner in paragraph.iter_inner_content():
        runs.extend(inner.runs if isinstance(inner, Hyperlink) else [inner])
    pending: tuple[str, str] | None = None  # a script run being collected
    for run in runs:
        text = run.text
        if not text:
            continue
        mark = "_" if run.font.subscript else "^" if run.font.superscript else ""
        if pending is not None and pending[0] == mark:
            pending = (mark, pending[1] + text)
            continue
        if pending is not None:
            parts.append(_script(pending[1], pending[0]))
            pending = None
        if mark:
            pending = (mark, text)
        else:
            parts.append(text)
    if pending is not None:
        parts.append(_script(pending[1], pending[0]))
    return "".join(parts)


def _load(path: Path) -> Any:
    import docx

    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
                if "word/document.xml" in names:
                    return docx.Document(str(path))
                inner = [n for n in names if n.lower().endswith(".docx")]
                if not inner:
                    raise UnreadableDocx(
                        "the zip holds no .docx (3GPP zips hold one; .doc is not supported: "
                        "save it as .docx)"
                    )
                info = archive.getinfo(inner[0])
                if info.file_size > MAX_MEMBER_BYTES:
                    raise UnreadableDocx(f"{inner[0]} is larger than {MAX_MEMBER_BYTES} bytes")
                return docx.Document(io.BytesIO(archive.read(info)))
        raise UnreadableDocx("not a DOCX (a DOCX is a zip archive)")
    except UnreadableDocx:
        raise
    except Exception as exc:
        raise UnreadableDocx(f"cannot read the DOCX ({type(exc).__name__}: {exc})") from exc


def read_docx(path: Path) -> ParsedDoc:
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    document = _load(path)
    blocks: list[Block] = []
    front: list[str] = []
    for section in document.sections:
        for paragraph in section.header.paragraphs:
            front.append(paragraph.text)
    seen_heading = False
    for inner in document.iter_inner_content():
        if isinstance(inner, Table):
            rows = _table_rows(inner)
            if not rows:
                continue
            caption = None
            if blocks and blocks[-1].kind == BlockKind.PROSE:
                caption = caption_id(blocks[-1].text)
            if caption is not None:
                blocks.pop()
            blocks.append(
                Block(
                    kind=BlockKind.TABLE,
                    text=f"Table {caption[0]}: {caption[1]}" if caption else "",
                    table_id=caption[0] if caption else None,
                    header=rows[0],
                    rows=rows[1:],
                )
            )
            continue
        assert isinstance(inner, Paragraph)
        style = (inner.style.name if inner.style is not None else "") or ""
        text = _norm(_paragraph_text(inner))
        if not text:
            continue
        if not seen_heading:
            front.append(text)
        level_match = _HEADING_STYLE.match(style)
        heading = split_heading(text) if level_match else None
        if heading is not None and level_match is not None:
            seen_heading = True
            blocks.append(
                Block(
                    kind=BlockKind.HEADING,
                    text=heading[1],
                    clause=heading[0],
                    level=int(level_match.group(1)),
                )
            )
        elif style == "EQ" or looks_like_equation(text):
            blocks.append(Block(kind=BlockKind.EQUATION, text=text))
        else:
            blocks.append(Block(kind=BlockKind.PROSE, text=text))
    identity = identify("\n".join(front)) or identify(document.core_properties.title or "")
    spec, kind, version = identity or ("", "", "")
    title = next((t for t in front if "Technical Specification" in t), "")
    return ParsedDoc(spec=spec, kind=kind, version=version, title=title, blocks=blocks)


def _table_rows(table: Any) -> list[list[str]]:
    rows: list[list[str]] = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            # a merged cell is returned once per grid column it spans
            if previous is not None and cell._tc is previous:
                continue
            previous = cell._tc
            cells.append(_norm("\n".join(_paragraph_text(p) for p in cell.paragraphs)))
        if any(cells):
            rows.append(cells)
    return rows
