"""The deepest clause that holds the answer is a hit, on a generated spec built like 36.212.

The parent clause 4.4.1 speaks of what its sub-clauses define (as 36.212 5.1.4.1 does of its
sub-block interleaver), so on words alone it outranks the sub-clause a question is about. The
sub-clause must rank first, and the parent's hit must name it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.spec_rag.api import SpecLibrary
from silicon_agent.servers.spec_rag.deepest import deepest_first, is_below
from silicon_agent.servers.spec_rag.server import build

from .docx_writer import write_real_docx

pytestmark = pytest.mark.anyio

# (question, the deepest clause holding the answer, its parent that also matches)
SUB_CLAUSE_QUESTIONS = (
    ("sub-block interleaver of the wallaby coded channels", "4.4.1.1", "4.4.1"),
    ("sub-block interleaver of the kangaroo stream", "4.4.1.1A", "4.4.1"),
    ("circular buffer of the wallaby coded channels", "4.4.1.2", "4.4.1"),
)


@pytest.fixture(scope="module")
def nested_docx(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_real_docx(tmp_path_factory.mktemp("nested") / "36306-i00.docx", nested=True)


@pytest.fixture
async def library(nested_docx: Path, tmp_path: Path) -> SpecLibrary:
    shutil.copy(nested_docx, tmp_path / "36306.docx")
    lib = SpecLibrary(Workspace.open(tmp_path), embedder=None)
    assert (await lib.ingest("36306.docx")).status == "ingested"
    return lib


@pytest.mark.parametrize(("question", "child", "parent"), SUB_CLAUSE_QUESTIONS)
async def test_the_sub_clause_ranks_before_its_parent(
    library: SpecLibrary, question: str, child: str, parent: str
) -> None:
    result = await library.search(question, top_k=5)
    clauses = [h.citation.clause for h in result.hits]
    assert clauses[0] == child, clauses
    assert parent in clauses, clauses  # the parent matched too, and stands after it
    named = next(h for h in result.hits if h.citation.clause == parent)
    assert child in named.subclause_hits


async def test_over_mcp_the_parent_hit_names_the_sub_clause(
    nested_docx: Path, tmp_path: Path
) -> None:
    from mcp import Client

    shutil.copy(nested_docx, tmp_path / "36306.docx")
    async with Client(build(Workspace.open(tmp_path), embedder="none")) as client:
        await client.call_tool("ingest", {"path": "36306.docx"})
        found = await client.call_tool(
            "search", {"query": "sub-block interleaver of the wallaby coded channels", "top_k": 5}
        )
    hits = found.structured_content["hits"]
    assert hits[0]["citation"]["clause"] == "4.4.1.1"
    parent = next(h for h in hits if h["citation"]["clause"] == "4.4.1")
    assert parent["subclause_hits"][0] == "4.4.1.1"


def test_letter_suffixed_siblings_are_not_sub_clauses() -> None:
    assert is_below("5.1.4.2.1", "5.1.4.2") and is_below("5.3.3.1.5D", "5.3.3")
    assert not is_below("5.2.2.6A", "5.2.2.6") and not is_below("5.1.40", "5.1.4")
    ranked = [("x", "5.2.2.6"), ("x", "5.2.2.6A"), ("x", "5.2.2.6.1"), ("y", "5.2.2.6.2")]
    order, below = deepest_first(ranked, lambda item: item, window=10)
    assert order == [("x", "5.2.2.6.1"), ("x", "5.2.2.6"), ("x", "5.2.2.6A"), ("y", "5.2.2.6.2")]
    assert below == {1: ["5.2.2.6.1"]}  # another spec's clause is not below it
