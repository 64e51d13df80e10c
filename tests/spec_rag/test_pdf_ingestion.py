"""The PDF reader on generated 3GPP-layout PDFs: clause tree, tables, scripts, pages."""

from __future__ import annotations

import re
from pathlib import Path

import pdfplumber
import pytest

from silicon_agent.refmodels.qpp_table import QPP_TABLE
from silicon_agent.servers.spec_rag.chunking import (
    MAX_TOKENS,
    MIN_TOKENS,
    SpecContent,
    build,
    count_tokens,
)
from silicon_agent.servers.spec_rag.pdf_reader import read_pdf
from tests.spec_rag.corpus import SPEC_36211, SPEC_36212, expected_clauses, plain


@pytest.fixture(scope="module")
def c212(corpus: dict[str, Path]) -> SpecContent:
    return build(read_pdf(corpus["36212.pdf"]))


@pytest.fixture(scope="module")
def c211(corpus: dict[str, Path]) -> SpecContent:
    return build(read_pdf(corpus["36211.pdf"]))


def _clause(content: SpecContent, number: str):  # type: ignore[no-untyped-def]
    return next(c for c in content.clauses if c.clause == number)


def test_identity_from_the_document(c212: SpecContent, c211: SpecContent) -> None:
    assert (c212.doc.spec, c212.doc.kind, c212.doc.version) == ("36.212", "TS", "15.6.0")
    assert (c211.doc.spec, c211.doc.version) == ("36.211", "15.5.0")


@pytest.mark.parametrize("name", ["36212.pdf", "36212-nobookmarks.pdf"])
def test_clause_tree_matches_the_bookmarks_and_headings(corpus: dict[str, Path], name: str):
    content = build(read_pdf(corpus[name]))
    got = [(c.clause, c.title) for c in content.clauses]
    assert got == expected_clauses(SPEC_36212)
    # the numbered list item "1. the bits ..." stays text of clause 5.1.2, not a heading
    assert "1" not in [c.clause for c in content.clauses if c.title.startswith("the bits")]
    assert "1. the bits b_0, ..., b_{B-1} are split" in _clause(content, "5.1.2").body


def test_clause_paths_and_levels(c212: SpecContent) -> None:
    clause = _clause(c212, "5.1.3.2.3")
    assert (
        clause.path
        == "TS 36.212 > 5 > 5.1 > 5.1.3 > 5.1.3.2 > 5.1.3.2.3 Turbo code internal interleaver"
    )
    assert clause.level == 5
    assert _clause(c212, "5.1.4.2").title.endswith("and control information")  # wrapped title


def test_running_headers_and_footers_are_stripped(c212: SpecContent) -> None:
    for clause in c212.clauses:
        assert "Release 15" not in clause.body
        assert "V15.6.0 (2019-06)" not in clause.body
        assert not re.search(r"(^|\n)3GPP($|\n)", clause.body)
    for chunk in c212.chunks:
        assert "V15.6.0 (2019-06)" not in chunk.text


def test_sub_and_superscripts_are_reattached(c212: SpecContent, c211: SpecContent) -> None:
    assert "N_RB^DL downlink bandwidth configuration" in _clause(c212, "3.2").body
    crc = _clause(c212, "5.1.1").body
    assert plain("g_{CRC24A}(D) = [D^{24} + D^{23} + D^{18}") in crc
    assert "g_CRC24A(D) = [D^24 + D^23 + D^18 + D^17 + D^14 + D^11 + D^10 + D^7" in crc
    scrambling = _clause(c211, "6.3.1").body
    assert "c_init = n_RNTI · 2^14 + q · 2^13 + ⌊n_s/2⌋ · 2^9 + N_ID^cell" in scrambling
    assert (
        "k_0 = R_subblock^TC · (2 · ⌈N_cb / (8 R_subblock^TC)⌉ · rv_idx + 2)"
        in _clause(c212, "5.1.4.1.2").body
    )


