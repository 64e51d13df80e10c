"""PDF specs (ETSI's format) to blocks with pdfplumber.

The clause tree comes from the PDF's bookmarks; running headers and footers are the margin
lines that repeat on most pages; sub- and superscripts are smaller words above or below a
line's centre and are re-attached as `_x` / `^x`; tables are found by their ruling lines,
take the caption printed above them, and a table continued on the next page is merged.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
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

PageHook = Callable[[int, int], None]  # (pages done, pages total); may raise to cancel


class UnreadablePdf(ValueError):
    """Encrypted, corrupt or not a PDF at all."""


@dataclass
class Line:
    text: str
    top: float
    bottom: float
    x0: float
    size: float
    page: int


@dataclass
class TableItem:
    top: float
    rows: list[list[str]]
    page: int
    caption: tuple[str, str] | None = None
    continued: bool = False


@dataclass
class PageItems:
    number: int
    height: float
    items: list[Line | TableItem] = field(default_factory=list)


_SCRIPT_RATIO = 0.85
_MARGIN_TOP = 0.09
_MARGIN_BOTTOM = 0.07


def _norm(text: str) -> str:
    return " ".join(text.replace("\u2003", " ").replace("\t", " ").split())


def _open(path: Path) -> Any:
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFSyntaxError

    try:
        pdf = pdfplumber.open(str(path))
        _ = pdf.doc.catalog
        return pdf
    except Exception as exc:
        # pdfplumber wraps pdfminer's errors: look through the wrapping for the real one
        causes: list[BaseException] = [exc]
        for item in list(causes):
            causes.extend(a for a in getattr(item, "args", ()) if isinstance(a, BaseException))
            if item.__cause__ is not None:
                causes.append(item.__cause__)
        if any(isinstance(c, (PDFPasswordIncorrect, PDFEncryptionError)) for c in causes):
            raise UnreadablePdf(
                "the PDF is encrypted; save an unprotected copy and ingest that"
            ) from exc
        real = causes[-1]
        if isinstance(real, PDFSyntaxError):
            raise UnreadablePdf(f"not a readable PDF ({real})") from exc
        raise UnreadablePdf(
            f"cannot open the PDF ({type(real).__name__}: {real})".replace(": )", ")")
        ) from exc


def _outline_entries(pdf: Any) -> list[tuple[int, str, str, int | None]]:
    """[(level, clause, title, page index)] from the bookmarks; [] when there are none."""
    from pdfminer.pdftypes import resolve1

    page_index = {page.page_obj.pageid: n for n, page in enumerate(pdf.pages)}
    entries: list[tuple[int, str, str, int | None]] = []
    try:
        outlines = list(pdf.doc.get_outlines())
    except Exception:
        return []
    for level, title, dest, action, _se in outlines:
        heading = split_heading(_norm(title or ""))
        if heading is None:
            continue
        target = dest
        if target is None and action is not None:
            action = resolve1(action)
            if isinstance(action, dict):
                target = action.get("D")
        target = resolve1(target)
        if isinstance(target, (bytes, str)):
            try:
                target = resolve1(pdf.doc.get_dest(target))
            except Exception:
                target = None
        if isinstance(target, dict):
            target = resolve1(target.get("D"))
        page: int | None = None
        if isinstance(target, list) and target:
            ref = target[0]
            objid = getattr(ref, "objid", None)
            page = page_index.get(objid) if objid is not None else None
        entries.append((level, heading[0], heading[1], page))
    return entries


def _body_size(words: list[dict[str, Any]]) -> float | None:
    weights: Counter[float] = Counter()
    for word in words:
        weights[round(float(word["size"]), 1)] += len(word["text"])
    return weights.most_common(1)[0][0] if weights else None


def _inside(word: dict[str, Any], boxes: list[tuple[float, float, float, float]]) -> bool:
    cx = (word["x0"] + word["x1"]) / 2
    cy = (word["top"] + word["bottom"]) / 2
    return any(x0 <= cx <= x1 and top <= cy <= bottom for x0, top, x1, bottom in boxes)


def _script(text: str, mark: str) -> str:
    return mark + (text if re.fullmatch(r"[A-Za-z0-9']+", text) else "{" + text + "}")


def _assemble(words: list[dict[str, Any]], body: float, page: int) -> list[Line]:
    """Words to lines; smaller words above/below a line's centre become its scripts."""
    main = [w for w in words if w["size"] >= body * _SCRIPT_RATIO]
    small = [w for w in words if w["size"] < body * _SCRIPT_RATIO]
    groups: list[dict[str, Any]] = []
    for word in sorted(main, key=lambda w: (w["top"], w["x0"])):
        centre = (word["top"] + word["bottom"]) / 2
        for group in reversed(groups[-3:]):
            if group["top"] <= centre <= group["bottom"]:
                group["words"].append((word, ""))
                group["top"] = min(group["top"], word["top"])
                group["bottom"] = max(group["bottom"], word["bottom"])
                break
        else:
            groups.append({"top": word["top"], "bottom": word["bottom"], "words": [(word, "")]})
    orphans: list[dict[str, Any]] = []
    for word in small:
        centre = (word["top"] + word["bottom"]) / 2
        best = None
        for group in groups:
            height = group["bottom"] - group["top"]
            if group["top"] - 0.35 * height <= centre <= group["bottom"] + 0.35 * height:
                mid = (group["top"] + group["bottom"]) / 2
                if best is None or abs(mid - centre) < best[0]:
                    best = (abs(mid - centre), group, mid, height)
        if best is None:
            orphans.append(word)
            continue
        _, group, mid, height = best
        if centre > mid + 0.12 * height:
            group["words"].append((word, "_"))
        elif centre < mid - 0.12 * height:
            group["words"].append((word, "^"))
        else:
            group["words"].append((word, ""))
    # Small text on its own (running headers, notes) forms plain lines of its own.
    for word in sorted(orphans, key=lambda w: (w["top"], w["x0"])):
        centre = (word["top"] + word["bottom"]) / 2
        for group in groups:
            if group.get("orphan") and group["top"] <= centre <= group["bottom"]:
                group["words"].append((word, ""))
                break
        else:
            groups.append(
                {
                    "top": word["top"],
                    "bottom": word["bottom"],
                    "words": [(word, "")],
                    "orphan": True,
                }
            )
    lines: list[Line] = []
    for group in groups:
        parts: list[str] = []
        previous: dict[str, Any] | None = None
        previous_mark = ""
        for word, mark in sorted(group["words"], key=lambda item: item[0]["x0"]):
            text = word["text"]
            gap = word["x0"] - previous["x1"] if previous is not None else 0.0
            touching = previous is not None and gap < 0.12 * float(word["size"]) + 0.3
            if mark and previous_mark == mark and touching and parts:
                # another piece of the same script run: fold it into the braces
                last = parts.pop()
                inner = last[1:].strip("{}") + text
                parts.append(_script(inner, mark))
            elif mark:
                if parts and not touching:
                    parts.append(" ")
                parts.append(_script(text, mark))
            else:
                if parts and not touching:
                    parts.append(" ")
                parts.append(text)
            previous, previous_mark = word, mark
        sizes = [float(w["size"]) for w, m in group["words"] if not m]
        lines.append(
            Line(
                text="".join(parts).strip(),
                top=group["top"],
                bottom=group["bottom"],
                x0=min(w["x0"] for w, _ in group["words"]),
                size=max(sizes) if sizes else body,
                page=page,
            )
        )
    return sorted(lines, key=lambda ln: ln.top)


