"""Reading memory stores from outside a run: the `agent-host memory` commands and the modem
server's `memory_search` tool share these."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
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


def store_folders(runs: Path, workspace: Path | None, run: str | None = None) -> list[Path]:
    """The project store of the workspace (when one is given) and the run's (the latest run's
    when none is named) store, those that exist."""
    folders = [workspace / PROJECT_DIR] if workspace is not None else []
    if run:
        folders.append(runs / run / RUN_DIR)
    elif runs.is_dir():
        latest = sorted(p for p in runs.iterdir() if (p / RUN_DIR / "notes.sqlite").exists())
        folders += [p / RUN_DIR for p in latest[-1:]]
    return [f for f in folders if (f / "notes.sqlite").exists()]


MAX_SNAPSHOT_BYTES = 256 << 20


class LinkedStore(ValueError):
    """A store folder in the workspace with a link (symbolic or hard) somewhere in it."""


def _copy_beneath(parent_fd: int, name: str, dest: Path, budget: list[int]) -> None:
    """Copy `name` (a folder or a regular file under `parent_fd`) into `dest` without
    following a link at any level; a link, a second name (hard link) or anything else refuses
    the whole copy."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        fd = os.open(name, flags, dir_fd=parent_fd)
    except OSError as exc:
        raise LinkedStore(f"{name}: {exc.strerror}") from exc
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            dest.mkdir(mode=0o700)
            for entry in os.listdir(fd):
                _copy_beneath(fd, entry, dest / entry, budget)
        elif stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
            budget[0] -= info.st_size
            if budget[0] < 0:
                raise LinkedStore("larger than a memory store may be")
            with os.fdopen(os.dup(fd), "rb") as source, dest.open("wb") as target:
                shutil.copyfileobj(source, target)
        else:
            raise LinkedStore(f"{name}: not a plain folder or file of its own")
    finally:
        os.close(fd)


@contextmanager
def workspace_store(workspace: Path) -> Iterator[Path | None]:
    """The workspace's project store, copied through descriptors that follow no link into a
    private folder (the search opens SQLite and ChromaDB by path, which would follow links and
    write beside what they point at); None when there is none, or it is not the workspace's
    own."""
    parts = PROJECT_DIR.parts
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_DIRECTORY
    fds = [os.open(workspace, flags)]
    private = Path(tempfile.mkdtemp(prefix="sa-memory-"))
    try:
        try:
            for part in parts[:-1]:
                fds.append(os.open(part, flags, dir_fd=fds[-1]))
            _copy_beneath(fds[-1], parts[-1], private / "store", [MAX_SNAPSHOT_BYTES])
        except (LinkedStore, FileNotFoundError, NotADirectoryError):
            yield None
            return
        except OSError:
            yield None
            return
        copy = private / "store"
        yield copy if (copy / "notes.sqlite").is_file() else None
    finally:
        for fd in fds:
            os.close(fd)
        shutil.rmtree(private, ignore_errors=True)


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
