"""The ONNX Runtime embedder (extra `rag-onnx`): packaged weights, unit vectors, meaning kept."""

from __future__ import annotations

import numpy as np
import pytest

from silicon_agent.servers.spec_rag.embedders import EmbedderUnavailable, OnnxMiniLM, make_embedder

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
