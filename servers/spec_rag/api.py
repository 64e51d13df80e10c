"""The Spec Librarian as a plain Python API: ingest, search, fetch, resolve, extract, list.

The server never writes text of its own into an answer: every text it returns is stored
spec text with its citation, and a missing clause or table is an explicit `not_found`.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO, Literal

import numpy as np

from silicon_agent.servers.core.progress import Progress, no_progress
from silicon_agent.servers.core.workspace import InvalidInput, Workspace

from . import chunking, ids
from .catalog import Catalog, ClauseRow, DocRow, TableRow
from .deepest import deepest_first, pointed_to
from .document import ParsedDoc
from .docx_reader import UnreadableDocx, read_docx_handle
from .docx_tables import CELL_SEPARATOR
from .embedders import (
    Embedder,
    EmbedderUnavailable,
    QueryVectors,
    first_of_each,
    make_embedder,
)
from .ids import clause_id, clause_sort_key, display_spec, spec_key
from .lexical_index import LexicalIndex
from .lexical_tokens import query_tokens
from .memory import release_memory
from .models import (
    Citation,
    ContentType,
    ErrorInfo,
    Hit,
    IngestResult,
    Reference,
    ReferencesResult,
    RemoveResult,
    Scores,
    SearchResult,
    SectionResult,
    SpecInfo,
    SpecList,
    TableResult,
)
from .pdf_reader import UnreadablePdf, read_pdf
from .references import ListEntry, Mention, find_references, reference_list

__all__ = ["SpecLibrary", "find_references"]

MAX_QUERY_CHARS = 4000
MAX_TOP_K = 50
RRF_K = 60
PAGE_CHARS = 12000
REFERENCE_TEXT_CHARS = 2000
CONTENT_TYPES = ("prose", "table", "equation")
MAX_FILE_BYTES = 500 * 1024 * 1024
EMBED_STEP = 64
DEEPEST_WINDOW = 10


class Cancelled(Exception):
    """The ingest job was cancelled between pages."""


class SpecLibrary:
    def __init__(
        self,
        workspace: Workspace,
        store_dir: Path | None = None,
        embedder: Embedder | None | str = "default",
    ):
        self.workspace = workspace
        self.store_dir = store_dir or workspace.keep_dir("spec_rag")
        self.store_dir.mkdir(parents=True, exist_ok=True)
        self.catalog = Catalog(self.store_dir / "catalog.sqlite")
        self.lexical = LexicalIndex(self.catalog, self.store_dir / "bm25")
        self._vectors: Any = None
        self.embedder: Embedder | None = make_embedder() if isinstance(embedder, str) else embedder
        self._queries = QueryVectors()  # a query asked again is not embedded again
        self._write_lock = threading.Lock()
        self._open_lock = threading.Lock()

    @property
    def vectors(self) -> Any:
        with self._open_lock:
            if self._vectors is None:
                from .vector_index import VectorIndex

                self._vectors = VectorIndex(self.store_dir / "chroma")
            return self._vectors

    def warm(self) -> None:
        """Load what the first search would otherwise wait for: the embedding model (one
        embedding), the BM25 index and the vector collections of the stored specs."""
        docs = self.catalog.docs()
        self.lexical.warm()
        if self.embedder is not None:
            try:
                vector = self.embedder.embed(["warm up"])[0]
            except EmbedderUnavailable:
                return
            specs = [d.spec for d in docs if self._reads(d.embedder)]
            if specs:
                self.vectors.query(vector, specs, 1, every_spec=len(specs) > 1)

    # ---- ingest ------------------------------------------------------------------------

    async def ingest(
        self,
        path: str,
        spec: str | None = None,
        progress: Progress = no_progress,
        replace: bool = False,
    ) -> IngestResult:
        """Read a PDF / DOCX / zip-with-DOCX spec into the store (a job with progress).

        A spec already in the store is replaced only when the caller says `replace=True`.
        """
        loop = asyncio.get_running_loop()
        cancel = threading.Event()
        last = {"f": -1.0}

        def report(fraction: float, message: str) -> None:
            if cancel.is_set():
                raise Cancelled()
            if fraction - last["f"] >= 0.01 or fraction >= 1.0:
                last["f"] = fraction
                asyncio.run_coroutine_threadsafe(progress(fraction, message), loop)

        try:
            return await asyncio.to_thread(self._ingest_released, path, spec, report, replace)
        except asyncio.CancelledError:
            cancel.set()
            raise

    def _ingest_released(
        self,
        path: str,
        spec_override: str | None,
        report: Callable[[float, str], None],
        replace: bool,
    ) -> IngestResult:
        try:
            return self._ingest(path, spec_override, report, replace)
        finally:
            release_memory()  # the parsed document is garbage now: hand its pages back

    def _ingest(
        self,
        path: str,
        spec_override: str | None,
        report: Callable[[float, str], None],
        replace: bool = False,
    ) -> IngestResult:
        started = time.perf_counter()
        try:
            if not isinstance(replace, bool):
                raise InvalidInput("replace: must be true or false", argument="replace")
            file = self.workspace.resolve(path, argument="path")
            override = spec_key(spec_override, argument="spec") if spec_override else None
            handle = open_inside(self.workspace, file)
        except InvalidInput as exc:
            return IngestResult(status="invalid_input", source=str(path), error=ErrorInfo.of(exc))
        with handle:
            return self._ingest_open(handle, file, override, report, replace, started)

    def _ingest_open(
        self,
        handle: BinaryIO,
        file: Path,
        override: str | None,
        report: Callable[[float, str], None],
        replace: bool,
        started: float,
    ) -> IngestResult:
        source = self.workspace.relative(file)
        size = os.fstat(handle.fileno()).st_size
        if size == 0:
            return _bad_ingest(source, "the file is empty", "Check the download; nothing to read.")
        if size > MAX_FILE_BYTES:
            return _bad_ingest(source, f"the file is larger than {MAX_FILE_BYTES} bytes", None)
        magic = handle.read(5)
        digest = _sha256(handle)
        with self._write_lock:
            existing = self.catalog.doc_by_source(source)
            if (
                existing is not None
                and existing.sha256 == digest
                and (self._reads(existing.embedder) or self.embedder is None)
            ):
                return IngestResult(
                    status="unchanged",
                    source=source,
                    spec=display_spec(existing.spec, existing.kind),
                    version=existing.version,
                    pages=existing.pages,
                    clauses=existing.clauses,
                    tables=existing.tables,
                    chunks=existing.chunks,
                    vectors=existing.embedder is not None,
                    formulas_extracted=existing.formulas_extracted,
                    formulas_marked=existing.formulas_marked,
                    seconds=round(time.perf_counter() - started, 3),
                    note="same content as already ingested: nothing to do",
                )
            report(0.0, f"reading {source}")
            try:
                doc = self._read(handle, file, magic, report)
            except (UnreadablePdf, UnreadableDocx) as exc:
                return IngestResult(
                    status="unreadable",
                    source=source,
                    error=ErrorInfo(message=str(exc), argument="path"),
                )
            except InvalidInput as exc:
                return IngestResult(status="invalid_input", source=source, error=ErrorInfo.of(exc))
            if override is not None:
                doc.spec = override
                doc.kind = doc.kind or ("TS" if " " not in override else override.split()[0])
                doc.version = doc.version or "unknown"
            if not doc.spec:
                return IngestResult(
                    status="not_a_spec",
                    source=source,
                    pages=doc.pages,
                    error=ErrorInfo(
                        message="no spec id and version (like '3GPP TS 36.212 V15.6.0' or 'ETSI "
                        "TS 136 212 V15.6.0') on the first pages or in the header",
                        argument="path",
                        hint="If this is a spec, pass spec='36.212' (its number) to ingest it "
                        "anyway.",
                    ),
                )
            stored = self.catalog.doc(doc.spec)
            clash = [d for d in (stored, existing) if d is not None]
            # the same file, stored with another embedder's vectors: embedded again with this
            # server's model, no `replace` needed (its content does not change)
            reembed = (
                existing is not None
                and existing.sha256 == digest
                and stored is not None
                and stored.spec == existing.spec
            )
            if clash and not replace and not reembed:
                return _exists(source, doc, clash[0], started)
            content = chunking.build(doc)
            doc.blocks = []  # the content holds what is kept; the blocks can go
            if not content.clauses:
                return IngestResult(
                    status="not_a_spec",
                    source=source,
                    pages=doc.pages,
                    spec=display_spec(doc.spec, doc.kind),
                    error=ErrorInfo(
                        message="no numbered clauses found (no PDF bookmarks or heading styles)",
                        argument="path",
                    ),
                )
            report(0.6, f"{len(content.chunks)} chunks from {len(content.clauses)} clauses")
            vectors, note = self._embed(content, report)
            if reembed and not replace and vectors is None and clash:
                # this server could not embed it: the stored spec (and its vectors) stays
                return _exists(source, doc, clash[0], started)
            if reembed and vectors is not None and note is None:
                was = existing.embedder or "BM25 only"
                note = f"embedded again with {self._embedder_name} (stored: {was})"
            replaced = bool(clash)
            if existing is not None and existing.spec != doc.spec:
                self._remove(existing.spec)  # the file now holds another spec
            ids = self.catalog.replace(
                content, source, digest, self._embedder_name if vectors is not None else None
            )
            if vectors is not None:
                try:
                    self.vectors.replace(doc.spec, ids, vectors)
                except Exception as exc:  # a vector store failure still leaves BM25 working
                    self.vectors.remove(doc.spec)
                    self.catalog.set_embedder(doc.spec, None)
                    vectors = None
                    note = f"vector store failed ({type(exc).__name__}: {exc}): BM25 only"
            elif self._vectors is not None or (self.store_dir / "chroma").exists():
                self.vectors.remove(doc.spec)
            self.lexical.warm()  # the BM25 index is rebuilt here, not in the next search
            report(1.0, "stored")
        return IngestResult(
            status="replaced" if replaced else "ingested",
            source=source,
            spec=display_spec(doc.spec, doc.kind),
            version=doc.version,
            pages=doc.pages,
            clauses=len(content.clauses),
            tables=len(content.tables),
            chunks=len(content.chunks),
            vectors=vectors is not None,
            formulas_extracted=doc.formulas_extracted,
            formulas_marked=doc.formulas_marked,
            seconds=round(time.perf_counter() - started, 3),
            note=note,
        )

    def _read(
        self, handle: BinaryIO, file: Path, magic: bytes, report: Callable[[float, str], None]
    ) -> ParsedDoc:
        if magic.startswith(b"%PDF"):
            return read_pdf(
                file, lambda done, total: report(0.6 * done / total, f"page {done}/{total}")
            )
        if magic.startswith(b"PK"):
            handle.seek(0)
            return read_docx_handle(handle)
        raise InvalidInput(
            "path: not a PDF or DOCX file (nor a zip holding a .docx)",
            argument="path",
            hint="3GPP publishes .zip files holding a .docx; ETSI publishes PDFs.",
        )

    @property
    def _embedder_name(self) -> str | None:
        return self.embedder.name if self.embedder is not None else None

    def _reads(self, stored: str | None) -> bool:
        """Whether this server's query vectors compare with a spec's stored vectors: its own
        model's, or one the embedder declares the same (`reads`: int8 weights of a model)."""
        if stored is None or self.embedder is None:
            return False
        return stored == self.embedder.name or stored in getattr(self.embedder, "reads", ())

    def _embed(
        self, content: chunking.SpecContent, report: Callable[[float, str], None]
    ) -> tuple[np.ndarray | None, str | None]:
        if self.embedder is None:
            return None, "no embedder configured: stored for BM25 search only"
        texts = [f"{c.path}\n{c.text}" for c in content.chunks]
        if not texts:
            return np.zeros((0, 1), np.float32), None
        # chunks the model reads as the same passage (a table repeated in its clause) are
        # embedded once and share the vector
        slots_of = getattr(self.embedder, "passage_slots", None)
        try:
            slots = slots_of(texts) if slots_of is not None else list(range(len(texts)))
        except EmbedderUnavailable as exc:
            return None, f"embedder unavailable ({exc}): stored for BM25 search only"
        shared = first_of_each(slots)
        vectors, note = self._embed_texts([texts[i] for i in shared], report)
        return (vectors[slots] if vectors is not None else None), note

    def _embed_texts(
        self, texts: list[str], report: Callable[[float, str], None]
    ) -> tuple[np.ndarray | None, str | None]:
        assert self.embedder is not None
        # shortest first over the whole spec, so a step's texts are alike in length and the
        # model pads little; steps of 512 measured no faster than 64 (bench/), and 64 keeps
        # progress and cancel
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        step = EMBED_STEP
        vectors: np.ndarray | None = None
        embed = getattr(self.embedder, "embed_passages", self.embedder.embed)
        try:
            for start in range(0, len(order), step):
                picked = order[start : start + step]
                part = embed([texts[i] for i in picked])
                if vectors is None:
                    vectors = np.zeros((len(texts), part.shape[1]), np.float32)
                vectors[picked] = part
                done = min(len(texts), start + step)
                report(0.6 + 0.38 * done / len(texts), f"embedded {done}/{len(texts)} chunks")
        except EmbedderUnavailable as exc:
            return None, f"embedder unavailable ({exc}): stored for BM25 search only"
        return vectors, None

    # ---- remove / list -----------------------------------------------------------------

    async def remove(self, spec: str) -> RemoveResult:
        try:
            key = spec_key(spec)
        except InvalidInput as exc:
            return RemoveResult(status="invalid_input", spec=str(spec), error=ErrorInfo.of(exc))
        doc = self.catalog.doc(key)
        if doc is None:
            return RemoveResult(status="not_found", spec=spec, error=self._no_spec(key))
        removed = await asyncio.to_thread(self._remove_locked, key)
        return RemoveResult(
            status="removed", spec=display_spec(key, doc.kind), chunks_removed=removed
        )

    def _remove_locked(self, key: str) -> int:
        # taken in the worker thread: waiting for a running ingest must not block the loop
        with self._write_lock:
            return self._remove(key)

    def _remove(self, key: str) -> int:
        removed = self.catalog.remove(key)
        self.vectors.remove(key)
        return removed

    async def list_specs(self) -> SpecList:
        docs = self.catalog.docs()
        specs = [
            SpecInfo(
                spec=display_spec(d.spec, d.kind),
                key=d.spec,
                version=d.version,
                title=d.title,
                source=d.source,
                pages=d.pages,
                clauses=d.clauses,
                tables=d.tables,
                chunks=d.chunks,
                embedder=d.embedder,
                ingested_at=d.ingested_at,
                formulas_extracted=d.formulas_extracted,
                formulas_marked=d.formulas_marked,
            )
            for d in docs
        ]
        note = None if specs else "no specs ingested yet: call ingest(path) with a PDF or DOCX"
        return SpecList(
            specs=specs,
            store=self.workspace.relative(self.store_dir),
            embedder=self._embedder_name,
            note=note,
        )

    # ---- search ------------------------------------------------------------------------

    async def search(
        self,
        query: str,
        top_k: int = 10,
        spec: str | None = None,
        content_type: ContentType | None = None,
    ) -> SearchResult:
        return await asyncio.to_thread(self.search_sync, query, top_k, spec, content_type)

    def search_sync(
        self,
        query: str,
        top_k: int = 10,
        spec: str | None = None,
        content_type: str | None = None,
        query_vector: np.ndarray | None = None,
    ) -> SearchResult:
        """Hybrid search; `query_vector` lets a benchmark supply the embedding."""
        shown = query[:200] if isinstance(query, str) else ""
        try:
            text, keys, ctype = self._check_search(query, top_k, spec, content_type)
        except InvalidInput as exc:
            return SearchResult(status="invalid_input", query=shown, error=ErrorInfo.of(exc))
        docs = {d.spec: d for d in self.catalog.docs()}
        if not docs:
            return SearchResult(
                status="empty_store",
                query=shown,
                note="no specs ingested yet: call ingest(path) first",
            )
        if keys is not None:
            missing = [k for k in keys if k not in docs]
            if missing:
                return SearchResult(
                    status="invalid_input", query=shown, error=self._no_spec(missing[0])
                )
        depth = max(50, top_k * 5)
        notes: list[str] = []
        embed_ms = None
        started = time.perf_counter()
        waited = 0.0
        vector_specs = [
            k for k, d in docs.items() if (keys is None or k in keys) and self._reads(d.embedder)
        ]
        pending = None
        if self.embedder is not None and vector_specs and query_vector is None:
            # the query is embedded (on the embedding thread) while BM25 runs here
            try:
                pending = self._queries.start(self.embedder, text)
            except EmbedderUnavailable as exc:
                notes.append(f"embedder unavailable ({exc}): BM25 only")
                vector_specs = []
        lexical = self.lexical.search(query_tokens(text), depth, keys, ctype)
        retrievers = ["bm25"]
        vector_hits: list[tuple[int, float]] = []
        other = _other_embedders(
            [d for d in docs.values() if not self._reads(d.embedder)], keys, self._embedder_name
        )
        if self.embedder is None:
            notes.append("no embedder configured: BM25 only")
        elif other:
            notes.append(other)
        if self.embedder is None or not vector_specs:
            if not notes:
                notes.append("no vectors from the current embedder for these specs: BM25 only")
        else:
            try:
                if pending is not None:
                    t0 = time.perf_counter()
                    query_vector, embed_ms = pending()
                    waited = time.perf_counter() - t0
                fetch = depth * 4 if ctype else depth
                every = keys is None and len(vector_specs) == sum(
                    1 for d in docs.values() if d.embedder is not None
                )
                vector_hits = self.vectors.query(query_vector, vector_specs, fetch, every)
                retrievers.append("vector")
            except EmbedderUnavailable as exc:
                notes.append(f"embedder unavailable ({exc}): BM25 only")
        rows = self.catalog.chunks(list({i for i, _ in lexical} | {i for i, _ in vector_hits}))
        if ctype:
            vector_hits = [
                (i, s) for i, s in vector_hits if i in rows and rows[i].content_type == ctype
            ][:depth]
        fused = [(cid, s) for cid, s in _rrf(lexical, vector_hits) if cid in rows]
        fused, below = deepest_first(
            fused,
            lambda item: (rows[item[0]].spec, rows[item[0]].clause),
            _window(top_k),
            lambda item: pointed_to(rows[item[0]].text, text, rows[item[0]].clause),
        )
        search_ms = (time.perf_counter() - started - waited) * 1000
        hits: list[Hit] = []
        for position, (cid, scores) in enumerate(fused[:top_k]):
            row = rows[cid]
            doc = docs[row.spec]
            hits.append(
                Hit(
                    text=row.text,
                    content_type=row.content_type,  # type: ignore[arg-type]
                    clause_path=row.path,
                    citation=Citation(
                        spec=display_spec(doc.spec, doc.kind),
                        version=doc.version,
                        clause=row.clause,
                        title=row.title,
                        page=row.page,
                    ),
                    scores=scores,
                    chunk_id=cid,
                    subclause_hits=below.get(position, []),
                )
            )
        return SearchResult(
            status="ok" if hits else "no_match",
            query=shown,
            hits=hits,
            retrievers=retrievers,
            note="; ".join(notes) or (None if hits else "nothing in the store matches"),
            embed_ms=round(embed_ms, 3) if embed_ms is not None else None,
            search_ms=round(search_ms, 3),
        )

    def _check_search(
        self, query: str, top_k: int, spec: str | None, content_type: str | None
    ) -> tuple[str, list[str] | None, str | None]:
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query: empty", argument="query")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidInput(
                f"query: {len(query)} characters; the limit is {MAX_QUERY_CHARS}",
                argument="query",
                hint="Ask for the thing itself (a symbol, a clause title, a table caption).",
            )
        if not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
            raise InvalidInput(f"top_k: must be 1..{MAX_TOP_K}", argument="top_k")
        if content_type is not None and content_type not in CONTENT_TYPES:
            raise InvalidInput(
                f"content_type: one of {', '.join(CONTENT_TYPES)}", argument="content_type"
            )
        keys = [spec_key(spec)] if spec else None
        return query, keys, content_type

    def _no_spec(self, key: str) -> ErrorInfo:
        known = ", ".join(display_spec(d.spec, d.kind) for d in self.catalog.docs()) or "none"
        return ErrorInfo(
            message=f"spec {display_spec(key)} is not in the store",
            argument="spec",
            hint=f"Ingested specs: {known}. Ingest the spec file first.",
        )

    # ---- exact text --------------------------------------------------------------------

    def _citation(self, doc: DocRow, clause: ClauseRow) -> Citation:
        return Citation(
            spec=display_spec(doc.spec, doc.kind),
            version=doc.version,
            clause=clause.clause,
            title=clause.title,
            page=clause.page,
        )

    def _lookup(self, spec: str, clause: str) -> tuple[DocRow | None, str, str]:
        key = spec_key(spec)
        number = clause_id(clause)
        return self.catalog.doc(key), key, number

    async def fetch_section(self, spec: str, clause: str, page: int = 1) -> SectionResult:
        try:
            doc, key, number = self._lookup(spec, clause)
            if not isinstance(page, int) or page < 1:
                raise InvalidInput("page: must be 1 or more", argument="page")
        except InvalidInput as exc:
            return SectionResult(
                status="invalid_input", spec=str(spec), clause=str(clause), error=ErrorInfo.of(exc)
            )
        if doc is None:
            return SectionResult(
                status="not_found", spec=display_spec(key), clause=number, error=self._no_spec(key)
            )
        tree = self.catalog.subtree(key, number)
        if not tree:
            # "4.1a" asked as "4.1A": one stored clause that differs only in case answers it
            same = [c for c in self.catalog.clause_ids(key) if c.lower() == number.lower()]
            if len(same) == 1:
                number = same[0]
                tree = self.catalog.subtree(key, number)
        if not tree:
            return SectionResult(
                status="not_found",
                spec=display_spec(key, doc.kind),
                clause=number,
                suggestions=self._near_clauses(key, number),
                error=ErrorInfo(
                    message=f"clause {number} is not in {display_spec(key, doc.kind)}"
                    f" V{doc.version}",
                    argument="clause",
                    hint="Pick one of the suggestions or search for the topic.",
                ),
            )
        full = "\n\n".join(
            f"{c.clause} {c.title}" + (f"\n\n{c.body}" if c.body else "") for c in tree
        )
        pages = _paginate(full, PAGE_CHARS)
        if page > len(pages):
            return SectionResult(
                status="invalid_input",
                spec=display_spec(key, doc.kind),
                clause=number,
                pages=len(pages),
                error=ErrorInfo(
                    message=f"page {page}: the section has {len(pages)} page(s)", argument="page"
                ),
            )
        return SectionResult(
            status="found",
            spec=display_spec(key, doc.kind),
            clause=number,
            citation=self._citation(doc, tree[0]),
            text=pages[page - 1],
            page=page,
            pages=len(pages),
            has_more=page < len(pages),
            subclauses=[c.clause for c in tree[1:]],
        )

    def _near_clauses(self, key: str, number: str) -> list[str]:
        existing = self.catalog.clause_ids(key)
        parts = number.split(".")
        for cut in range(len(parts) - 1, -1, -1):
            prefix = ".".join(parts[:cut])
            near = [
                c
                for c in existing
                if (not prefix or c == prefix or c.startswith(prefix + "."))
                and c.count(".") <= number.count(".")
            ]
            if near:
                return sorted(near, key=clause_sort_key)[:10]
        return []

    async def extract_table(
        self,
        spec: str,
        table_id: str,
        layout: Literal["logical", "original"] = "logical",
        cell_format: Literal["joined", "paragraphs"] = "joined",
    ) -> TableResult:
        """The logical table (or, with layout='original', the rows as laid out)."""
        table = table_id
        try:
            key = spec_key(spec)
            tid = ids.table_id(table)
            if layout not in ("logical", "original"):
                raise InvalidInput("layout: 'logical' or 'original'", argument="layout")
            if cell_format not in ("joined", "paragraphs"):
                raise InvalidInput("cell_format: 'joined' or 'paragraphs'", argument="cell_format")
        except InvalidInput as exc:
            return TableResult(
                status="invalid_input", spec=str(spec), table_id=str(table), error=ErrorInfo.of(exc)
            )
        doc = self.catalog.doc(key)
        if doc is None:
            return TableResult(
                status="not_found", spec=display_spec(key), table_id=tid, error=self._no_spec(key)
            )
        found = self.catalog.table(key, tid)
        if found is None:
            stem = tid.split("-")[0]
            near = sorted(t for t in self.catalog.table_ids(key) if t.startswith(stem))
            return TableResult(
                status="not_found",
                spec=display_spec(key, doc.kind),
                table_id=tid,
                suggestions=near[:10] or sorted(self.catalog.table_ids(key))[:10],
                error=ErrorInfo(
                    message=f"Table {tid} is not in {display_spec(key, doc.kind)} V{doc.version}",
                    argument="table_id",
                ),
            )
        header, header_rows, rows = found.header, [found.header], found.rows
        if found.layout is not None:
            header_rows = found.layout["header"]
            if layout == "original" and found.layout.get("rows"):
                rows = found.layout["rows"]
                header = header_rows[-1] if header_rows else header
        cells = None
        if cell_format == "paragraphs":
            cells = [[c.split(CELL_SEPARATOR) if c else [] for c in r] for r in rows]
        return TableResult(
            status="found",
            spec=display_spec(key, doc.kind),
            table_id=tid,
            caption=found.caption,
            citation=self._table_citation(doc, found),
            layout=layout,  # type: ignore[arg-type]
            header=header,
            header_rows=header_rows,
            rows=rows,
            cells=cells,
            notes=found.notes,
            row_count=len(rows),
        )

    def _table_citation(self, doc: DocRow, table: TableRow) -> Citation:
        owner = self.catalog.clause(doc.spec, table.clause)
        return Citation(
            spec=display_spec(doc.spec, doc.kind),
            version=doc.version,
            clause=table.clause,
            title=owner.title if owner else "",
            page=table.page,
        )

    async def resolve_references(self, spec: str, clause: str) -> ReferencesResult:
        try:
            doc, key, number = self._lookup(spec, clause)
        except InvalidInput as exc:
            return ReferencesResult(
                status="invalid_input", spec=str(spec), clause=str(clause), error=ErrorInfo.of(exc)
            )
        if doc is None:
            return ReferencesResult(
                status="not_found", spec=display_spec(key), clause=number, error=self._no_spec(key)
            )
        row = self.catalog.clause(key, number)
        if row is None:
            return ReferencesResult(
                status="not_found",
                spec=display_spec(key, doc.kind),
                clause=number,
                error=ErrorInfo(
                    message=f"clause {number} is not in {display_spec(key, doc.kind)}",
                    argument="clause",
                ),
            )
        listing = self.catalog.clause(key, "2")
        entries = reference_list(listing.body) if listing is not None else {}
        references: list[Reference] = []
        seen: set[tuple[str, str, str | None]] = set()
        for mention in find_references(row.body):
            reference = self._follow(doc, number, mention, entries)
            if reference is None:
                continue
            marker = (reference.kind, reference.target, reference.spec)
            if marker in seen:
                continue
            seen.add(marker)
            references.append(reference)
        return ReferencesResult(
            status="found",
            spec=display_spec(key, doc.kind),
            clause=number,
            citation=self._citation(doc, row),
            references=references,
        )

    def _follow(
        self, doc: DocRow, number: str, mention: Mention, entries: dict[str, ListEntry]
    ) -> Reference | None:
        """One mention, resolved in the spec it points into; never in the citing one instead."""
        here = display_spec(doc.spec, doc.kind)
        entry = entries.get(mention.label) if mention.label else None
        written = mention.spec or (entry.spec if entry else None)
        kind = mention.kind
        if mention.label and entry is None and mention.spec is None:
            return Reference(
                kind=kind,  # type: ignore[arg-type]
                target=mention.target or mention.label,
                mention=mention.text,
                reference=mention.label,
                found=False,
                note=f"{mention.label} is not in the reference list (clause 2) of {here}",
            )
        if written is None:
            if kind == "clause" and mention.target == number:
                return None  # the clause naming itself
            return self._reference(kind, mention.target, mention.text, doc.spec)
        try:
            key = spec_key(written)
        except InvalidInput:
            return Reference(
                kind=kind,  # type: ignore[arg-type]
                target=mention.target or written,
                mention=mention.text,
                reference=mention.label,
                found=False,
                note=f"{written} is not a 3GPP/ETSI spec this store can hold",
            )
        version = entry.version if entry else None
        target = self.catalog.doc(key)
        name = display_spec(key, target.kind if target else written.split()[-2])
        if target is None:
            shown = name + (f" ({version})" if version else "")
            return Reference(
                kind=kind,  # type: ignore[arg-type]
                target=mention.target or name,
                mention=mention.text,
                reference=mention.label,
                found=False,
                spec=name,
                version=version,
                note=f"{shown} is not ingested: ingest it to follow this reference",
            )
        if kind == "document":
            return Reference(
                kind="document",
                target=name,
                mention=mention.text,
                reference=mention.label,
                found=True,
                spec=name,
                version=target.version,
                note=f"{name} V{target.version} {target.title}".strip(),
            )
        found = self._reference(kind, mention.target, mention.text, key)
        found.reference, found.version = mention.label, target.version
        return found

    def _reference(self, kind: str, target: str, mention: str, key: str) -> Reference:
        doc = self.catalog.doc(key)
        if doc is None:
            return Reference(kind=kind, target=target, mention=mention, found=False)  # type: ignore[arg-type]
        spec = display_spec(key, doc.kind)
        missing = Reference(
            kind=kind,  # type: ignore[arg-type]
            target=target,
            mention=mention,
            found=False,
            spec=spec,
            note=f"{kind} {target} is not in {spec} V{doc.version}",
        )
        if kind == "clause":
            row = self.catalog.clause(key, target)
            if row is None:
                return missing
            text = f"{row.clause} {row.title}\n\n{row.body}".strip()
            citation = self._citation(doc, row)
        else:
            table = self.catalog.table(key, target)
            if table is None:
                return missing
            text = chunking.render_table(table.caption, table.header, table.rows, table.notes)
            citation = self._table_citation(doc, table)
        truncated = len(text) > REFERENCE_TEXT_CHARS
        return Reference(
            kind=kind,  # type: ignore[arg-type]
            target=target,
            mention=mention,
            found=True,
            spec=spec,
            citation=citation,
            text=text[:REFERENCE_TEXT_CHARS],
            truncated=truncated,
        )


