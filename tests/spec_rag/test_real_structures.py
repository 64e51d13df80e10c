"""The structures of real 3GPP .docx files, on a generated document built like them.

Each assertion here failed on the python-docx reader this replaced: letter-suffixed clauses
folded into the clause before, smartTag text dropped, formulas silent, captions without a
colon or with letters unnamed, grouped and merged-header tables as laid out, list levels
flat, H6 unread, the title "Technical Specification", references looked up in the citing spec.
"""

from __future__ import annotations

import resource
import shutil
from pathlib import Path

import pytest

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.spec_rag.api import SpecLibrary
from silicon_agent.servers.spec_rag.chunking import build
from silicon_agent.servers.spec_rag.docx_package import MAX_MEMBER_BYTES
from silicon_agent.servers.spec_rag.docx_reader import read_docx

from .corpus import SPEC_36211, write_docx
from .docx_writer import TITLE, write_real_docx

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def real_docx(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_real_docx(tmp_path_factory.mktemp("real") / "36306-i00.docx")


@pytest.fixture
async def library(real_docx: Path, tmp_path: Path) -> SpecLibrary:
    shutil.copy(real_docx, tmp_path / "36306.docx")
    write_docx(SPEC_36211, tmp_path / "36211.docx")
    lib = SpecLibrary(Workspace.open(tmp_path), embedder=None)
    real = await lib.ingest("36306.docx")
    assert real.status == "ingested"
    assert (real.formulas_extracted, real.formulas_marked) == (4, 1)  # said in the result too
    assert (await lib.ingest("36211.docx")).status == "ingested"
    return lib


def test_every_clause_under_its_own_number(real_docx: Path) -> None:
    content = build(read_docx(real_docx))
    assert [(c.clause, c.level) for c in content.clauses] == [
        ("1", 1),
        ("2", 1),
        ("4", 1),
        ("4.1", 2),
        ("4.1A", 2),
        ("4.1B", 2),
        ("4.2", 2),
        ("4.3", 2),
        ("4.3.7", 3),
        ("4.3.8", 3),  # "4.3" in a smartTag, ".8" in a run
        ("4.3.8.1a", 4),
        ("4.3.8.1.1", 5),
        ("4.3.8.1.1.1", 6),  # style H6
        ("A", 1),
        ("A.1", 2),
    ]
    bodies = {c.clause: c.body for c in content.clauses}
    assert "quokka soft buffer" in bodies["4.1A"] and "quokka" not in bodies["4.1"]
    assert "axolotl" in bodies["4.3.8"]
    assert content.doc.title == TITLE
    assert (content.doc.spec, content.doc.version) == ("36.306", "18.0.0")


def test_every_run_is_read(real_docx: Path) -> None:
    bodies = {c.clause: c.body for c in build(read_docx(real_docx)).clauses}
    assert "listed in Table 4.1-1 and" in bodies["4.1"]  # a field's cached result
    assert "Echidna state diagram label" in bodies["4.3"]  # a text box
    assert "Wideband CQI | 4 | 6" in bodies["4.3.8.1a"]  # a smartTag in a cell
    assert "Contents" not in "".join(bodies.values())  # the TOC is not clause text


def test_formulas_are_text_or_a_visible_marker(real_docx: Path) -> None:
    doc = read_docx(real_docx)
    assert (doc.formulas_extracted, doc.formulas_marked) == (4, 1)
    body = {c.clause: c.body for c in build(doc).clauses}["4.3"]
    assert "N_symb^UL=⌈K/8⌉+M_sc" in body  # OMML
    assert "platypus length N_RB^DL is" in body  # a .wmf equation picture's text records
    assert "and N_sc^RB the number" in body  # an Equation.3 object's preview
    assert "[formula: wmf, not extracted]" in body  # a picture with no text


def test_lists_keep_their_levels(real_docx: Path) -> None:
    content = build(read_docx(real_docx))
    body = {c.clause: c.body for c in content.clauses}["4.3.8.1.1"]
    assert body.splitlines()[:3] == [
        "  1> if the tuatara timer is running:",
        "    2> if the report is periodic:",
        "      3> start the report;",
    ]
    assert "          5> increment the kiwi counter;" in body
    chunk = next(c for c in content.chunks if c.clause == "4.3.8.1.1")
    assert "\n        4> set the counter to zero;" in chunk.text


async def test_fetch_section_keeps_list_levels(library: SpecLibrary) -> None:
    section = await library.fetch_section("36.306", "4.3.8.1.1")
    assert section.status == "found"
    assert (
        "  1> if the tuatara timer is running:\n    2> if the report is periodic:" in section.text
    )
    assert "\n          5> increment the kiwi counter;" in section.text


async def test_tables_as_meant(library: SpecLibrary) -> None:
    ids = set(library.catalog.table_ids("36.306"))
    assert {"4.1-1", "4.1A-1", "4.1B-1", "4.2-1a", "4.3.8.1a-1"} <= ids
    merged = await library.extract_table("36.306", "Table 4.1A-1")
    assert merged.status == "found" and merged.caption.startswith("Table 4.1A-1: Downlink")
    assert merged.header == [
        "UE DL Category",
        "Maximum bits per TTI / DL-SCH total",
        "Maximum bits per TTI / per transport block",
        "Soft channel bits",
        "Layers",
    ]
    assert len(merged.header_rows) == 2
    assert merged.rows[1] == ["DL Category 4", "150752", "75376", "1827072", "2\n4"]
    assert merged.notes == [
        "NOTE 1: In carrier aggregation the values apply per cell group.",
        "NOTE 2: The wombat rate is the sum over all serving cells.",
    ]
    paragraphs = await library.extract_table("36.306", "4.1A-1", cell_format="paragraphs")
    assert paragraphs.cells is not None and paragraphs.cells[1][4] == ["2", "4"]

    grouped = await library.extract_table("36.306", "4.2-1a")
    assert grouped.header == ["i", "K"]
    assert grouped.rows == [[str(i), str(40 + 8 * i)] for i in range(1, 10)]
    original = await library.extract_table("36.306", "4.2-1a", layout="original")
    assert original.header == ["i", "K", "i", "K", "i", "K"] and len(original.rows) == 3

    picture = await library.extract_table("36.306", "4.3.8.1a-1")
    assert picture.header == ["Field", "Bits", "N_RB^DL"]  # a header cell holding a picture

    bare = await library.extract_table("36.306", "4.1B-1")
    assert bare.rows == [["UL Category 3", "51024"]]
    history = next(t for t in ids if "untitled" in t)
    change = await library.extract_table("36.306", history)
    assert change.header == ["Date", "CR", "New version"] and change.notes == ["Change history"]


async def test_references_go_to_the_cited_spec(library: SpecLibrary) -> None:
    found = await library.resolve_references("36.306", "4")
    refs = {r.mention: r for r in found.references}
    scrambling = refs["TS 36.211 [2], clause 6.3.1"]
    assert scrambling.found and scrambling.citation is not None
    assert scrambling.citation.spec == "TS 36.211" and scrambling.reference == "[2]"
    mapper = refs["clause 7.1 of [2]"]
    assert mapper.found and mapper.citation.spec == "TS 36.211"  # type: ignore[union-attr]
    rrc = refs["TS 36.331 [3], clause 6.3.6"]
    assert not rrc.found and rrc.citation is None and rrc.text is None
    assert rrc.spec == "TS 36.331" and rrc.version == "18.1.0"
    assert "not ingested" in (rrc.note or "")
    vocabulary = refs["[1]"]
    assert vocabulary.kind == "document" and not vocabulary.found
    assert vocabulary.spec == "TR 21.905"
    same = await library.resolve_references("36.306", "4.1")
    by_target = {r.target: r for r in same.references}
    assert by_target["4.1A"].found and by_target["4.1A"].citation.spec == "TS 36.306"  # type: ignore[union-attr]


async def test_formula_counts_and_docx_citations_without_page(library: SpecLibrary) -> None:
    spec = next(s for s in (await library.list_specs()).specs if s.key == "36.306")
    assert (spec.formulas_extracted, spec.formulas_marked) == (4, 1)
    assert spec.title == TITLE
    section = await library.fetch_section("36.306", "4.1A")
    assert section.status == "found" and section.citation is not None
    assert "page" not in section.model_dump()["citation"]
    lower = await library.fetch_section("36.306", "4.3.8.1a")
    assert lower.status == "found" and "kakapo" in lower.text


async def test_hostile_docx_part_is_refused_and_the_server_still_answers(
    real_docx: Path, tmp_path: Path
) -> None:
    write_real_docx(
        tmp_path / "bomb.docx", extra_member=("word/media/big.wmf", MAX_MEMBER_BYTES + (1 << 20))
    )
    assert (tmp_path / "bomb.docx").stat().st_size < 2 * 1024 * 1024
    library = SpecLibrary(Workspace.open(tmp_path), embedder=None)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = await library.ingest("bomb.docx")
    peak_growth_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(f"\nhostile DOCX: peak RSS growth {peak_growth_mb:.0f} MB")
    assert result.status == "invalid_input" and result.error is not None
    assert "max_member_bytes" in result.error.message and "big.wmf" in result.error.message
    assert peak_growth_mb < 100
    shutil.copy(real_docx, tmp_path / "good.docx")
    assert (await library.ingest("good.docx")).status == "ingested"
    assert (await library.list_specs()).specs[0].key == "36.306"


async def test_a_link_out_of_the_workspace_is_refused(real_docx: Path, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "spec.docx").symlink_to(real_docx)
    result = await SpecLibrary(Workspace.open(root), embedder=None).ingest("spec.docx")
    assert result.status == "invalid_input" and "outside the workspace" in result.error.message  # type: ignore[union-attr]
