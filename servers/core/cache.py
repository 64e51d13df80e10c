"""Result cache keyed by tool version, options and the content of every input file."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from blake3 import blake3
from pydantic import BaseModel

from .workspace import Workspace, atomic_write

NO_CACHE_ENV = "SILICON_AGENT_NO_CACHE"
M = TypeVar("M", bound=BaseModel)
_MAX_DIR_FILES = 2000


def file_digest(path: Path) -> str:
    """BLAKE3 of the file's bytes: cryptographic, so a crafted input cannot collide with
    another's key, and about 4x faster than SHA-256 here, which matters for big dumps."""
    digest = blake3()
    with path.open("rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def tree_digest(path: Path) -> str:
    """Digest of a directory's files (names and contents), bounded in size."""
    digest = hashlib.sha256()
    # is_file() follows links but a FIFO is not a file: only regular files are ever opened.
    files = sorted(p for p in path.rglob("*") if p.is_file())[:_MAX_DIR_FILES]
    for item in files:
        digest.update(item.relative_to(path).as_posix().encode())
        digest.update(file_digest(item).encode())
    return digest.hexdigest()


def _content(path: Path) -> str:
    return tree_digest(path) if path.is_dir() else file_digest(path)


class CacheKey(str):
    """A cache key that remembers the input digests it was made from, so that a result is
    stored only if its inputs still read the same once the run is over: a file edited while
    a tool ran must not leave the old content's key holding the new content's result."""

    inputs: tuple[tuple[Path, str], ...]

    def __new__(cls, digest: str, inputs: tuple[tuple[Path, str], ...]) -> CacheKey:
        key = super().__new__(cls, digest)
        key.inputs = inputs
        return key

    def changed_inputs(self) -> list[Path]:
        """The inputs whose content is no longer what the key was made from."""
        changed = []
        for path, digest in self.inputs:
            try:
                now = _content(path)
            except OSError:
                now = ""
            if now != digest:
                changed.append(path)
        return changed


class ResultCache:
    def __init__(self, workspace: Workspace, namespace: str):
        self.workspace = workspace
        self.namespace = namespace
        self.enabled = os.environ.get(NO_CACHE_ENV, "") in ("", "0")

    def key(
        self,
        *,
        tool_version: str | None,
        operation: str,
        options: Mapping[str, Any],
        files: Iterable[Path],
    ) -> CacheKey:
        inputs = tuple((p, _content(p)) for p in files)
        content = {str(self.workspace.relative(p)): digest for p, digest in inputs}
        blob = json.dumps(
            {
                "ns": self.namespace,
                "version": tool_version,
                "op": operation,
                "options": options,
                "files": content,
            },
            sort_keys=True,
            default=str,
        )
        return CacheKey(hashlib.sha256(blob.encode()).hexdigest(), inputs)

    def _path(self, key: str) -> Path:
        return self.workspace.keep_dir("cache", self.namespace, key[:2]) / f"{key}.json"

    def get(self, key: str, model: type[M]) -> M | None:
        if not self.enabled:
            return None
        path = self._path(key)
        try:
            result = model.model_validate_json(path.read_bytes())
        except (OSError, ValueError):
            return None
        artifacts = getattr(result, "artifacts", {}) or {}
        if any(not (self.workspace.root / rel).exists() for rel in artifacts.values()):
            return None
        return result

    def put(self, key: str, result: BaseModel) -> list[Path]:
        """Store a result unless an input changed since the key was made (whether or not the
        cache is on); returns the inputs that changed, and then nothing is stored."""
        changed = key.changed_inputs() if isinstance(key, CacheKey) else []
        if self.enabled and not changed:
            atomic_write(self._path(key), result.model_dump_json())
        return changed
