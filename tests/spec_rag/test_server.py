"""The MCP layer: tools, resource, prompt, job tools, manifest and the console script."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from silicon_agent.servers.core.manifest import live_manifest, manifest_path
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.spec_rag.server import build

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.anyio


async def test_manifest_matches_the_committed_golden_file() -> None:
    live = await live_manifest("spec_rag")
    committed = json.loads(manifest_path("spec_rag").read_text())
    assert live == committed
    assert {
        "search",
        "fetch_section",
        "resolve_references",
        "extract_table",
        "list_specs",
        "ingest",
        "remove",
    } <= set(live["tools"])
    assert "spec_librarian" in live["prompts"]
    assert "role_spec_librarian" in live["prompts"]


async def test_tools_resource_and_prompt_in_process(tmp_path: Path, corpus) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(corpus["36212.pdf"], tmp_path / "36212.pdf")
    server = build(Workspace.open(tmp_path), embedder="none")
    async with Client(server) as client:
        progress: list[float] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(value)

        ingested = await client.call_tool(
            "ingest", {"path": "36212.pdf"}, progress_callback=on_progress
        )
        assert not ingested.is_error
        assert ingested.structured_content["status"] == "ingested"
        assert progress and max(progress) == 100

        found = await client.call_tool(
            "search", {"query": "Table 5.1.3-3", "top_k": 3, "content_type": "table"}
        )
        hits = found.structured_content["hits"]
        assert found.structured_content["retrievers"] == ["bm25"]
        assert "BM25 only" in found.structured_content["note"]
        assert hits[0]["citation"] == {
            "spec": "TS 36.212",
            "version": "15.6.0",
            "clause": "5.1.3.2.3",
            "title": "Turbo code internal interleaver",
            "page": 4,
        }

        table = await client.call_tool(
            "extract_table", {"spec": "TS 136 212", "table_id": "Table 5.1.3-3"}
        )
        assert table.structured_content["row_count"] == 188
        assert table.structured_content["rows"][0] == ["1", "40", "3", "10"]

        section = await client.call_tool("fetch_section", {"spec": "36.212", "clause": "5.1.3.2"})
        body = section.structured_content
        assert body["status"] == "found" and body["subclauses"] == [
            "5.1.3.2.1",
            "5.1.3.2.2",
            "5.1.3.2.3",
        ]
        assert body["text"].startswith("5.1.3.2 Turbo coding\n\n5.1.3.2.1 Turbo encoder")
        assert "Π(i) = (f_1 · i + f_2 · i^2) mod K" in body["text"]

        missing = await client.call_tool("fetch_section", {"spec": "36.212", "clause": "5.7"})
        assert not missing.is_error and missing.structured_content["status"] == "not_found"

        refs = await client.call_tool(
            "resolve_references", {"spec": "36.212", "clause": "5.1.3.2.1"}
        )
        targets = {(r["kind"], r["target"]): r for r in refs.structured_content["references"]}
        interleaver = targets[("clause", "5.1.3.2.3")]
        assert interleaver["found"] and interleaver["citation"]["page"] == 3
        assert interleaver["text"].startswith("5.1.3.2.3 Turbo code internal interleaver")

        resource = await client.read_resource("spec://36.212/5.1.1")
        text = resource.contents[0].text
        assert text.startswith("[TS 36.212 V15.6.0, clause 5.1.1, p. 2]")
        assert "g_CRC24A(D) = [D^24" in text

        with pytest.raises(Exception, match="clause 9.9 is not in TS 36.212"):
            await client.read_resource("spec://36.212/9.9")

        prompt = await client.get_prompt("spec_librarian", {"question": "CRC-24A polynomial?"})
        rules = prompt.messages[0].content.text
        assert "No citation, no answer" in rules and "CRC-24A polynomial?" in rules

        listed = await client.call_tool("list_specs", {})
        assert [s["key"] for s in listed.structured_content["specs"]] == ["36.212"]
        removed = await client.call_tool("remove", {"spec": "36.212"})
        assert removed.structured_content["status"] == "removed"


async def test_ingest_as_a_job(tmp_path: Path, corpus) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(corpus["36211.pdf"], tmp_path / "36211.pdf")
    server = build(Workspace.open(tmp_path), embedder="none")
    async with Client(server) as client:
        started = await client.call_tool(
            "job_start", {"operation": "ingest", "arguments": {"path": "36211.pdf"}}
        )
        job = started.structured_content["job_id"]
        done = await client.call_tool("job_result", {"job_id": job, "wait_s": 45})
        assert done.structured_content["state"] == "done"
        assert done.structured_content["result"]["spec"] == "TS 36.211"
        bad = await client.call_tool(
            "job_start", {"operation": "ingest", "arguments": {"path": "../x.pdf"}}
        )
        result = await client.call_tool(
            "job_result", {"job_id": bad.structured_content["job_id"], "wait_s": 10}
        )
        assert result.structured_content["result"]["status"] == "invalid_input"


async def test_console_script_over_stdio(tmp_path: Path, corpus) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(corpus["36211.docx"], tmp_path / "36211.docx")
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "silicon_agent.servers.spec_rag.server",
            "--workspace",
            str(tmp_path),
            "--embedder",
            "none",
            "--store",
            str(tmp_path / "store"),
        ],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )
    with anyio.fail_after(90):
        async with Client(params) as client:
            ingested = await client.call_tool("ingest", {"path": "36211.docx"})
            assert ingested.structured_content["status"] == "ingested"
            hit = await client.call_tool("search", {"query": "c_init scrambling", "top_k": 1})
            citation = hit.structured_content["hits"][0]["citation"]
            assert citation == {
                "spec": "TS 36.211",
                "version": "15.5.0",
                "clause": "6.3.1",
                "title": "Scrambling",
            }  # a DOCX has no pages: the field is left out, not sent as null
    assert (tmp_path / "store" / "catalog.sqlite").is_file()
