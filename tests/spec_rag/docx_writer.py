"""A generated DOCX built the way real 3GPP specs are (see shared notes on their structure).

Written as raw WordprocessingML, because the structures that matter are ones python-docx
cannot make: numbers split by `w:smartTag`, fields with cached results, text boxes, OMML,
an `Equation.3` OLE object with its `.wmf` preview, `.wmf` equation pictures (with and
without text records), captions without a colon and bare ids, a grouped table, a two-row
merged header with a `TAN` note row, `B1`-`B5` procedure levels, `H6`, an annex, a
change-history table and a reference list cited as "[n]". The text is written for this
project. `SPEC` is its identity; `write_real_docx` writes it.
"""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

SPEC = "36.306"
VERSION = "18.0.0"
IDENTITY = f"3GPP TS {SPEC} V{VERSION} (2024-03)"
TITLE = (
    "Evolved Universal Terrestrial Radio Access (E-UTRA); User Equipment radio access capabilities"
)

NS = (
    'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
    'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math" '
    'xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
)
STYLES = {
    **{f"Heading{n}": f"heading {n}" for n in range(1, 10)},
    **{s: s for s in ("H6", "TH", "TF", "EQ", "EX", "NO", "TAH", "TAC", "TAL", "TAN")},
    **{s: s for s in ("ZA", "ZT", "TT", "B1", "B2", "B3", "B4", "B5", "FP")},
    "TOC1": "toc 1",
}


