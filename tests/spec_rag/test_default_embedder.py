"""The default embedder is all-MiniLM-L6-v2 with int8 weights on ONNX Runtime. Stores other
embedders built are still read, through `mcp-spec-rag` over stdio as a client starts it: one
the previous default (the same model on torch) embedded is searched with its vectors as they
are; one another model embedded is searched with BM25 and a note naming that model, and
ingesting the same file again embeds it with the server's model without `replace`."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from silicon_agent.servers.spec_rag.embedders import EMBEDDER_ENV

REPO = Path(__file__).resolve().parents[2]
QUESTION = "scrambling sequence generator initialisation c_init"
DEFAULT = "onnx-int8:all-MiniLM-L6-v2"


def _server(workspace: Path, *args: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k != EMBEDDER_ENV}
    return StdioServerParameters(
        command=str(Path(sys.executable).with_name("mcp-spec-rag")),
        args=["--workspace", str(workspace), *args],
        env={**env, "PYTHONPATH": str(REPO)},
        cwd=str(workspace),
    )


async def _call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    body = (await client.call_tool(tool, arguments)).structured_content
    assert body is not None
    return body


def _clauses(found: dict[str, Any]) -> list[str]:
    return [h["citation"]["clause"] for h in found["hits"]]


async def _store_of(workspace: Path, corpus: dict[str, Path], embedder: str) -> dict[str, Any]:
    """The generated 36.211 stored by a server with `embedder`, and its answer to QUESTION."""
    pytest.importorskip("onnxruntime")
    shutil.copy(corpus["36211.docx"], workspace / "36211.docx")
    async with Client(_server(workspace, "--embedder", embedder)) as client:
        assert (await _call(client, "ingest", path="36211.docx"))["vectors"] is True
        return await _call(client, "search", query=QUESTION, top_k=5)


@pytest.mark.anyio
async def test_a_store_of_the_previous_default_is_searched_with_its_vectors_over_stdio(
    tmp_path: Path, corpus: dict[str, Path]
) -> None:
    with anyio.fail_after(300):
        before = await _store_of(tmp_path, corpus, "local")
        async with Client(_server(tmp_path)) as client:  # the default embedder
            listed = await _call(client, "list_specs")
            assert listed["embedder"] == DEFAULT
            assert [s["embedder"] for s in listed["specs"]] == ["local:all-MiniLM-L6-v2"]
            found = await _call(client, "search", query=QUESTION, top_k=5)
            # the same weights: the stored vectors are read, nothing to re-ingest
            assert found["retrievers"] == ["bm25", "vector"] and found["note"] is None
            assert _clauses(found) == _clauses(before)
            again = await _call(client, "ingest", path="36211.docx")
            assert again["status"] == "unchanged" and again["vectors"] is True


@pytest.mark.anyio
async def test_a_store_of_another_model_is_read_with_bm25_then_embedded_again_over_stdio(
    tmp_path: Path, corpus: dict[str, Path]
) -> None:
    other = "onnx:paraphrase-MiniLM-L3-v2"
    with anyio.fail_after(300):
        before = await _store_of(tmp_path, corpus, "onnx")
        async with Client(_server(tmp_path)) as client:
            # read, not refused: BM25 answers, and the note names the model and the remedy
            read = await _call(client, "search", query=QUESTION, top_k=5)
            assert read["status"] == "ok" and read["retrievers"] == ["bm25"]
            assert other in read["note"] and "ingest the same file again" in read["note"]
            assert _clauses(read)[0] == _clauses(before)[0]

            # the same file again: embedded with the server's model, no replace=true needed
            again = await _call(client, "ingest", path="36211.docx")
            assert again["status"] == "replaced" and again["vectors"] is True
            assert DEFAULT in again["note"] and other in again["note"]
            listed = await _call(client, "list_specs")
            assert [s["embedder"] for s in listed["specs"]] == [DEFAULT]
            now = await _call(client, "search", query=QUESTION, top_k=5)
            assert now["retrievers"] == ["bm25", "vector"] and now["note"] is None
            assert now["embed_ms"] > 0
