"""One transaction on an autocommit SQLite connection.

The host's stores open SQLite with ``isolation_level=None`` (autocommit, so a reader never
holds a lock it forgot). On such a connection ``with db:`` begins nothing: every statement
commits alone, and a process killed between two of them leaves half a step written. Every
multi-statement write goes through ``atomic`` instead."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def atomic(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE … COMMIT, rolled back on any exception (the write lock is taken at
    the start, so a second writer waits for it instead of failing half-way)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