def wmf(runs: list[tuple[int, int, int, str]]) -> bytes:
    """A placeable WMF whose text records are (x, y, font height, text), as equation editors
    draw them; no runs gives a picture without text."""
    records = b""
    if runs:
        font = struct.pack("<hhhhhBBBBBBBB", -runs[0][2], 0, 0, 0, 400, 0, 0, 0, 0, 0, 0, 0, 0)
        font += b"Times New Roman\x00"
        font += b"\x00" * (len(font) % 2)
        records += struct.pack("<IH", 3 + len(font) // 2, 0x02FB) + font
        records += struct.pack("<IHH", 4, 0x012D, 0)
        for x, y, _, text in runs:
            raw = text.encode("cp1252")
            raw += b"\x00" * (len(raw) % 2)
            body = struct.pack("<hhhH", y, x, len(text), 0) + raw
            records += struct.pack("<IH", 3 + len(body) // 2, 0x0A32) + body
    records += struct.pack("<IH", 3, 0)
    header = struct.pack("<HHHIHIH", 1, 9, 0x0300, (18 + len(records)) // 2, 1, 64, 0)
    placeable = b"\xd7\xcd\xc6\x9a" + b"\x00" * 18
    return placeable + header + records


def _run(text: str, script: str = "") -> str:
    props = f'<w:rPr><w:vertAlign w:val="{script}"/></w:rPr>' if script else ""
    return f'<w:r>{props}<w:t xml:space="preserve">{escape(text)}</w:t></w:r>'


def _tab() -> str:
    return "<w:r><w:tab/></w:r>"


def _p(style: str, *content: str) -> str:
    props = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f"<w:p>{props}{''.join(content)}</w:p>"


def _text(style: str, text: str) -> str:
    return _p(style, *(_run(part) if part != "\t" else _tab() for part in _split_tabs(text)))


def _split_tabs(text: str) -> list[str]:
    out: list[str] = []
    for i, part in enumerate(text.split("\t")):
        if i:
            out.append("\t")
        if part:
            out.append(part)
    return out


def _heading(level: int | str, number: str, title: str) -> str:
    style = level if isinstance(level, str) else f"Heading{level}"
    return _p(
        style, '<w:bookmarkStart w:id="0" w:name="_Toc1"/>', _run(number), _tab(), _run(title)
    )


def _smart(text: str) -> str:
    tag = '<w:smartTag w:uri="urn:schemas-microsoft-com:office:smarttags" w:element="chsdate">'
    return f"{tag}{_run(text)}</w:smartTag>"


def _cell(style: str, *paragraphs: str, span: int = 1, vmerge: str | None = None) -> str:
    props = ""
    if span > 1:
        props += f'<w:gridSpan w:val="{span}"/>'
    if vmerge == "restart":
        props += '<w:vMerge w:val="restart"/>'
    elif vmerge == "continue":
        props += "<w:vMerge/>"
    body = "".join(p if p.startswith("<w:p>") else _text(style, p) for p in paragraphs) or _p(style)
    return f"<w:tc><w:tcPr>{props}</w:tcPr>{body}</w:tc>"


def _table(columns: int, rows: list[list[str]]) -> str:
    grid = "".join('<w:gridCol w:w="1000"/>' for _ in range(columns))
    body = "".join(f"<w:tr>{''.join(cells)}</w:tr>" for cells in rows)
    return f"<w:tbl><w:tblPr/><w:tblGrid>{grid}</w:tblGrid>{body}</w:tbl>"


def _omml() -> str:
    """N_symb^UL = ⌈K / 8⌉ + M_sc in OMML."""

    def r(text: str) -> str:
        return f"<m:r><m:t>{escape(text)}</m:t></m:r>"

    ssubsup = f"<m:sSubSup><m:e>{r('N')}</m:e><m:sub>{r('symb')}</m:sub>"
    ssubsup += f"<m:sup>{r('UL')}</m:sup></m:sSubSup>"
    frac = f"<m:f><m:num>{r('K')}</m:num><m:den>{r('8')}</m:den></m:f>"
    ceil = '<m:d><m:dPr><m:begChr m:val="⌈"/><m:endChr m:val="⌉"/></m:dPr>'
    ceil += f"<m:e>{frac}</m:e></m:d>"
    ssub = f"<m:sSub><m:e>{r('M')}</m:e><m:sub>{r('sc')}</m:sub></m:sSub>"
    return f"<m:oMathPara><m:oMath>{ssubsup}{r('=')}{ceil}{r('+')}{ssub}</m:oMath></m:oMathPara>"


def _picture(rid: str) -> str:
    return f'<w:r><w:pict><v:shape><v:imagedata r:id="{rid}" o:title=""/></v:shape></w:pict></w:r>'


def _ole(preview: str, rid: str) -> str:
    return (
        f'<w:r><w:object><v:shape o:ole=""><v:imagedata r:id="{preview}" o:title=""/></v:shape>'
        f'<o:OLEObject Type="Embed" ProgID="Equation.3" r:id="{rid}"/></w:object></w:r>'
    )


def _field(instruction: str, result: str) -> str:
    return (
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
        f'<w:r><w:instrText xml:space="preserve"> {instruction} </w:instrText></w:r>'
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
        f"{_run(result)}"
        '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
    )


def _textbox(text: str) -> str:
    return (
        "<w:r><w:pict><v:shape><v:textbox><w:txbxContent>"
        f"{_text('', text)}</w:txbxContent></v:textbox></v:shape></w:pict></w:r>"
    )


def _filler(count: int) -> list[str]:
    """Numbered padding clauses with prose, a list and a table each: a large spec."""
    words = "subframe symbol codeword layer antenna carrier resource grant bit offset".split()
    out = [_heading(1, "9", "Additional procedures")]
    for n in range(1, count + 1):
        pick = [words[(n * 7 + k) % len(words)] for k in range(6)]
        sentence = (
            f"The {pick[0]} {pick[1]} of procedure {n} is derived from the {pick[2]} and "
            f"the {pick[3]} {pick[4]} of the {pick[5]}. "
        )
        out += [
            _heading(2, f"9.{n}", f"Procedure {n} for {pick[0]} handling"),
            _text("", sentence * 12),
            _text("B1", f"1>\tif the {pick[1]} is configured:"),
            _text("B2", f"2>\tapply the {pick[2]} of procedure {n}."),
            _text("TH", f"Table 9.{n}-1: Values of procedure {n}"),
            _table(
                3,
                [[_cell("TAH", h) for h in ("Index", "Value", "Unit")]]
                + [
                    [_cell("TAC", str(i)), _cell("TAC", str(n * i)), _cell("TAC", pick[i % 6])]
                    for i in range(12)
                ],
            ),
        ]
    return out


def _nested() -> list[str]:
    """A clause family built like 36.212 5.1.4: the parent's text names what its sub-clauses
    define, so a question on a sub-clause finds the parent too."""
    return [
        _heading(2, "4.4", "Rate matching"),
        _text("", "Rate matching is defined per coded block for the wallaby coded channels."),
        _heading(3, "4.4.1", "Rate matching for wallaby coded channels"),
        _text(
            "",
            "The rate matching for wallaby coded channels consists of interleaving the three "
            "wallaby bit streams with the sub-block interleaver, followed by the collection of "
            "bits and the generation of a circular buffer. The sub-block interleaver of the "
            "wallaby coded channels is defined in clause 4.4.1.1, the sub-block interleaver of "
            "the kangaroo stream in clause 4.4.1.1A, and the bit collection in clause 4.4.1.2.",
        ),
        _heading(4, "4.4.1.1", "Sub-block interleaver"),
        _text(
            "",
            "The bits input to the block interleaver are written row by row into a matrix of "
            "32 columns and read out column by column after the inter-column permutation.",
        ),
        _text("TH", "Table 4.4.1.1-1: Inter-column permutation pattern"),
        _table(
            2,
            [[_cell("TAH", "Number of columns"), _cell("TAH", "Permutation pattern")]]
            + [[_cell("TAC", "32"), _cell("TAC", "0, 16, 8, 24, 4, 20, 12, 28")]],
        ),
        _heading(4, "4.4.1.1A", "Sub-block interleaver for the kangaroo stream"),
        _text("", "The kangaroo stream is interleaved with an offset of one column."),
        _heading(4, "4.4.1.2", "Bit collection, selection and transmission"),
        _text(
            "",
            "The circular buffer of length Kw is generated from the interleaved streams and "
            "the soft buffer size Ncb of the code block limits the bits read from it.",
        ),
    ]


def _body(spec: str = SPEC, filler: int = 0, nested: bool = False) -> str:
    out: list[str] = [
        _text("ZA", f"3GPP TS {spec} V{VERSION} (2024-03)"),
        _p("ZT", _run("3"), _run("rd", "superscript"), _run(" Generation Partnership Project;")),
        _text("ZT", "Technical Specification Group Radio Access Network;"),
        _text("ZT", "Evolved Universal Terrestrial Radio Access (E-UTRA);"),
        _text("ZT", "User Equipment radio access capabilities"),
        _text("ZT", "(Release 18)"),
        _text("FP", "No part may be reproduced except as authorized by written permission."),
        _text("TT", "Contents"),
        _p("TOC1", _run("4.1A\tUE downlink categories"), _field("PAGEREF _Toc1 \\h", "12")),
        _text("Heading1", "Foreword"),
        _text("", "This Technical Specification has been produced by the generated test corpus."),
        _heading(1, "1", "Scope"),
        _text("", "The present document defines the radio access capabilities of the UE."),
        _heading(1, "2", "References"),
        _text("EX", '[1]\t3GPP TR 21.905: "Vocabulary for 3GPP Specifications".'),
        _text("EX", '[2]\t3GPP TS 36.211: "Physical channels and modulation".'),
        _text(
            "EX",
            '[3]\t3GPP TS 36.331 V18.1.0: "Radio Resource Control (RRC); Protocol specification".',
        ),
        _heading(1, "4", "UE radio access capability parameters"),
        _text(
            "",
            "The scrambling of the physical downlink shared channel follows TS 36.211 [2], "
            "clause 6.3.1, and the modulation mapper follows clause 7.1 of [2]. The capability "
            "signalling is defined in TS 36.331 [3], clause 6.3.6. Terms are defined in [1].",
        ),
        _heading(2, "4.1", "UE categories"),
        _p(
            "",
            _run("The categories are listed in "),
            _field("REF _Ref1 \\h", "Table 4.1-1"),
            _run(" and the peak rates in clause 4.1A."),
        ),
        _text("TH", "Table 4.1-1: UE category overview"),
        _table(
            2,
            [
                [_cell("TAH", "UE category"), _cell("TAH", "Release")],
                [_cell("TAC", "Category 1"), _cell("TAC", "8")],
                [_cell("TAC", "Category M1"), _cell("TAC", "13")],
            ],
        ),
        _heading(2, "4.1A", "UE downlink categories"),
        _text("", "The quokka soft buffer of each downlink category is given below."),
        _text(
            "TH",
            "Table 4.1A-1 Downlink physical layer parameter values set by the field ue-Category",
        ),
        _table(
            5,
            [
                [
                    _cell("TAH", "UE DL Category", vmerge="restart"),
                    _cell("TAH", "Maximum bits per TTI", span=2),
                    _cell("TAH", "Soft channel bits", vmerge="restart"),
                    _cell("TAH", "Layers", vmerge="restart"),
                ],
                [
                    _cell("TAH", vmerge="continue"),
                    _cell("TAH", "DL-SCH total"),
                    _cell("TAH", "per transport block"),
                    _cell("TAH", vmerge="continue"),
                    _cell("TAH", vmerge="continue"),
                ],
                [
                    _cell("TAC", "DL Category 1"),
                    _cell("TAC", "10296"),
                    _cell("TAC", "10296"),
                    _cell("TAC", "250368"),
                    _cell("TAC", "1"),
                ],
                [
                    _cell("TAC", "DL Category 4"),
                    _cell("TAC", "150752"),
                    _cell("TAC", "75376"),
                    _cell("TAC", "1827072"),
                    _cell("TAC", "2", "4"),
                ],
                [
                    _cell(
                        "TAN",
                        "NOTE 1:\tIn carrier aggregation the values apply per cell group.",
                        span=5,
                    )
                ],
            ],
        ),
        _text("NO", "NOTE 2:\tThe wombat rate is the sum over all serving cells."),
        _heading(2, "4.1B", "UE uplink categories"),
        _text("TH", "Table 4.1B-1"),
        _table(
            2,
            [
                [_cell("TAH", "UE UL Category"), _cell("TAH", "Maximum bits per TTI")],
                [_cell("TAC", "UL Category 3"), _cell("TAC", "51024")],
            ],
        ),
        _heading(2, "4.2", "Interleaver groups"),
        _text("", "The numbat interleaver parameters are listed in Table 4.2-1a."),
        _text("TH", "Table 4.2-1a: Numbat interleaver sizes"),
        _table(
            6,
            [[_cell("TAH", h) for h in ("i", "K", "i", "K", "i", "K")]]
            + [
                [_cell("TAC", str(v)) for g in range(3) for v in (g * 3 + n, 40 + 8 * (g * 3 + n))]
                for n in range(1, 4)
            ],
        ),
        _heading(2, "4.3", "Coding of capability fields"),
        _p("EQ", _tab(), _omml()),
        _p(
            "",
            _run("where the platypus length "),
            _picture("rIdWmf1"),
            _run(" is the number of resource blocks and "),
            _ole("rIdWmf2", "rIdOle1"),
            _run(" the number of subcarriers."),
        ),
        _p("EQ", _tab(), _picture("rIdWmf3")),
        _p("", _run("The echidna diagram follows."), _textbox("Echidna state diagram label")),
        _heading(3, "4.3.7", "Fields carried in smartTags"),
        # a heading number split by a smartTag, as in 36.212 6.1.3.7
        _p("Heading3", _smart("4.3"), _run(".8"), _tab(), _run("Split number clause")),
        _text("", "The axolotl field sits in a clause whose number is split by a smart tag."),
        _p("Heading4", _smart("4.3.8.1"), _run("a"), _tab(), _run("Lower case suffix clause")),
        _text("", "The kakapo indicator is coded with one bit."),
        _text("TH", "Table 4.3.8.1a-1: Kakapo report fields"),
        _table(
            3,
            [
                # a header cell that is an equation picture, as in 36.212 Table 5.1.3-3
                [
                    _cell("TAH", "Field"),
                    _cell("TAH", "Bits"),
                    _cell("TAH", _p("TAH", _picture("rIdWmf1"))),
                ],
                [
                    _cell("TAL", _p("TAL", _smart("Wideband"), _run(" CQI"))),
                    _cell("TAC", "4"),
                    _cell("TAC", "6"),
                ],
            ],
        ),
        _heading(4, "4.3.8.1.1", "Procedure"),
        _text("B1", "1>\tif the tuatara timer is running:"),
        _text("B2", "2>\tif the report is periodic:"),
        _text("B3", "3>\tstart the report;"),
        _text("B4", "4>\tset the counter to zero;"),
        _text("B5", "5>\tincrement the kiwi counter;"),
        _text("B1", "1>\telse:"),
        _text("B2", "2>\tstop the report."),
        _heading("H6", "4.3.8.1.1.1", "Level six clause"),
        _text("", "The quoll parameter of level six is given in Table 4.1A-1."),
        *(_nested() if nested else []),
        *(_filler(filler) if filler else []),
        _p(
            "Heading8", _run("Annex A (informative):"), "<w:r><w:br/></w:r>", _run("Change history")
        ),
        _heading(1, "A.1", "Annex sub-clause"),
        _text("", "The dugong annex text lives in A.1."),
        _table(
            3,
            [
                [_cell("TAH", "Change history", span=3)],
                [_cell("TAH", "Date"), _cell("TAH", "CR"), _cell("TAH", "New version")],
                [_cell("TAC", "2024-03"), _cell("TAC", "0001"), _cell("TAC", "18.0.0")],
            ],
        ),
    ]
    return "".join(out)


def _styles() -> str:
    body = "".join(
        f'<w:style w:type="paragraph" w:styleId="{sid}"><w:name w:val="{name}"/></w:style>'
        for sid, name in STYLES.items()
    )
    return f'<?xml version="1.0"?><w:styles {NS}>{body}</w:styles>'


def write_real_docx(
    path: Path,
    *,
    extra_member: tuple[str, int] | None = None,
    spec: str = SPEC,
    filler: int = 0,
    nested: bool = False,
) -> Path:
    """The generated spec; `extra_member` adds a referenced part (name, size) of zero bytes;
    `spec` and `filler` make other and larger specs of the same build; `nested` adds a clause
    family whose parent's text names what its sub-clauses define (4.4, as 36.212 5.1.4)."""
    rels = {
        "rIdStyles": ("styles", "styles.xml"),
        "rIdWmf1": ("image", "media/image1.wmf"),
        "rIdWmf2": ("image", "media/image2.wmf"),
        "rIdWmf3": ("image", "media/image3.wmf"),
        "rIdOle1": ("oleObject", "embeddings/oleObject1.bin"),
    }
    if extra_member is not None:  # referenced, so a reader that loads every part reads it
        rels["rIdBig"] = ("image", extra_member[0].removeprefix("word/"))
    rel_xml = "".join(
        f'<Relationship Id="{rid}" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        f'relationships/{kind}" Target="{target}"/>'
        for rid, (kind, target) in rels.items()
    )
    pkg = "http://schemas.openxmlformats.org/package/2006/relationships"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
            'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats'
            '-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
            '<Default Extension="wmf" ContentType="image/x-wmf"/><Default Extension="bin" '
            'ContentType="application/vnd.openxmlformats-officedocument.oleObject"/><Override '
            'PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
            'officedocument.wordprocessingml.document.main+xml"/>'
            '<Override PartName="/word/styles.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles'
            '+xml"/></Types>',
        )
        archive.writestr(
            "_rels/.rels",
            f'<?xml version="1.0"?><Relationships xmlns="{pkg}"><Relationship Id="rId1" '
            'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
            'officeDocument" Target="word/document.xml"/></Relationships>',
        )
        archive.writestr(
            "word/_rels/document.xml.rels",
            f'<?xml version="1.0"?><Relationships xmlns="{pkg}">{rel_xml}</Relationships>',
        )
        archive.writestr("word/styles.xml", _styles())
        archive.writestr(
            "word/document.xml",
            f'<?xml version="1.0"?><w:document {NS}><w:body>{_body(spec, filler, nested)}'
            + (_p("", _picture("rIdBig")) if extra_member is not None else "")
            + "</w:body></w:document>",
        )
        # N_RB^DL as an equation editor draws it: base, then the raised and lowered runs
        archive.writestr(
            "word/media/image1.wmf",
            wmf([(0, 200, 240, "N"), (160, 110, 140, "DL"), (160, 260, 140, "RB")]),
        )
        archive.writestr(
            "word/media/image2.wmf",
            wmf([(0, 200, 240, "N"), (160, 260, 140, "sc"), (160, 110, 140, "RB")]),
        )
        archive.writestr("word/media/image3.wmf", wmf([]))  # outlines only: no text
        archive.writestr("word/embeddings/oleObject1.bin", b"\xd0\xcf\x11\xe0" + b"\x00" * 60)
        if extra_member is not None:
            name, size = extra_member
            with archive.open(name, "w", force_zip64=True) as member:
                block = b"\x00" * (1 << 20)
                for _ in range(size >> 20):
                    member.write(block)
    return path


# (question, spec, clause that answers it, what it targets: letter | table | formula | prose)
QUESTIONS: list[tuple[str, str, str, str]] = [
    ("quokka soft buffer of the downlink categories", SPEC, "4.1A", "letter"),
    ("UE downlink categories", SPEC, "4.1A", "letter"),
    ("UE uplink categories maximum bits per TTI", SPEC, "4.1B", "letter"),
    ("axolotl field", SPEC, "4.3.8", "letter"),
    ("kakapo indicator coded with one bit", SPEC, "4.3.8.1a", "letter"),
    ("lower case suffix clause", SPEC, "4.3.8.1a", "letter"),
    ("split number clause", SPEC, "4.3.8", "letter"),
    ("soft channel bits of DL Category 4", SPEC, "4.1A", "table"),
    ("UL Category 3 maximum bits 51024", SPEC, "4.1B", "table"),
    ("Table 4.1A-1", SPEC, "4.1A", "table"),
    ("Table 4.2-1a numbat interleaver sizes", SPEC, "4.2", "table"),
    ("numbat interleaver size K for index 7", SPEC, "4.2", "table"),
    ("release of UE Category M1", SPEC, "4.1", "table"),
    ("Wideband CQI bits in the kakapo report", SPEC, "4.3.8.1a", "table"),
    ("Table 4.3.8.1a-1", SPEC, "4.3.8.1a", "table"),
    ("maximum bits per transport block per TTI", SPEC, "4.1A", "table"),
    ("in carrier aggregation the values apply per cell group", SPEC, "4.1A", "table"),
    ("wombat rate summed over all serving cells", SPEC, "4.1A", "table"),
    ("change history CR 0001 new version", SPEC, "A.1", "table"),
    ("N_symb^UL equals the ceiling of K over 8 plus M_sc", SPEC, "4.3", "formula"),
    ("platypus length N_RB^DL", SPEC, "4.3", "formula"),
    ("number of subcarriers N_sc^RB", SPEC, "4.3", "formula"),
    ("formula for the number of uplink symbols N_symb^UL", SPEC, "4.3", "formula"),
    ("procedure while the tuatara timer is running", SPEC, "4.3.8.1.1", "prose"),
    ("increment the kiwi counter", SPEC, "4.3.8.1.1", "prose"),
    ("quoll parameter of level six", SPEC, "4.3.8.1.1.1", "prose"),
    ("dugong annex text", SPEC, "A.1", "prose"),
    ("echidna state diagram label", SPEC, "4.3", "prose"),
    ("radio access capabilities of the UE scope", SPEC, "1", "prose"),
]
