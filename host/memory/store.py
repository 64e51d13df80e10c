"""One memory store in a folder: SQLite holds the notes, their links, the design context and
the refused writes (WAL, one transaction per change); ChromaDB holds the notes' vectors. SQLite
is the truth: a note is committed before its vector is added and marked embedded after, so a
store killed between the two is mended when it is next opened (missing vectors added, vectors
of forgotten notes removed)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np

from ..llm.gateway import now_iso
from ..sqlite_tx import atomic
from .embedding import Embedder
from .notes import Link, Note, Outcome, Signature

SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (
    id TEXT PRIMARY KEY, run TEXT NOT NULL, block TEXT NOT NULL, iteration INTEGER NOT NULL,
    outcome TEXT NOT NULL, body TEXT NOT NULL, embedded INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS links (
    source TEXT NOT NULL, target TEXT NOT NULL, kind TEXT NOT NULL,
    PRIMARY KEY (source, target, kind));
CREATE TABLE IF NOT EXISTS context (
    run TEXT NOT NULL, block TEXT NOT NULL, body TEXT NOT NULL, at TEXT NOT NULL,
    PRIMARY KEY (run, block));
CREATE TABLE IF NOT EXISTS refusals (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, run TEXT NOT NULL,
    block TEXT NOT NULL, reasons TEXT NOT NULL);
"""
COLLECTION = "notes"
# Structured nearness on top of the text's: the same failure category, signal, tool code.
BOOST = {"category": 0.1, "signal": 0.1, "tool_code": 0.05}