def _window(top_k: int) -> int:
    """How deep in the fused list a sub-clause still counts as a match of the question."""
    return max(2 * top_k, DEEPEST_WINDOW)


def _rrf(
    lexical: list[tuple[int, float]], vector: list[tuple[int, float]]
) -> list[tuple[int, Scores]]:
    table: dict[int, Scores] = {}
    for rank, (cid, score) in enumerate(lexical, start=1):
        entry = table.setdefault(cid, Scores(fused=0.0))
        entry.bm25, entry.bm25_rank = round(score, 4), rank
        entry.fused += 1.0 / (RRF_K + rank)
    for rank, (cid, score) in enumerate(vector, start=1):
        entry = table.setdefault(cid, Scores(fused=0.0))
        entry.vector, entry.vector_rank = round(score, 4), rank
        entry.fused += 1.0 / (RRF_K + rank)
    for entry in table.values():
        entry.fused = round(entry.fused, 6)
    return sorted(table.items(), key=lambda item: -item[1].fused)


def _paginate(text: str, limit: int) -> list[str]:
    if len(text) <= limit:
        return [text]
    pages: list[str] = []
    current = ""
    for para in text.split("\n\n"):
        while len(para) > limit:
            if current:
                pages.append(current)
                current = ""
            cut = para.rfind("\n", 0, limit)
            cut = cut if cut > limit // 2 else limit
            pages.append(para[:cut])
            para = para[cut:].lstrip("\n")
        candidate = f"{current}\n\n{para}" if current else para
        if len(candidate) > limit:
            pages.append(current)
            current = para
        else:
            current = candidate
    if current:
        pages.append(current)
    return pages


