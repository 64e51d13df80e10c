"""Reading memory stores from outside a run: the `agent-host memory` commands and the modem
server's `memory_search` tool share these."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from .embedding import PackagedMiniLM
from .memory import PROJECT_DIR, RUN_DIR
from .notes import Note, Outcome
from .store import MemoryStore, nearest_of

MAX_QUERY = 2000
MAX_K = 10


class MemoryHit(BaseModel):
    id: str
    score: float
    outcome: Outcome
    block: str
    run: str
    text: str = Field(description="The note as a role sees it")


def store_folders(runs: Path, workspace: Path, run: str | None = None) -> list[Path]:
    """The project store of the workspace and the run's (the latest run's when none is named)
    store, those that exist."""
    folders = [workspace / PROJECT_DIR]
    if run:
        folders.append(runs / run / RUN_DIR)
    elif runs.is_dir():
        latest = sorted(p for p in runs.iterdir() if (p / RUN_DIR / "notes.sqlite").exists())
        folders += [p / RUN_DIR for p in latest[-1:]]
    return [f for f in folders if (f / "notes.sqlite").exists()]


def check_query(query: str, k: int) -> None:
    if not query.strip():
        raise ValueError("query: INVALID_INPUT: give the failure to look up (non-empty text)")
    if len(query) > MAX_QUERY:
        raise ValueError(f"query: INVALID_INPUT: at most {MAX_QUERY} characters")
    if not 1 <= k <= MAX_K:
        raise ValueError(f"k: INVALID_INPUT: between 1 and {MAX_K}")


def search(folders: list[Path], query: str, k: int = 3) -> list[MemoryHit]:
    check_query(query, k)
    embedder = PackagedMiniLM()
    vector = embedder.embed([query])[0]
    stores = [MemoryStore(folder, embedder) for folder in folders]
    try:
        return [hit(score, note) for score, note in nearest_of(stores, vector, None, k)]
    finally:
        for store in stores:
            store.close()


def hit(score: float, note: Note) -> MemoryHit:
    return MemoryHit(
        id=note.id,
        score=score,
        outcome=note.outcome,
        block=note.block,
        run=note.run,
        text=note.prompt_text(),
    )
