"""Embedding endpoints over real HTTP: a loopback server speaking Ollama's /api/embed and the
OpenAI-style /v1/embeddings wire formats (the model behind them is a word-hashing stand-in)."""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.spec_rag.api import SpecLibrary
from silicon_agent.servers.spec_rag.embedders import (
    EmbedderUnavailable,
    HttpEmbedder,
    make_embedder,
)
from silicon_agent.servers.spec_rag.lexical_tokens import tokens

DIM = 96


def _vector(text: str) -> list[float]:
    vec = np.zeros(DIM)
    for token in tokens(text):
        vec[int(hashlib.md5(token.encode()).hexdigest(), 16) % DIM] += 1.0
    return vec.tolist()


class _Handler(BaseHTTPRequestHandler):
    requests: list[tuple[str, dict]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Handler.requests.append((self.path, body))
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        if self.path == "/api/embed":
            reply = {"model": body["model"], "embeddings": [_vector(t) for t in inputs]}
        elif self.path == "/v1/embeddings":
            reply = {
                "object": "list",
                "model": body["model"],
                "data": [
                    {"object": "embedding", "index": i, "embedding": _vector(t)}
                    for i, t in reversed(list(enumerate(inputs)))
                ],
            }
        else:
            self.send_error(404)
            return
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Handler.requests.clear()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_wire_formats(endpoint: str) -> None:
    for flavour, path in (("ollama", "/api/embed"), ("openai", "/v1/embeddings")):
        embedder = make_embedder(f"{flavour}:nomic-embed-text", endpoint)
        assert isinstance(embedder, HttpEmbedder)
        vectors = embedder.embed(["CRC-24A polynomial", "turbo interleaver", "CRC-24A"])
        assert vectors.shape == (3, DIM)
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
        assert vectors[0] @ vectors[2] > vectors[0] @ vectors[1]  # order kept (openai reversed)
        sent_path, sent = _Handler.requests[-1]
        assert sent_path == path and sent["model"] == "nomic-embed-text"


@pytest.mark.anyio
async def test_ollama_endpoint_drives_hybrid_search(endpoint: str, tmp_path: Path, corpus) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(corpus["36211.pdf"], tmp_path / "36211.pdf")
    library = SpecLibrary(
        Workspace.open(tmp_path), embedder=make_embedder("ollama:nomic-embed-text", endpoint)
    )
    ingested = await library.ingest("36211.pdf")
    assert ingested.status == "ingested" and ingested.vectors
    result = await library.search("Gold sequence Nc 1600 initialisation")
    assert result.retrievers == ["bm25", "vector"]
    assert result.hits[0].citation.clause == "7.2"
    assert any(h.scores.vector is not None for h in result.hits)


@pytest.mark.anyio
async def test_endpoint_down_falls_back_to_bm25(tmp_path: Path, corpus) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(corpus["36211.pdf"], tmp_path / "36211.pdf")
    dead = HttpEmbedder("ollama", "nomic-embed-text", "http://127.0.0.1:9", timeout_s=2)
    with pytest.raises(EmbedderUnavailable):
        dead.embed(["x"])
    library = SpecLibrary(Workspace.open(tmp_path), embedder=dead)
    ingested = await library.ingest("36211.pdf")
    assert ingested.status == "ingested" and not ingested.vectors
    assert "embedder unavailable" in (ingested.note or "")
    result = await library.search("Gold sequence")
    assert result.status == "ok" and result.retrievers == ["bm25"]
    assert "BM25 only" in (result.note or "")