def _sha256(handle: BinaryIO) -> str:
    digest = hashlib.sha256()
    handle.seek(0)
    for block in iter(lambda: handle.read(1 << 20), b""):
        digest.update(block)
    handle.seek(0)
    return digest.hexdigest()


def open_inside(workspace: Workspace, file: Path) -> BinaryIO:
    """Open a resolved workspace file and check what was opened is still inside it.

    The path was resolved with its links followed; a link swapped in between that check and
    the open would lead elsewhere, so the opened descriptor's own path is checked again.
    """
    handle = file.open("rb")
    opened = Path(os.path.realpath(f"/proc/self/fd/{handle.fileno()}"))
    if opened.exists() and workspace.root not in opened.parents:
        handle.close()
        raise InvalidInput(
            f"path: '{file.name}' resolves outside the workspace {workspace.root}",
            argument="path",
            hint="Copy the spec into the workspace; links out of it are refused.",
        )
    return handle


def _other_embedders(docs: Iterable[DocRow], keys: list[str] | None, current: str | None) -> str:
    """A note naming the searched specs of `docs` (those whose vectors the server's queries
    cannot read: another model's) and how to embed them again; BM25 alone searches them."""
    other = sorted(
        f"{display_spec(d.spec, d.kind)} ({d.embedder})"
        for d in docs
        if (keys is None or d.spec in keys) and d.embedder is not None
    )
    if not other:
        return ""
    return (
        f"embedded by another model than this server's {current}, searched with BM25 only: "
        f"{', '.join(other)}; ingest the same file again to embed it with {current}, or start "
        "the server with that spec's --embedder"
    )


def _exists(source: str, doc: ParsedDoc, stored: DocRow, started: float) -> IngestResult:
    name = display_spec(stored.spec, stored.kind)
    return IngestResult(
        status="exists",
        source=source,
        spec=display_spec(doc.spec, doc.kind),
        version=doc.version,
        seconds=round(time.perf_counter() - started, 3),
        error=ErrorInfo(
            message=f"{name} V{stored.version} is already in the store (from {stored.source}); "
            "nothing was changed",
            argument="replace",
            hint="Pass replace=true to replace the stored spec with this file.",
        ),
    )


def _bad_ingest(source: str, message: str, hint: str | None) -> IngestResult:
    return IngestResult(
        status="invalid_input",
        source=source,
        error=ErrorInfo(message=message, argument="path", hint=hint),
    )
