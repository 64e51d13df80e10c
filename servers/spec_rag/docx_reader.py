"""DOCX specs (3GPP's format, often inside a zip) to blocks, read from the WordprocessingML.

The body is streamed paragraph by paragraph (memory stays bounded by one top-level element).
Every run of text counts: runs inside `w:smartTag`, hyperlinks, inserted text, simple fields
and the cached results of complex fields, and the paragraphs of text boxes. Formulas become
text: OMML through `omml`, Equation/MathType objects and `.wmf` equation pictures through
the text records of their picture (`wmf_text`); a formula with no text left is a visible
marker, never silence. Heading styles (`heading 1`-`9`, `H6`) give the clause tree with the
number as printed (`5.2.2.6A`, `B.3.1`), `heading 8`/`9` the annexes; a `TH` paragraph
right before a table is its caption; `B1`-`B5` list levels become indentation; the title
comes from the cover's `ZT` lines. DOCX has no page layout, so blocks carry no page number.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from lxml import etree

from .document import Block, BlockKind, ParsedDoc, caption_id, identify, split_heading
from .docx_package import DocxPackage, UnreadableDocx, open_docx
from .docx_tables import RawCell, RawRow, logical_table
from .omml import omml_text
from .wmf_text import SYMBOL_FONT, wmf_text

__all__ = ["UnreadableDocx", "read_docx", "read_docx_handle"]

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
V = "{urn:schemas-microsoft-com:vml}"
OFFICE = "{urn:schemas-microsoft-com:office:office}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
PR = "{http://schemas.openxmlformats.org/package/2006/relationships}"

_HEADING_STYLE = re.compile(r"^(?:heading\s*(\d)|h(6))$", re.I)
_LIST_STYLE = re.compile(r"^b([1-9])$", re.I)
_SKIP_STYLES = re.compile(r"^(?:toc\s*\d|tt)$", re.I)
_COVER_STYLES = {"za", "zb", "zt", "zu", "zv", "zh", "fp"}
_CONTAINERS = {
    W + n
    for n in ("smartTag", "hyperlink", "ins", "fldSimple", "customXml", "sdt", "sdtContent")
    + ("dir", "bdo", "moveTo")
}
_BOILERPLATE = re.compile(
    r"^(?:3\^?rd Generation Partnership Project|Technical Specification Group|Technical "
    r"(?:Specification|Report)$|\(Release \d+\)$)",
    re.I,
)
WMF_MARKER = "[formula: wmf, not extracted]"
OLE_MARKER = "[formula: ole, not extracted]"
INDENT = "  "


@dataclass
class _Counts:
    extracted: int = 0
    marked: int = 0


@dataclass
class _Para:
    style: str
    text: str
    has_formula: bool = False
    plain: str = ""  # the text outside formulas
    pieces: list[tuple[str, str]] = field(default_factory=list)


class _Reader:
    def __init__(self, package: DocxPackage):
        self.package = package
        self.styles = self._styles()
        self.rels = self._rels()
        self.counts = _Counts()
        self._wmf: dict[str, str | None] = {}

    def _styles(self) -> dict[str, str]:
        if not self.package.has("word/styles.xml"):
            return {}
        root = etree.fromstring(self.package.read("word/styles.xml"))
        names: dict[str, str] = {}
        for style in root.iter(W + "style"):
            name = style.find(W + "name")
            sid = style.get(W + "styleId") or ""
            names[sid] = (name.get(W + "val") if name is not None else None) or sid
        return names

    def _rels(self) -> dict[str, str]:
        name = "word/_rels/document.xml.rels"
        if not self.package.has(name):
            return {}
        root = etree.fromstring(self.package.read(name))
        rels: dict[str, str] = {}
        for rel in root.iter(PR + "Relationship"):
            target = rel.get("Target") or ""
            if rel.get("TargetMode") != "External":
                rels[rel.get("Id") or ""] = "word/" + target.lstrip("/").removeprefix("word/")
        return rels

    # ---- text -------------------------------------------------------------------------

    def paragraph(self, p: Any) -> _Para:
        style_el = p.find(f"{W}pPr/{W}pStyle")
        sid = style_el.get(W + "val") if style_el is not None else ""
        para = _Para(style=self.styles.get(sid or "", sid or "") or "", text="")
        self._inline(p, para)
        para.text = _join(para.pieces)
        return para

    def _inline(self, element: Any, para: _Para) -> None:
        for child in element:
            tag = child.tag
            if tag == W + "r":
                self._run(child, para)
            elif tag in _CONTAINERS:
                self._inline(child, para)
            elif tag in (M + "oMath", M + "oMathPara"):
                self._formula(para, omml_text(child), None)
            elif tag == MC + "AlternateContent":
                self._inline(_alternative(child), para)

    def _run(self, run: Any, para: _Para) -> None:
        align = run.find(f"{W}rPr/{W}vertAlign")
        value = align.get(W + "val") if align is not None else None
        mark = "_" if value == "subscript" else "^" if value == "superscript" else ""
        for child in run:
            tag = child.tag
            if tag == W + "t":
                para.pieces.append((mark, child.text or ""))
                para.plain += child.text or ""
            elif tag in (W + "tab", W + "ptab"):
                para.pieces.append(("", "\t"))
            elif tag in (W + "br", W + "cr"):
                para.pieces.append(("", "\n"))
            elif tag == W + "noBreakHyphen":
                para.pieces.append((mark, "-"))
            elif tag == W + "sym":
                para.pieces.append((mark, _sym(child)))
            elif tag == W + "object":
                self._object(child, para)
            elif tag == W + "pict":
                self._picture(child, para)
            elif tag in (W + "drawing", MC + "AlternateContent"):
                self._text_boxes(child, para)

    def _object(self, obj: Any, para: _Para) -> None:
        ole = obj.find(f".//{OFFICE}OLEObject")
        prog = (ole.get("ProgID") if ole is not None else "") or ""
        if not re.match(r"(?:Equation|MathType)", prog, re.I):
            return  # a drawing (Visio) or another embedded document: not text
        image = obj.find(f".//{V}imagedata")
        text = self._wmf_text(image.get(R + "id")) if image is not None else None
        self._formula(para, text, OLE_MARKER)

    def _picture(self, pict: Any, para: _Para) -> None:
        self._text_boxes(pict, para)
        image = pict.find(f".//{V}imagedata")
        if image is None:
            return
        target = self.rels.get(image.get(R + "id") or "", "")
        if target.lower().endswith(".wmf"):  # 3GPP's equation pictures
            self._formula(para, self._wmf_text(image.get(R + "id")), WMF_MARKER)

    def _text_boxes(self, element: Any, para: _Para) -> None:
        for box in element.iter(W + "txbxContent"):
            if _inside_fallback(box, element):
                continue  # the same box again, for readers without DrawingML
            for p in box.iter(W + "p"):
                text = _norm(self.paragraph(p).text)
                if text:
                    para.pieces.append(("", f" {text} "))

    def _wmf_text(self, rid: str | None) -> str | None:
        target = self.rels.get(rid or "")
        if not target or not target.lower().endswith(".wmf") or not self.package.has(target):
            return None
        if target not in self._wmf:
            self._wmf[target] = wmf_text(self.package.read(target))
        return self._wmf[target]

    def _formula(self, para: _Para, text: str | None, marker: str | None) -> None:
        para.has_formula = True
        if text:
            self.counts.extracted += 1
            para.pieces.append(("", f" {text} "))  # never glued to the words around it
        else:
            self.counts.marked += 1
            para.pieces.append(("", f" {marker or WMF_MARKER} "))

    # ---- tables -----------------------------------------------------------------------

    def table(self, tbl: Any) -> list[RawRow]:
        rows: list[RawRow] = []
        for tr in tbl.iterchildren(W + "tr"):
            props = tr.find(W + "trPr")
            before = props.find(W + "gridBefore") if props is not None else None
            row = RawRow(
                cells=[],
                header=props is not None and props.find(W + "tblHeader") is not None,
                before=int(before.get(W + "val") or 0) if before is not None else 0,
            )
            for tc in tr.iterchildren(W + "tc"):
                span = tc.find(f"{W}tcPr/{W}gridSpan")
                merge = tc.find(f"{W}tcPr/{W}vMerge")
                paragraphs: list[str] = []
                styles: set[str] = set()
                for p in tc.iter(W + "p"):
                    para = self.paragraph(p)
                    text = _norm(para.text)
                    if text:
                        paragraphs.append(text)
                        styles.add(para.style.lower())
                row.cells.append(
                    RawCell(
                        paragraphs=paragraphs,
                        span=int(span.get(W + "val") or 1) if span is not None else 1,
                        vmerge=None
                        if merge is None
                        else ("restart" if merge.get(W + "val") == "restart" else "continue"),
                        styles=styles,
                    )
                )
            rows.append(row)
        return rows


def _alternative(content: Any) -> Any:
    for name in ("Choice", "Fallback"):
        found = content.find(MC + name)
        if found is not None:
            return found
    return content


def _inside_fallback(node: Any, stop: Any) -> bool:
    parent = node.getparent()
    while parent is not None and parent is not stop:
        if parent.tag == MC + "Fallback":
            return True
        parent = parent.getparent()
    return False


def _sym(sym: Any) -> str:
    code = int(sym.get(W + "char") or "0", 16)
    char = chr(code - 0xF000 if code >= 0xF000 else code)
    if (sym.get(W + "font") or "").lower() == "symbol":
        return SYMBOL_FONT.get(char, char)
    return char


def _script(mark: str, text: str) -> str:
    return mark + (text if re.fullmatch(r"[A-Za-z0-9']+", text) else "{" + text + "}")


def _join(pieces: list[tuple[str, str]]) -> str:
    """Adjacent runs of one script style form one script: N, RB (sub), DL (sup) -> N_RB^DL."""
    out: list[str] = []
    pending: tuple[str, str] | None = None
    for mark, text in pieces:
        if not text:
            continue
        if pending is not None and pending[0] == mark:
            pending = (mark, pending[1] + text)
            continue
        if pending is not None:
            out.append(_script(*pending) if pending[1].strip() else pending[1])
            pending = None
        if mark:
            pending = (mark, text)
        else:
            out.append(text)
    if pending is not None:
        out.append(_script(*pending) if pending[1].strip() else pending[1])
    return "".join(out)


def _norm(text: str) -> str:
    return " ".join(text.replace("\u2003", " ").split())


def _heading(text: str, annex: bool) -> tuple[str, str, int] | None:
    """(clause number, title, level) of a heading paragraph, or None if it has no number."""
    raw = text.strip()
    if annex or raw.lower().startswith("annex"):
        found = re.match(r"^Annex\s+([A-Z])\b[^:\t\n]*:?\s*(.*)$", _norm(raw), re.S)
        if found:
            return found.group(1), found.group(2).strip(), 1
    split = split_heading(_norm(raw.replace("\t", " ").replace("\n", " ")))
    if split is None:
        return None
    number, title = split
    return number, title, number.count(".") + 1


def read_docx(path: Path) -> ParsedDoc:
    with path.open("rb") as handle:
        return read_docx_handle(handle)


def read_docx_handle(handle: IO[bytes]) -> ParsedDoc:
    package = open_docx(handle)
    reader = _Reader(package)
    blocks: list[Block] = []
    front: list[str] = []
    titles: list[str] = []
    for name in sorted(n for n in package.names() if re.match(r"word/header\d*\.xml$", n)):
        root = etree.fromstring(package.read(name))
        front.append("".join(t.text or "" for t in root.iter(W + "t")))
    caption: tuple[str, str] | None = None
    notes_of: Block | None = None  # the table whose footnotes may follow
    try:
        events = etree.iterparse(
            io.BytesIO(package.read("word/document.xml")),
            events=("end",),
            tag=(W + "p", W + "tbl"),  # the C parser skips every other element
            huge_tree=True,
        )
        for _, element in events:
            parent = element.getparent()
            if parent is None or parent.tag != W + "body":
                continue
            if element.tag == W + "tbl":
                raw = reader.table(element)
                table = logical_table(raw)
                if table.header or table.rows:
                    block = Block(
                        kind=BlockKind.TABLE,
                        text=f"Table {caption[0]}: {caption[1]}".rstrip(": ") if caption else "",
                        table_id=caption[0] if caption else None,
                        header=table.header,
                        rows=table.rows,
                        notes=table.notes,
                        layout_header=table.layout_header,
                        layout_rows=table.layout_rows,
                    )
                    if caption is not None and blocks and blocks[-1].kind == BlockKind.PROSE:
                        blocks.pop()  # the caption paragraph is the table's own text now
                    blocks.append(block)
                    notes_of = block
                caption = None
            elif element.tag == W + "p":
                para = reader.paragraph(element)
                style = para.style.lower()
                text = _norm(para.text)
                if style in _COVER_STYLES:
                    front.append(text)
                    if style == "zt" and text and not _BOILERPLATE.match(text):
                        titles.append(text)
                elif text and not _SKIP_STYLES.match(style):
                    block = _paragraph_block(para, style, text)
                    if block is not None:
                        blocks.append(block)
                    if style == "no" and notes_of is not None:
                        notes_of.notes.append(text)  # a table's footnote
                    else:
                        notes_of = None
                    found = caption_id(text)
                    caption = found if found and (style == "th" or ":" in text) else None
            element.clear()  # keep one top-level element in memory at a time
    except etree.XMLSyntaxError as exc:
        raise UnreadableDocx(f"word/document.xml is not well-formed XML ({exc})") from exc
    if not any(b.kind == BlockKind.HEADING for b in blocks):
        front.extend(b.text for b in blocks[:40])
    identity = identify("\n".join(front))
    spec, kind, version = identity or ("", "", "")
    return ParsedDoc(
        spec=spec,
        kind=kind,
        version=version,
        title=" ".join(titles),
        blocks=blocks,
        formulas_extracted=reader.counts.extracted,
        formulas_marked=reader.counts.marked,
    )


def _paragraph_block(para: _Para, style: str, text: str) -> Block | None:
    level_match = _HEADING_STYLE.match(style)
    if level_match is not None:
        level = int(level_match.group(1) or level_match.group(2))
        heading = _heading(para.text, annex=level >= 8)
        if heading is not None:
            return Block(
                kind=BlockKind.HEADING, text=heading[1], clause=heading[0], level=heading[2]
            )
    if style == "eq":
        return Block(kind=BlockKind.EQUATION, text=text)
    list_match = _LIST_STYLE.match(style)
    indent = int(list_match.group(1)) if list_match else 0
    if para.has_formula and len(re.sub(r"[\s,.;:()]", "", para.plain)) == 0:
        return Block(kind=BlockKind.EQUATION, text=text, indent=indent)
    return Block(kind=BlockKind.PROSE, text=text, indent=indent)