class MemoryStore:
    def __init__(self, folder: Path, embedder: Embedder) -> None:
        import chromadb
        from chromadb.config import Settings

        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.embedder = embedder
        self.db = sqlite3.connect(folder / "notes.sqlite", isolation_level=None, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA)
        client = chromadb.PersistentClient(
            path=str(folder / "chroma"), settings=Settings(anonymized_telemetry=False)
        )
        self.vectors = client.get_or_create_collection(
            COLLECTION, embedding_function=None, metadata={"hnsw:space": "cosine"}
        )
        self.mend()

    def close(self) -> None:
        self.db.close()

    # --- consistency ----------------------------------------------------------------------
    def mend(self) -> dict[str, int]:
        """Bring the vectors in line with the notes after a crash."""
        ids = {row[0] for row in self.db.execute("SELECT id FROM notes")}
        stored = set(self.vectors.get(include=[])["ids"])
        orphans = sorted(stored - ids)
        if orphans:
            self.vectors.delete(ids=orphans)
        pending = [
            Note.model_validate_json(body)
            for (body,) in self.db.execute("SELECT body FROM notes WHERE embedded = 0")
        ]
        pending += [n for n in self.notes() if n.id not in stored and n not in pending]
        for note in pending:
            self._embed(note, self.embedder.embed([note.search_text()])[0])
        return {"orphans": len(orphans), "embedded": len(pending)}

    def _embed(self, note: Note, vector: np.ndarray) -> None:
        self.vectors.upsert(
            ids=[note.id],
            embeddings=[vector.tolist()],
            metadatas=[{"block": note.block, "run": note.run, "category": note.signature.category}],
        )
        with atomic(self.db):
            self.db.execute("UPDATE notes SET embedded = 1 WHERE id = ?", (note.id,))

    # --- notes ---------------------------------------------------------------------------
    def add(self, note: Note, vector: np.ndarray | None = None) -> Note:
        note.created_at = note.created_at or now_iso()
        note.updated_at = now_iso()
        with atomic(self.db):
            self.db.execute(
                "INSERT OR REPLACE INTO notes VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)",
                (
                    note.id,
                    note.run,
                    note.block,
                    note.iteration,
                    note.outcome.value,
                    note.model_dump_json(),
                    note.created_at,
                    note.updated_at,
                ),
            )
            for link in note.links:
                self.db.execute(
                    "INSERT OR IGNORE INTO links VALUES (?, ?, ?)",
                    (note.id, link.target, link.kind),
                )
        if vector is None:
            vector = self.embedder.embed([note.search_text()])[0]
        self._embed(note, vector)
        return note

    def get(self, note_id: str) -> Note | None:
        row = self.db.execute("SELECT body FROM notes WHERE id = ?", (note_id,)).fetchone()
        if row is None:
            return None
        note = Note.model_validate_json(row[0])
        note.links = [
            Link(target=t, kind=k)
            for t, k in self.db.execute(
                "SELECT target, kind FROM links WHERE source = ? ORDER BY rowid", (note_id,)
            )
        ]
        return note

    def notes(self, block: str | None = None) -> list[Note]:
        query, args = "SELECT id FROM notes", ()
        if block:
            query, args = query + " WHERE block = ?", (block,)
        ids = [row[0] for row in self.db.execute(query + " ORDER BY created_at, id", args)]
        return [n for n in (self.get(i) for i in ids) if n is not None]

    def update(self, note_id: str, **changes: Any) -> Note | None:
        """Change a note's outcome or counters; the text (and so its vector) stays."""
        with atomic(self.db):
            row = self.db.execute("SELECT body FROM notes WHERE id = ?", (note_id,)).fetchone()
            if row is None:
                return None
            note = Note.model_validate_json(row[0]).model_copy(update=changes)
            note = Note.model_validate(note.model_dump())
            note.updated_at = now_iso()
            self.db.execute(
                "UPDATE notes SET outcome = ?, body = ?, updated_at = ? WHERE id = ?",
                (note.outcome.value, note.model_dump_json(), note.updated_at, note_id),
            )
        return note

    def link(self, source: str, target: str, kind: str) -> None:
        with atomic(self.db):
            self.db.execute("INSERT OR IGNORE INTO links VALUES (?, ?, ?)", (source, target, kind))

    def forget(self, note_id: str) -> bool:
        with atomic(self.db):
            gone = self.db.execute("DELETE FROM notes WHERE id = ?", (note_id,)).rowcount
            self.db.execute("DELETE FROM links WHERE source = ? OR target = ?", (note_id, note_id))
        self.vectors.delete(ids=[note_id])
        return bool(gone)

    def has_vector(self, note_id: str) -> bool:
        return bool(self.vectors.get(ids=[note_id], include=[])["ids"])

    # --- retrieval -------------------------------------------------------------------------
    def nearest(
        self,
        vector: np.ndarray,
        signature: Signature | None,
        k: int,
        exclude: frozenset[str] = frozenset(),
    ) -> list[tuple[float, Note]]:
        """Top k closed notes (an open note is no evidence yet) by text and signature."""
        count = self.vectors.count()
        if count == 0:
            return []
        found = self.vectors.query(
            query_embeddings=[vector.tolist()],
            n_results=min(count, max(20, 5 * k)),
            include=["distances"],
        )
        scored = []
        for note_id, distance in zip(found["ids"][0], found["distances"][0], strict=True):
            note = self.get(note_id)
            if note is None or note.id in exclude or note.outcome == Outcome.OPEN:
                continue
            score = 1.0 - float(distance)
            if signature is not None:
                for field, weight in BOOST.items():
                    mine = getattr(signature, field)
                    if mine and mine == getattr(note.signature, field):
                        score += weight
            scored.append((round(score, 4), note))
        scored.sort(key=lambda pair: -pair[0])
        return scored[:k]

    # --- design context and refusals ---------------------------------------------------------
    def put_context(self, run: str, block: str, body: dict[str, Any]) -> None:
        with atomic(self.db):
            self.db.execute(
                "INSERT OR REPLACE INTO context VALUES (?, ?, ?, ?)",
                (run, block, json.dumps(body), now_iso()),
            )

    def context(self, run: str) -> dict[str, dict[str, Any]]:
        rows = self.db.execute("SELECT block, body FROM context WHERE run = ? ORDER BY at", (run,))
        return {block: json.loads(body) for block, body in rows}

    def refuse(self, run: str, block: str, reasons: list[str]) -> None:
        with atomic(self.db):
            self.db.execute(
                "INSERT INTO refusals (at, run, block, reasons) VALUES (?, ?, ?, ?)",
                (now_iso(), run, block, json.dumps(reasons)),
            )

    def refusals(self) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT at, run, block, reasons FROM refusals ORDER BY id")
        return [{"at": a, "run": r, "block": b, "reasons": json.loads(x)} for a, r, b, x in rows]

    def dump_text(self) -> str:
        """Everything stored as text (for scans)."""
        parts = [body for (body,) in self.db.execute("SELECT body FROM notes")]
        parts += [body for (body,) in self.db.execute("SELECT body FROM context")]
        got = self.vectors.get(include=["metadatas"])
        parts += [json.dumps(m) for m in got["metadatas"] or []]
        return "\n".join(parts)


def nearest_of(
    stores: list[MemoryStore],
    vector: np.ndarray,
    signature: Signature | None,
    k: int,
    exclude: frozenset[str] = frozenset(),
) -> list[tuple[float, Note]]:
    """The top k of several stores, a note held by more than one counted once."""
    found: dict[str, tuple[float, Note]] = {}
    for store in stores:
        for score, note in store.nearest(vector, signature, k, exclude):
            if note.id not in found or found[note.id][0] < score:
                found[note.id] = (score, note)
    return sorted(found.values(), key=lambda pair: -pair[0])[:k]
