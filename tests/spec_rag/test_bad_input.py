"""Bad input gets a structured result and loses nothing."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from silicon_agent.servers.core.jobs import JobManager, JobState
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.spec_rag.api import MAX_QUERY_CHARS, SpecLibrary
from tests.spec_rag.corpus import SPEC_36212, write_non_spec_pdf, write_pdf


@pytest.fixture(scope="module")
def lib(corpus: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> SpecLibrary:
    root = tmp_path_factory.mktemp("ws_bad")
    shutil.copy(corpus["36212.pdf"], root / "36212.pdf")
    library = SpecLibrary(Workspace.open(root), embedder=None)
    assert asyncio.run(library.ingest("36212.pdf")).status == "ingested"
    return library


async def _ingest(lib: SpecLibrary, name: str, data: bytes | None = None, **kw: str):  # type: ignore[no-untyped-def]
    if data is not None:
        (lib.workspace.root / name).write_bytes(data)
    return await lib.ingest(name, **kw)


@pytest.mark.anyio
async def test_encrypted_pdf(lib: SpecLibrary) -> None:
    write_pdf(SPEC_36212, lib.workspace.root / "locked.pdf", password="secret")
    result = await lib.ingest("locked.pdf")
    assert result.status == "unreadable"
    assert result.error is not None and "encrypted" in result.error.message
    assert (await lib.list_specs()).specs[0].chunks > 0  # the store lost nothing


@pytest.mark.anyio
async def test_corrupt_pdf(lib: SpecLibrary, corpus: dict[str, Path]) -> None:
    garbage = b"%PDF-1.7\n" + os.urandom(4000)
    result = await _ingest(lib, "corrupt.pdf", garbage)
    assert result.status == "unreadable", result
    assert result.error is not None and result.error.argument == "path"
    truncated = corpus["36211.pdf"].read_bytes()[:1500]
    result = await _ingest(lib, "truncated.pdf", truncated)
    assert result.status in ("unreadable", "not_a_spec"), result
    assert result.error is not None


@pytest.mark.anyio
async def test_non_spec_pdf(lib: SpecLibrary) -> None:
    write_non_spec_pdf(lib.workspace.root / "newsletter.pdf")
    result = await lib.ingest("newsletter.pdf")
    assert result.status == "not_a_spec"
    assert result.error is not None and result.error.hint and "spec=" in result.error.hint
    forced = await lib.ingest("newsletter.pdf", spec="36.999")
    assert forced.status == "not_a_spec" and "no numbered clauses" in forced.error.message  # type: ignore[union-attr]
    assert [s.key for s in (await lib.list_specs()).specs] == ["36.212"]


@pytest.mark.anyio
async def test_empty_and_foreign_files_and_bad_paths(lib: SpecLibrary) -> None:
    empty = await _ingest(lib, "empty.pdf", b"")
    assert empty.status == "invalid_input" and "empty" in empty.error.message  # type: ignore[union-attr]
    text = await _ingest(lib, "notes.txt", b"3GPP TS 36.212 V15.6.0 but plain text\n")
    assert text.status == "invalid_input" and "not a PDF or DOCX" in text.error.message  # type: ignore[union-attr]
    for path in ("../outside.pdf", "/etc/passwd", "-rf.pdf", "missing.pdf", ""):
        result = await lib.ingest(path)
        assert result.status == "invalid_input", path
        assert result.error is not None and result.error.argument == "path"


@pytest.mark.anyio
async def test_oversized_and_malformed_queries(lib: SpecLibrary) -> None:
    huge = await lib.search("turbo " * 1707)  # 10 kB
    assert huge.status == "invalid_input" and huge.error is not None
    assert huge.error.argument == "query" and str(MAX_QUERY_CHARS) in huge.error.message
    assert len(huge.query) <= 200
    long_ok = await lib.search(("turbo interleaver " * 300)[: MAX_QUERY_CHARS - 1])
    assert long_ok.status == "ok" and long_ok.hits
    assert (await lib.search("   ")).status == "invalid_input"
    assert (await lib.search("crc", top_k=0)).error.argument == "top_k"  # type: ignore[union-attr]
    assert (await lib.search("crc", content_type="figure")).error.argument == "content_type"  # type: ignore[union-attr]
    unknown = await lib.search("crc", spec="38.212")
    assert unknown.status == "invalid_input" and "TS 36.212" in unknown.error.hint  # type: ignore[union-attr]
    nothing = await lib.search("zebra giraffe")
    assert nothing.status == "no_match" and not nothing.hits


@pytest.mark.anyio
async def test_missing_clause_table_and_spec_are_explicit(lib: SpecLibrary) -> None:
    missing = await lib.fetch_section("36.212", "5.1.3.2.9")
    assert missing.status == "not_found" and missing.text == "" and missing.citation is None
    assert "5.1.3.2.3" in missing.suggestions
    assert (await lib.resolve_references("36.212", "5.9")).status == "not_found"
    table = await lib.extract_table("36.212", "Table 5.1.3-9")
    assert table.status == "not_found" and "5.1.3-3" in table.suggestions and not table.rows
    other = await lib.fetch_section("TS 38.212", "5.1")
    assert other.status == "not_found" and "TS 36.212" in other.error.hint  # type: ignore[union-attr]
    assert (await lib.fetch_section("36.212", "five")).status == "invalid_input"
    assert (await lib.fetch_section("36.212", "5.1", page=9)).status == "invalid_input"
    assert (await lib.extract_table("36.212", "big table")).status == "invalid_input"
    assert (await lib.remove("38.212")).status == "not_found"


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@pytest.mark.slow
@pytest.mark.anyio
async def test_thousand_page_pdf_as_a_job_with_progress(tmp_path: Path) -> None:
    write_pdf(SPEC_36212, tmp_path / "big.pdf", filler_clauses=1000, filler_page_breaks=True)
    library = SpecLibrary(Workspace.open(tmp_path), embedder=None)
    jobs = JobManager({"ingest": lambda a, p: library.ingest(**a, progress=p)})
    job = jobs.start("ingest", {"path": "big.pdf"})
    seen: list[float] = []
    messages: set[str] = set()
    baseline = peak = _rss_mb()
    while True:
        status = jobs.status(job.job_id)
        if status.progress is not None:
            seen.append(status.progress)
            messages.add(status.message)
        peak = max(peak, _rss_mb())
        if status.state not in (JobState.QUEUED, JobState.RUNNING):
            break
        await asyncio.sleep(0.2)
    final = await jobs.result(job.job_id)
    assert final.state == JobState.DONE, final.error
    assert final.result is not None and final.result["status"] == "ingested"
    assert final.result["pages"] >= 1000 and final.result["clauses"] >= 1000
    assert seen == sorted(seen) and len(set(seen)) > 10  # progress moved, never backwards
    assert any(m.startswith("page ") for m in messages)
    print(f"\n1000-page ingest: peak RSS growth {peak - baseline:.0f} MB")
    assert peak - baseline < 500  # pages are closed as they are read
    section = await library.fetch_section("36.212", "9.1000")
    assert section.status == "found" and section.citation and section.citation.page >= 1000  # type: ignore[operator]


@pytest.mark.anyio
async def test_cancelled_ingest_job_leaves_the_store_unchanged(tmp_path: Path) -> None:
    write_pdf(SPEC_36212, tmp_path / "mid.pdf", filler_clauses=150, filler_page_breaks=True)
    library = SpecLibrary(Workspace.open(tmp_path), embedder=None)
    jobs = JobManager({"ingest": lambda a, p: library.ingest(**a, progress=p)})
    job = jobs.start("ingest", {"path": "mid.pdf"})
    for _ in range(200):
        await asyncio.sleep(0.05)
        if (jobs.status(job.job_id).progress or 0) > 0.05:
            break
    cancelled = await jobs.cancel(job.job_id)
    assert cancelled.state == JobState.CANCELLED
    await asyncio.sleep(0.5)
    assert (await library.list_specs()).specs == []
