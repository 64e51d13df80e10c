"""BM25 (bm25s) over every chunk, with spec and content-type filters as a weight mask.

Rebuilt from the catalog's stored tokens when the catalog generation moves on, and saved
next to it so a restarted server loads it instead of re-indexing.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np

from .catalog import Catalog


class LexicalIndex:
    def __init__(self, catalog: Catalog, path: Path):
        self.catalog = catalog
        self.path = path
        self._lock = threading.Lock()
        self._generation = -1
        self._retriever = None
        self._ids = np.zeros(0, dtype=np.int64)
        self._specs = np.zeros(0, dtype=object)
        self._types = np.zeros(0, dtype=object)
        self._masks: dict[tuple[tuple[str, ...] | None, str | None], np.ndarray | None] = {}

    def _fresh(self) -> None:
        generation = self.catalog.generation
        if generation == self._generation:
            return
        with self._lock:
            if generation == self._generation:
                return
            if not self._load(generation):
                self._build(generation)
            self._masks = {}
            self._generation = generation

    def _build(self, generation: int) -> None:
        import bm25s

        ids: list[int] = []
        specs: list[str] = []
        types: list[str] = []
        corpus: list[list[str]] = []
        for cid, spec, ctype, toks in self.catalog.lexical_rows():
            ids.append(cid)
            specs.append(spec)
            types.append(ctype)
            corpus.append(toks.split() or ["\x00"])
        self._ids = np.array(ids, dtype=np.int64)
        self._specs = np.array(specs, dtype=object)
        self._types = np.array(types, dtype=object)
        if not corpus:
            self._retriever = None
            return
        retriever = bm25s.BM25()
        retriever.index(corpus, show_progress=False)
        self._retriever = retriever
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            retriever.save(str(self.path / "bm25"))
            np.save(self.path / "ids.npy", self._ids)
            (self.path / "meta.json").write_text(
                json.dumps({"generation": generation, "specs": specs, "types": types})
            )
        except OSError:
            pass  # a read-only store still searches; it just re-indexes after a restart

    def _load(self, generation: int) -> bool:
        import bm25s

        meta_path = self.path / "meta.json"
        try:
            meta = json.loads(meta_path.read_text())
            if meta.get("generation") != generation:
                return False
            self._retriever = bm25s.BM25.load(str(self.path / "bm25"))
            self._ids = np.load(self.path / "ids.npy")
            self._specs = np.array(meta["specs"], dtype=object)
            self._types = np.array(meta["types"], dtype=object)
            return True
        except (OSError, ValueError, KeyError):
            return False

    def _mask(self, specs: list[str] | None, content_type: str | None) -> np.ndarray | None:
        key = (tuple(sorted(specs)) if specs is not None else None, content_type)
        if key not in self._masks:
            if key == (None, None):
                self._masks[key] = None
            else:
                keep = np.ones(len(self._ids), dtype=bool)
                if specs is not None:
                    keep &= np.isin(self._specs, specs)
                if content_type is not None:
                    keep &= self._types == content_type
                self._masks[key] = keep.astype(np.float32)
        return self._masks[key]

    def warm(self) -> None:
        self._fresh()

    def search(
        self,
        query: list[str],
        k: int,
        specs: list[str] | None = None,
        content_type: str | None = None,
    ) -> list[tuple[int, float]]:
        """(chunk id, BM25 score) best first; only chunks with a positive score."""
        self._fresh()
        retriever = self._retriever
        if retriever is None:
            return []
        vocab = retriever.vocab_dict
        known = [t for t in query if t in vocab]
        if not known:
            return []
        mask = self._mask(specs, content_type)
        if mask is not None and not mask.any():
            return []
        k = min(k, len(self._ids))
        docs, scores = retriever.retrieve(
            [known], k=k, show_progress=False, weight_mask=mask, n_threads=1
        )
        out: list[tuple[int, float]] = []
        for index, score in zip(docs[0], scores[0], strict=True):
            if score > 0:
                out.append((int(self._ids[int(index)]), float(score)))
        return out
