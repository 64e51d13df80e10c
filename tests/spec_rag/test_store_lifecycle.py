"""Re-ingest is a no-op when unchanged and a replacement when changed; the store persists."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.spec_rag.api import SpecLibrary
from tests.spec_rag.corpus import SPEC_36211, Clause, write_pdf


@pytest.mark.anyio
async def test_unchanged_noop_changed_replaces_remove(tmp_path: Path, corpus) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(corpus["36211.pdf"], tmp_path / "spec.pdf")
    library = SpecLibrary(Workspace.open(tmp_path), embedder=None)
    first = await library.ingest("spec.pdf")
    assert first.status == "ingested" and first.version == "15.5.0" and not first.vectors
    again = await library.ingest("spec.pdf")
    assert again.status == "unchanged" and again.chunks == first.chunks

    changed = dataclasses.replace(
        SPEC_36211,
        version="15.6.0",
        clauses=[
            *SPEC_36211.clauses,
            Clause(
                "9",
                "Newly added clause",
                [("p", "The quokka procedure appears only in the new version.")],
            ),
        ],
    )
    write_pdf(changed, tmp_path / "spec.pdf")
    # a stored spec is never replaced silently: the caller has to say so
    refused = await library.ingest("spec.pdf")
    assert refused.status == "exists" and refused.error is not None
    assert refused.error.argument == "replace" and "replace=true" in (refused.error.hint or "")
    assert (await library.list_specs()).specs[0].version == "15.5.0"
    assert (await library.search("quokka procedure")).status == "no_match"
    replaced = await library.ingest("spec.pdf", replace=True)
    assert replaced.status == "replaced" and replaced.version == "15.6.0"
    specs = (await library.list_specs()).specs
    assert [(s.key, s.version) for s in specs] == [("36.211", "15.6.0")]
    assert specs[0].chunks == replaced.chunks
    hit = (await library.search("quokka procedure")).hits[0]
    assert hit.citation.clause == "9" and hit.citation.version == "15.6.0"
    # no chunk of the old version is left behind
    assert len(library.catalog.chunk_texts("36.211")) == replaced.chunks

    removed = await library.remove("TS 136 211")
    assert removed.status == "removed" and removed.chunks_removed == replaced.chunks
    assert (await library.list_specs()).specs == []
    assert (await library.search("quokka")).status == "empty_store"


@pytest.mark.anyio
async def test_store_survives_a_restart_and_a_store_dir(tmp_path: Path, corpus) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(corpus["36211.pdf"], tmp_path / "spec.pdf")
    store = tmp_path / "elsewhere"
    library = SpecLibrary(Workspace.open(tmp_path), store_dir=store, embedder=None)
    assert (await library.ingest("spec.pdf")).status == "ingested"
    before = await library.search("Gold sequence Nc 1600")
    assert (store / "catalog.sqlite").is_file()
    assert not (tmp_path / ".silicon-agent" / "spec_rag").exists()
    reopened = SpecLibrary(Workspace.open(tmp_path), store_dir=store, embedder=None)
    after = await reopened.search("Gold sequence Nc 1600")
    assert [h.chunk_id for h in after.hits] == [h.chunk_id for h in before.hits]
    assert after.hits[0].citation.clause == "7.2"
    assert (await reopened.ingest("spec.pdf")).status == "unchanged"


@pytest.mark.anyio
async def test_ingest_leaves_the_bm25_index_built_for_the_next_search(
    tmp_path: Path,
    corpus,  # type: ignore[no-untyped-def]
) -> None:
    shutil.copy(corpus["36211.pdf"], tmp_path / "spec.pdf")
    library = SpecLibrary(Workspace.open(tmp_path), embedder=None)
    assert (await library.ingest("spec.pdf")).status == "ingested"
    # the first search after an ingest must not rebuild the index inside the call
    assert library.lexical._generation == library.catalog.generation
