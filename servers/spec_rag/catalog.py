"""The SQLite catalog: specs, their clauses (exact text), tables (rows) and search chunks."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .chunking import SpecContent
from .lexical_tokens import tokens

SCHEMA = """
PRAGMA journal_mode=WAL;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS docs (
    spec TEXT PRIMARY KEY, kind TEXT, version TEXT, title TEXT, source TEXT, sha256 TEXT,
    pages INTEGER, clauses INTEGER, tables INTEGER, chunks INTEGER, embedder TEXT,
    ingested_at REAL, formulas_extracted INTEGER DEFAULT 0, formulas_marked INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS clauses (
    spec TEXT, clause TEXT, title TEXT, level INTEGER, seq INTEGER, page INTEGER, path TEXT,
    body TEXT, PRIMARY KEY (spec, clause));
CREATE TABLE IF NOT EXISTS tables (
    spec TEXT, table_id TEXT, caption TEXT, clause TEXT, page INTEGER, header TEXT, rows TEXT,
    notes TEXT DEFAULT '[]', layout TEXT, PRIMARY KEY (spec, table_id));
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, spec TEXT, clause TEXT, title TEXT, path TEXT, content_type TEXT,
    page INTEGER, text TEXT, tokens TEXT);
CREATE INDEX IF NOT EXISTS chunks_spec ON chunks (spec);
"""
# columns added since the first schema: a store written before them gets them on open
_ADDED = (
    ("docs", "formulas_extracted INTEGER DEFAULT 0"),
    ("docs", "formulas_marked INTEGER DEFAULT 0"),
    ("tables", "notes TEXT DEFAULT '[]'"),
    ("tables", "layout TEXT"),
)


@dataclass
class DocRow:
    spec: str
    kind: str
    version: str
    title: str
    source: str
    sha256: str
    pages: int | None
    clauses: int
    tables: int
    chunks: int
    embedder: str | None
    ingested_at: float
    formulas_extracted: int = 0
    formulas_marked: int = 0


@dataclass
class TableRow:
    caption: str
    clause: str
    page: int | None
    header: list[str]
    rows: list[list[str]]
    notes: list[str]
    layout: dict[str, list[list[str]]] | None


@dataclass
class ClauseRow:
    spec: str
    clause: str
    title: str
    level: int
    seq: int
    page: int | None
    path: str
    body: str


@dataclass
class ChunkRow:
    id: int
    spec: str
    clause: str
    title: str
    path: str
    content_type: str
    page: int | None
    text: str


class Catalog:
    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.RLock()
        self._local = threading.local()
        with self._conn() as db:
            db.executescript(SCHEMA)
            for table, column in _ADDED:
                have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
                if column.split()[0] not in have:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
            db.commit()

    @contextmanager
    def _conn(self) -> Iterator[sqlite3.Connection]:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30)
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db
        yield db

    @property
    def generation(self) -> int:
        """Bumped on every change, so derived indexes know when they are stale."""
        with self._conn() as db:
            row = db.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
        return int(row[0]) if row else 0

    def _bump(self, db: sqlite3.Connection) -> None:
        db.execute(
            "INSERT INTO meta VALUES ('generation', '1') ON CONFLICT(key) DO UPDATE SET "
            "value = CAST(value AS INTEGER) + 1"
        )

    # ---- writes ------------------------------------------------------------------------

    def replace(
        self,
        content: SpecContent,
        source: str,
        sha256: str,
        embedder: str | None,
    ) -> list[int]:
        """Store one spec (dropping its old rows); returns the new chunk ids in order."""
        doc = content.doc
        with self._lock, self._conn() as db:
            self._delete(db, doc.spec)
            db.execute(
                "INSERT INTO docs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    doc.spec,
                    doc.kind,
                    doc.version,
                    doc.title,
                    source,
                    sha256,
                    doc.pages,
                    len(content.clauses),
                    len(content.tables),
                    len(content.chunks),
                    embedder,
                    time.time(),
                    doc.formulas_extracted,
                    doc.formulas_marked,
                ),
            )
            db.executemany(
                "INSERT INTO clauses VALUES (?,?,?,?,?,?,?,?)",
                [
                    (doc.spec, c.clause, c.title, c.level, c.seq, c.page, c.path, c.body)
                    for c in content.clauses
                ],
            )
            db.executemany(
                "INSERT OR REPLACE INTO tables VALUES (?,?,?,?,?,?,?,?,?)",
                [
                    (
                        doc.spec,
                        t.table_id,
                        t.caption,
                        t.clause,
                        t.page,
                        json.dumps(t.header),
                        json.dumps(t.rows),
                        json.dumps(t.notes),
                        json.dumps(t.layout) if t.layout is not None else None,
                    )
                    for t in content.tables
                ],
            )
            ids: list[int] = []
            for chunk in content.chunks:
                lexical = " ".join(tokens(f"{chunk.path}\n{chunk.text}"))
                cursor = db.execute(
                    "INSERT INTO chunks (spec, clause, title, path, content_type, page, text, "
                    "tokens) VALUES (?,?,?,?,?,?,?,?)",
                    (
                        doc.spec,
                        chunk.clause,
                        chunk.title,
                        chunk.path,
                        chunk.content_type,
                        chunk.page,
                        chunk.text,
                        lexical,
                    ),
                )
                ids.append(int(cursor.lastrowid or 0))
            self._bump(db)
            db.commit()
        return ids

    def set_embedder(self, spec: str, embedder: str | None) -> None:
        with self._lock, self._conn() as db:
            db.execute("UPDATE docs SET embedder=? WHERE spec=?", (embedder, spec))
            db.commit()

    def remove(self, spec: str) -> int:
        with self._lock, self._conn() as db:
            removed = self._delete(db, spec)
            self._bump(db)
            db.commit()
        return removed

    def _delete(self, db: sqlite3.Connection, spec: str) -> int:
        count = db.execute("SELECT COUNT(*) FROM chunks WHERE spec=?", (spec,)).fetchone()[0]
        for table in ("docs", "clauses", "tables", "chunks"):
            db.execute(f"DELETE FROM {table} WHERE spec=?", (spec,))
        return int(count)

    # ---- reads -------------------------------------------------------------------------

    def docs(self) -> list[DocRow]:
        with self._conn() as db:
            rows = db.execute("SELECT * FROM docs ORDER BY spec").fetchall()
        return [DocRow(*row) for row in rows]

    def doc(self, spec: str) -> DocRow | None:
        with self._conn() as db:
            row = db.execute("SELECT * FROM docs WHERE spec=?", (spec,)).fetchone()
        return DocRow(*row) if row else None

    def doc_by_source(self, source: str) -> DocRow | None:
        with self._conn() as db:
            row = db.execute("SELECT * FROM docs WHERE source=?", (source,)).fetchone()
        return DocRow(*row) if row else None

    def clause(self, spec: str, clause: str) -> ClauseRow | None:
        with self._conn() as db:
            row = db.execute(
                "SELECT * FROM clauses WHERE spec=? AND clause=?", (spec, clause)
            ).fetchone()
        return ClauseRow(*row) if row else None

    def subtree(self, spec: str, clause: str) -> list[ClauseRow]:
        """The clause and its sub-clauses in document order."""
        with self._conn() as db:
            rows = db.execute(
                "SELECT * FROM clauses WHERE spec=? AND (clause=? OR clause LIKE ?) ORDER BY seq",
                (spec, clause, clause.replace("_", r"\_") + ".%"),
            ).fetchall()
        return [ClauseRow(*row) for row in rows]

    def clause_ids(self, spec: str) -> list[str]:
        with self._conn() as db:
            rows = db.execute(
                "SELECT clause FROM clauses WHERE spec=? ORDER BY seq", (spec,)
            ).fetchall()
        return [r[0] for r in rows]

    def table(self, spec: str, table_id: str) -> TableRow | None:
        with self._conn() as db:
            row = db.execute(
                "SELECT caption, clause, page, header, rows, notes, layout FROM tables WHERE "
                "spec=? AND table_id=?",
                (spec, table_id),
            ).fetchone()
        if row is None:
            return None
        return TableRow(
            row[0],
            row[1],
            row[2],
            json.loads(row[3]),
            json.loads(row[4]),
            json.loads(row[5] or "[]"),
            json.loads(row[6]) if row[6] else None,
        )

    def table_ids(self, spec: str) -> list[str]:
        with self._conn() as db:
            rows = db.execute("SELECT table_id FROM tables WHERE spec=?", (spec,)).fetchall()
        return [r[0] for r in rows]

    def chunks(self, ids: list[int]) -> dict[int, ChunkRow]:
        if not ids:
            return {}
        with self._conn() as db:
            marks = ",".join("?" * len(ids))
            rows = db.execute(
                "SELECT id, spec, clause, title, path, content_type, page, text FROM chunks "
                f"WHERE id IN ({marks})",
                ids,
            ).fetchall()
        return {row[0]: ChunkRow(*row) for row in rows}

    def chunk_texts(self, spec: str) -> list[tuple[int, str, str]]:
        """(id, path, text) of a spec's chunks, for embedding."""
        with self._conn() as db:
            return db.execute(
                "SELECT id, path, text FROM chunks WHERE spec=? ORDER BY id", (spec,)
            ).fetchall()

    def lexical_rows(self) -> Iterator[tuple[int, str, str, str]]:
        """(id, spec, content_type, tokens) of every chunk, for the BM25 index."""
        with self._conn() as db:
            yield from db.execute("SELECT id, spec, content_type, tokens FROM chunks ORDER BY id")
