"""The Spec Librarian: blocks with 3GPP references get cited notes from the spec-rag server
before the RTL Engineer writes; an answer without citations is no answer."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml
from mcp import Client

from host.runs import create_run, execute_run
from host.state import StateStore
from servers.core.workspace import Workspace
from servers.iverilog.server import build as build_iverilog
from servers.spec_rag.server import build as build_spec_rag
from servers.verilator.server import build as build_verilator
from tests.spec_rag.corpus import SPEC_36212, write_docx

from .scenario import make_workspace, write_config, write_mcp_json

QUOTE = "gCRC24A(D)"


@pytest.mark.slow
def test_librarian_cites_or_gives_nothing(tmp_path: Path) -> None:
    blocks = ["counter", "counter_fix"]
    design = make_workspace(tmp_path, blocks)
    data = yaml.safe_load(design.read_text())
    for block in data["blocks"]:
        block["refs_3gpp"] = ["36.212 5.1.1"]
    design.write_text(yaml.safe_dump(data, sort_keys=False))
    config = write_config(tmp_path, blocks)
    script = tmp_path / "script.yaml"
    rules = yaml.safe_load(script.read_text())["rules"]
    search = {"query": "CRC-24A generator polynomial", "spec": "36.212", "top_k": 3}
    cited = {
        "found": True,
        "answer": "Transport-block CRC uses the 24-bit polynomial gCRC24A.",
        "citations": [{"spec": "36.212", "clause": "5.1.1", "quote": QUOTE}],
    }
    uncited = {"found": True, "answer": "It is CRC-24A, from memory.", "citations": []}
    rules[:0] = [
        {
            "match": ["Block: counter\n", "Step: librarian"],
            "turn": 0,
            "reply": {"tool_calls": [{"name": "search", "arguments": search}]},
        },
        {"match": ["Block: counter\n", "Step: librarian"], "reply": {"structured": cited}},
        {"match": ["Block: counter_fix\n", "Step: librarian"], "reply": {"structured": uncited}},
    ]
    script.write_text(yaml.safe_dump({"rules": rules}))

    (tmp_path / "specs").mkdir()
    write_docx(SPEC_36212, tmp_path / "specs" / "36212.docx")
    workspace = Workspace.open(tmp_path)
    # Lexical search only: the librarian plumbing does not need the embedding model.
    spec_rag = build_spec_rag(workspace, embedder="none")

    async def ingest_and_run() -> None:
        async with Client(spec_rag) as client:
            ingested = await client.call_tool("ingest", {"path": "specs/36212.docx"})
            assert not ingested.is_error, ingested.content
        mcp = str(write_mcp_json(tmp_path, []))
        run = create_run(design, tmp_path / "runs", str(config), mcp, run_id="lib")
        servers = {
            "iverilog": build_iverilog(workspace),
            "verilator": build_verilator(workspace),
            "spec_rag": spec_rag,
        }
        await execute_run(run, in_process=servers)

    asyncio.run(ingest_and_run())
    store = StateStore(tmp_path / "runs" / "lib" / "state.sqlite")
    steps = store.steps()
    calls = store.tool_calls()
    exchanges = [x for _, x in store.exchanges()]
    states = store.blocks()
    store.close()
    outcome = {r.block: r.outcome for _, r in steps if r.kind == "librarian"}
    # The librarian reads the library; it may not change it.
    offered = {t for x in exchanges if x.role == "spec_librarian" for t in x.tools}
    assert "search" in offered and not offered & {"ingest", "remove", "job_start"}
    assert outcome == {"counter": "answered", "counter_fix": "no_answer"}
    searched = [json.loads(c["result"]) for _, c in calls if c["tool"] == "search"]
    assert searched and searched[0]["status"] == "ok" and searched[0]["hits"]
    assert any(h["citation"]["clause"].startswith("5.1.1") for h in searched[0]["hits"])
    assert "Citations: 36.212 5.1.1" in (states["counter"].librarian_notes or "")
    assert states["counter_fix"].librarian_notes is None

    def write_prompt(block: str) -> str:
        return next(
            x.messages[-1].content
            for x in exchanges
            if x.role == "rtl_engineer" and x.correlation_id.startswith(block + "/")
        )

    assert "Spec Librarian notes (cited)" in write_prompt("counter") and QUOTE in write_prompt(
        "counter"
    )
    assert "Spec Librarian notes" not in write_prompt("counter_fix")
    # The uncited answer was refused: one repair turn, then no answer.
    refused = [
        x for x in exchanges if x.role == "spec_librarian" and "counter_fix" in x.correlation_id
    ]
    assert len(refused) == 2 and "no citation, no answer" in refused[1].messages[-1].content