def _page_items(page: Any, number: int, body_hint: float | None) -> tuple[PageItems, float | None]:
    items = PageItems(number=number, height=float(page.height))
    # ruling-line detection is the slow part of a page: skip it on pages with no lines at all
    has_rules = bool(page.objects.get("rect") or page.objects.get("line"))
    tables = page.find_tables() if has_rules else []
    boxes = [t.bbox for t in tables]
    words = page.extract_words(extra_attrs=["size"], keep_blank_chars=False, x_tolerance=1.5)
    words = [w for w in words if not _inside(w, boxes)]
    body = _body_size(words) if sum(len(w["text"]) for w in words) > 80 else None
    body = body or body_hint or 10.0
    items.items.extend(_assemble(words, body, number))
    for table in tables:
        rows = [[_norm(cell or "") for cell in row] for row in table.extract()]
        rows = [r for r in rows if any(r)]
        if rows:
            items.items.append(TableItem(top=float(table.bbox[1]), rows=rows, page=number))
    items.items.sort(key=lambda item: item.top)
    return items, body


def _running_lines(pages: list[PageItems]) -> set[str]:
    """Margin lines (digits ignored) that repeat on at least half of the pages."""
    counts: Counter[str] = Counter()
    for page in pages:
        seen = set()
        for item in page.items:
            if isinstance(item, Line) and _in_margin(item, page.height):
                seen.add(re.sub(r"\d+", "#", item.text))
        counts.update(seen)
    floor = max(2, len(pages) // 2)
    return {text for text, n in counts.items() if n >= floor}


def _in_margin(line: Line, height: float) -> bool:
    return line.top < height * _MARGIN_TOP or line.bottom > height * (1 - _MARGIN_BOTTOM)


def read_pdf(path: Path, on_page: PageHook | None = None) -> ParsedDoc:
    pdf = _open(path)
    try:
        total = len(pdf.pages)
        if total == 0:
            raise UnreadablePdf("the PDF has no pages")
        outlines = _outline_entries(pdf)
        pages: list[PageItems] = []
        body: float | None = None
        identity_text: list[str] = []
        for n, page in enumerate(pdf.pages):
            try:
                items, body = _page_items(page, n + 1, body)
            finally:
                page.close()  # drops pdfplumber's per-page caches: memory stays bounded
            pages.append(items)
            if n < 3:
                identity_text.extend(i.text for i in items.items if isinstance(i, Line))
            if on_page is not None:
                on_page(n + 1, total)
    finally:
        pdf.close()
    # no identity: the caller decides (a user-given spec id, or a not-a-spec result)
    spec, kind, version = identify("\n".join(identity_text)) or ("", "", "")
    running = _running_lines(pages) if len(pages) > 1 else set()
    for page in pages:
        page.items = [
            item
            for item in page.items
            if not (
                isinstance(item, Line)
                and _in_margin(item, page.height)
                and re.sub(r"\d+", "#", item.text) in running
            )
        ]
    title = _cover_title(pages)
    blocks = _blocks(pages, outlines, body or 10.0)
    return ParsedDoc(
        spec=spec, kind=kind, version=version, title=title, blocks=blocks, pages=len(pages)
    )


def _cover_title(pages: list[PageItems]) -> str:
    """The cover's 'Technical Specification ...; title (Release n)', joined across lines."""
    lines = [i.text for i in (pages[0].items if pages else []) if isinstance(i, Line)]
    for n, text in enumerate(lines):
        if re.search(r"Technical (Specification|Report)", text):
            parts = [text]
            for more in lines[n + 1 : n + 4]:
                if parts[-1].rstrip().endswith(")"):
                    break
                parts.append(more)
            return _norm(" ".join(parts))
    return ""


def _heading_matcher(
    outlines: list[tuple[int, str, str, int | None]],
) -> dict[int, list[tuple[int, str, str]]]:
    by_page: dict[int, list[tuple[int, str, str]]] = {}
    for level, clause, title, page in outlines:
        if page is not None:
            by_page.setdefault(page + 1, []).append((level, clause, title))
    return by_page


_LIST_ITEM = re.compile(r"^(?:\d+[.)]|[a-z][.)]|[-\u2013\u2022])\s")


def _blocks(
    pages: list[PageItems],
    outlines: list[tuple[int, str, str, int | None]],
    body: float,
) -> list[Block]:
    expected = _heading_matcher(outlines)
    use_fallback = not outlines
    blocks: list[Block] = []
    paragraph: list[Line] = []
    last_table: Block | None = None
    pending_heading: tuple[Block, str] | None = None  # heading whose title may wrap

    def flush() -> None:
        if not paragraph:
            return
        text = ""
        for line in paragraph:
            if not text:
                text = line.text
            elif text.endswith("-") and line.text[:1].islower():
                text += line.text
            else:
                text += " " + line.text
        kind = BlockKind.EQUATION if looks_like_equation(text) else BlockKind.PROSE
        blocks.append(Block(kind=kind, text=text, page=paragraph[0].page))
        paragraph.clear()

    for page in pages:
        waiting = list(expected.get(page.number, []))
        previous: Line | None = None
        first_on_page = True
        for item in page.items:
            if isinstance(item, TableItem):
                flush()
                caption = _caption_before(blocks)
                if (
                    caption is None
                    and last_table is not None
                    and first_on_page
                    and (len(item.rows[0]) == len(last_table.header))
                ):
                    rows = item.rows
                    if rows and rows[0] == last_table.header:
                        rows = rows[1:]
                    last_table.rows.extend(rows)
                else:
                    tid = caption[0] if caption else None
                    text = f"Table {caption[0]}: {caption[1]}" if caption else ""
                    if caption:
                        blocks.pop()  # the caption line becomes the table's title
                    last_table = Block(
                        kind=BlockKind.TABLE,
                        text=text,
                        page=item.page,
                        table_id=tid,
                        header=item.rows[0],
                        rows=item.rows[1:],
                    )
                    blocks.append(last_table)
                previous = None
                first_on_page = False
                continue
            line = item
            norm = _norm(line.text)
            if pending_heading is not None and pending_heading[1] == "" and previous is not None:
                # fallback heading: a same-size line right under it continues the title
                head = pending_heading[0]
                if (
                    abs(line.size - previous.size) < 0.5
                    and line.top - previous.bottom < 0.5 * line.size
                    and _fallback_heading(line, norm, body) is None
                ):
                    head.text = _norm(head.text + " " + norm)
                    previous = line
                    continue
                pending_heading = None
            if pending_heading is not None:
                head, full = pending_heading
                candidate = _norm(head.text + " " + norm)
                if full.startswith(candidate) and len(candidate) <= len(full):
                    head.text = candidate
                    pending_heading = None if candidate == full else (head, full)
                    previous = line
                    continue
                pending_heading = None
            heading = _match_heading(norm, waiting)
            if heading is None and use_fallback:
                heading = _fallback_heading(line, norm, body)
            if heading is not None:
                flush()
                level, clause, title = heading
                if (level, clause, title) in waiting:
                    waiting.remove((level, clause, title))
                shown = norm[len(clause) :].strip() if norm.startswith(clause) else title
                block = Block(
                    kind=BlockKind.HEADING, text=shown, page=line.page, clause=clause, level=level
                )
                blocks.append(block)
                if use_fallback:
                    pending_heading = (block, "")
                elif shown != title and title.startswith(shown):
                    pending_heading = (block, title)
                else:
                    block.text = title
                last_table = None
                previous = line
                first_on_page = False
                continue
            if caption_id(norm) is not None:
                flush()
                blocks.append(Block(kind=BlockKind.PROSE, text=norm, page=line.page))
                previous = line
                first_on_page = False
                continue
            if paragraph and previous is not None:
                gap = line.top - previous.bottom
                new_para = (
                    gap > 0.45 * line.size
                    or abs(line.x0 - paragraph[-1].x0) > 0.8 * line.size
                    and _LIST_ITEM.match(norm) is not None
                    or _LIST_ITEM.match(norm) is not None
                )
                if new_para:
                    flush()
            elif paragraph:
                flush()
            paragraph.append(line)
            previous = line
            first_on_page = False
        flush()
        # a table split over pages continues only if nothing came after it on its page
        if blocks and blocks[-1] is not last_table:
            last_table = None
    flush()
    return blocks


def _caption_before(blocks: list[Block]) -> tuple[str, str] | None:
    if blocks and blocks[-1].kind == BlockKind.PROSE:
        return caption_id(blocks[-1].text)
    return None


def _match_heading(norm: str, waiting: list[tuple[int, str, str]]) -> tuple[int, str, str] | None:
    for level, clause, title in waiting:
        full = f"{clause} {title}"
        if norm == full or (
            norm.startswith(clause + " ") and full.startswith(norm) and len(norm) > len(clause) + 3
        ):
            return level, clause, title
    return None


_FALLBACK_HEADING = re.compile(r"^((?:\d+|[A-Z])(?:\.\d+)*)\s+([A-Z][^.]{1,120})$")


def _fallback_heading(line: Line, norm: str, body: float) -> tuple[int, str, str] | None:
    """Without bookmarks: a larger-than-body line '5.1.3 Turbo coding' (not '1. the bits')."""
    if line.size < body * 1.08:
        return None
    match = _FALLBACK_HEADING.match(norm)
    if not match:
        return None
    clause = match.group(1)
    return clause.count(".") + 1, clause, match.group(2).strip()


def page_count(path: Path) -> int:
    pdf = _open(path)
    try:
        return len(pdf.pages)
    finally:
        pdf.close()