def test_every_table_with_caption_and_rows(c212: SpecContent, c211: SpecContent) -> None:
    for spec, content in ((SPEC_36212, c212), (SPEC_36211, c211)):
        expected = {
            b[1]: (c.number, b[2], b[3]) for c in spec.clauses for b in c.blocks if b[0] == "table"
        }
        got = {t.table_id: t for t in content.tables}
        assert set(got) == set(expected)
        for tid, (clause, caption, header) in expected.items():
            assert got[tid].clause == clause
            assert got[tid].caption == f"Table {tid}: {caption}"
            assert got[tid].header == header


def test_table_split_across_pages_comes_back_whole(corpus: dict[str, Path], c212: SpecContent):
    table = next(t for t in c212.tables if t.table_id == "5.1.3-3")
    assert [[int(v) for v in row[1:]] for row in table.rows] == [list(r) for r in QPP_TABLE]
    assert [row[0] for row in table.rows] == [str(i) for i in range(1, 189)]
    # the generated PDF really does split it: rows 1 and 188 are on different pages
    with pdfplumber.open(corpus["36212.pdf"]) as pdf:
        first = next(n for n, p in enumerate(pdf.pages, 1) if "1 40 3 10" in p.extract_text())
        last = next(n for n, p in enumerate(pdf.pages, 1) if "188 6144 263 480" in p.extract_text())
    assert last > first
    assert table.page == first


def test_citation_pages_are_where_the_heading_is_printed(
    corpus: dict[str, Path], c212: SpecContent
) -> None:
    with pdfplumber.open(corpus["36212.pdf"]) as pdf:
        texts = [" ".join(p.extract_text().split()) for p in pdf.pages]
    for clause in c212.clauses:
        head = f"{clause.clause} {' '.join(clause.title.split()[:3])}"
        printed = [n for n, text in enumerate(texts, 1) if head in text.replace("\u2003", " ")]
        assert clause.page in printed, (clause.clause, clause.page, printed)


def test_chunks_carry_type_page_and_bounded_size(c212: SpecContent) -> None:
    kinds = {c.content_type for c in c212.chunks}
    assert kinds == {"prose", "table", "equation"}
    for chunk in c212.chunks:
        assert count_tokens(chunk.text) <= MAX_TOKENS
        assert chunk.page is not None and 1 <= chunk.page <= c212.doc.pages
        assert chunk.path.startswith("TS 36.212 > ")
    qpp = [c for c in c212.chunks if c.content_type == "table" and "5.1.3-3" in c.text]
    assert len(qpp) >= 2  # 188 rows do not fit one chunk: split by rows, header repeated
    assert all(c.text.splitlines()[1] == "i | K | f1 | f2" for c in qpp)
    formula = [c for c in c212.chunks if c.content_type == "equation" and "g_CRC24A" in c.text]
    assert formula and "called CRC-24A" in formula[0].text


def test_long_clause_is_split_with_overlap(corpus: dict[str, Path], tmp_path: Path) -> None:
    from tests.spec_rag.corpus import Clause, SpecText

    sentences = [
        f"Sentence {i} describes the soft buffer rule number {i} in detail." for i in range(200)
    ]
    spec = SpecText(
        "TS",
        "36.999",
        "1.0.0",
        15,
        "2020-01",
        "Long",
        [Clause("1", "Long clause", [("p", " ".join(sentences))])],
    )
    from tests.spec_rag.corpus import write_pdf

    content = build(read_pdf(write_pdf(spec, tmp_path / "long.pdf")))
    prose = [c for c in content.chunks if c.content_type == "prose"]
    assert len(prose) >= 3
    for chunk in prose:
        assert count_tokens(chunk.text) <= MAX_TOKENS
    for chunk in prose[:-1]:
        assert count_tokens(chunk.text) >= MIN_TOKENS
    for before, after in zip(prose, prose[1:], strict=False):
        tail = " ".join(before.text.split()[-10:])
        assert after.text.startswith(tail) or tail in after.text[:600]  # overlap
    joined = " ".join(c.text for c in prose)
    assert all(s in joined for s in sentences)
