"""The DOCX reader (3GPP's own format, also inside a zip) on generated documents."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from silicon_agent.refmodels.qpp_table import QPP_TABLE
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.spec_rag.api import SpecLibrary
from silicon_agent.servers.spec_rag.chunking import build
from silicon_agent.servers.spec_rag.docx_reader import read_docx
from tests.spec_rag.corpus import SPEC_36211, SPEC_36212, expected_clauses


def test_docx_clause_tree_tables_and_scripts(corpus: dict[str, Path]) -> None:
    content = build(read_docx(corpus["36212.docx"]))
    assert (content.doc.spec, content.doc.version) == ("36.212", "15.6.0")
    assert [(c.clause, c.title) for c in content.clauses] == expected_clauses(SPEC_36212)
    levels = {c.clause: c.level for c in content.clauses}
    assert levels["5"] == 1 and levels["5.1.3.2.3"] == 5
    bodies = {c.clause: c.body for c in content.clauses}
    assert "1. the bits b_0, ..., b_{B-1} are split" in bodies["5.1.2"]
    assert "g_CRC24A(D) = [D^24 + D^23 + D^18" in bodies["5.1.1"]
    assert "N_RB^DL downlink bandwidth configuration" in bodies["3.2"]
    tables = {t.table_id: t for t in content.tables}
    qpp = tables["5.1.3-3"]
    assert qpp.caption == "Table 5.1.3-3: Turbo code internal interleaver parameters"
    assert qpp.header == ["i", "K", "f1", "f2"] and qpp.clause == "5.1.3.2.3"
    assert [tuple(int(v) for v in r[1:]) for r in qpp.rows] == list(QPP_TABLE)
    # DOCX has no page layout: citations say so instead of inventing a page
    assert all(c.page is None for c in content.clauses)
    assert {c.content_type for c in content.chunks} == {"prose", "table", "equation"}
    # the header text (Release 15 ... 3GPP TS 36.212 V15.6.0) never lands in a clause
    assert not any("V15.6.0" in c.body for c in content.clauses)


def test_docx_and_pdf_agree_on_the_tables(corpus: dict[str, Path]) -> None:
    from silicon_agent.servers.spec_rag.pdf_reader import read_pdf

    pdf = {t.table_id: t for t in build(read_pdf(corpus["36211.pdf"])).tables}
    docx = {t.table_id: t for t in build(read_docx(corpus["36211.docx"])).tables}
    assert set(pdf) == set(docx) == {"4.2-2", "6.3.2-1", "7.1.2-1"}
    for tid in pdf:
        assert pdf[tid].rows == docx[tid].rows, tid
    assert [(c.clause, c.title) for c in build(read_docx(corpus["36211.docx"])).clauses] == (
        expected_clauses(SPEC_36211)
    )


@pytest.mark.anyio
async def test_zip_holding_a_docx_is_ingested(corpus: dict[str, Path], tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "36212-f60.zip", "w") as archive:
        archive.write(corpus["36212.docx"], "36212-f60.docx")
    library = SpecLibrary(Workspace.open(tmp_path), embedder=None)
    result = await library.ingest("36212-f60.zip")
    assert result.status == "ingested", result
    assert (result.spec, result.version, result.tables) == ("TS 36.212", "15.6.0", 7)
    section = await library.fetch_section("36.212", "5.1.3.2.3")
    assert section.status == "found" and section.citation is not None
    assert section.citation.page is None
    assert "Π(i) = (f_1 · i + f_2 · i^2) mod K" in section.text


@pytest.mark.anyio
async def test_zip_without_docx_is_unreadable(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "notes.zip", "w") as archive:
        archive.writestr("readme.txt", "no spec here")
    library = SpecLibrary(Workspace.open(tmp_path), embedder=None)
    result = await library.ingest("notes.zip")
    assert result.status == "unreadable"
    assert result.error is not None and ".docx" in result.error.message
