"""A query's vector is computed once per embedder: a question asked again is not embedded
again, and a vector of one model never serves a store embedded with another."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import anyio
import numpy as np
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.spec_rag.api import SpecLibrary
from silicon_agent.servers.spec_rag.embedders import (
    EmbedderUnavailable,
    LocalMiniLM,
    make_embedder,
)

REPO = Path(__file__).resolve().parents[2]
QUESTION = "scrambling sequence generator initialisation c_init"


class Counting:
    """A real embedder that counts the texts it is asked to embed."""

    def __init__(self, inner: LocalMiniLM | object) -> None:
        self.inner = inner
        self.name = inner.name  # type: ignore[attr-defined]
        self.asked: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.asked.extend(texts)
        return self.inner.embed(texts)  # type: ignore[attr-defined]


@pytest.mark.anyio
async def test_a_question_asked_again_is_not_embedded_again_over_stdio(
    tmp_path: Path, corpus: dict[str, Path]
) -> None:
    shutil.copy(corpus["36211.docx"], tmp_path / "36211.docx")
    params = StdioServerParameters(
        command=str(Path(sys.executable).with_name("mcp-spec-rag")),
        args=["--workspace", str(tmp_path), "--embedder", "local"],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=str(tmp_path),
    )
    with anyio.fail_after(240):
        async with Client(params) as client:
            ingested = await client.call_tool("ingest", {"path": "36211.docx"})
            assert ingested.structured_content["vectors"] is True
            first = await client.call_tool("search", {"query": QUESTION, "top_k": 3})
            again = await client.call_tool("search", {"query": QUESTION, "top_k": 3})
            other = await client.call_tool("search", {"query": "PBCH", "top_k": 3})
    first_body, again_body = first.structured_content, again.structured_content
    assert first_body["retrievers"] == again_body["retrievers"] == ["bm25", "vector"]
    assert first_body["embed_ms"] > 0  # embedded the first time
    assert again_body["embed_ms"] == 0  # known: not embedded again
    assert other.structured_content["embed_ms"] > 0  # another text is
    assert again_body["hits"] == first_body["hits"]  # the same vector, the same answer


def test_another_embedder_never_gets_the_previous_models_vector(
    tmp_path: Path, corpus: dict[str, Path], minilm: LocalMiniLM
) -> None:
    pytest.importorskip("onnxruntime")
    second = make_embedder("onnx")
    assert second is not None
    try:
        second.embed(["probe"])
    except EmbedderUnavailable as exc:
        pytest.skip(str(exc))
    shutil.copy(corpus["36211.docx"], tmp_path / "36211.docx")
    old, new = Counting(minilm), Counting(second)
    library = SpecLibrary(Workspace.open(tmp_path), embedder=old)  # type: ignore[arg-type]
    assert asyncio.run(library.ingest("36211.docx")).vectors
    library.search_sync(QUESTION, top_k=5)
    library.search_sync(QUESTION, top_k=5)
    assert old.asked.count(QUESTION) == 1

    # the store re-ingested with another model: the question's old vector must not be used
    library.embedder = new  # type: ignore[assignment]
    assert asyncio.run(library.ingest("36211.docx", replace=True)).vectors
    found = library.search_sync(QUESTION, top_k=5)
    assert new.asked.count(QUESTION) == 1 and old.asked.count(QUESTION) == 1
    expected = library.search_sync(QUESTION, top_k=5, query_vector=second.embed([QUESTION])[0])
    assert [h.scores.vector for h in found.hits] == [h.scores.vector for h in expected.hits]
    assert found.embed_ms is not None and found.embed_ms > 0
