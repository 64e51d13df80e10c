"""The Spec Librarian: blocks with 3GPP references get cited notes from the spec-rag server
before the RTL Engineer writes; an answer without citations is no answer."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
import yaml
from mcp import Client

from silicon_agent.host.run_setup import create_run
from silicon_agent.host.runs import execute_run
from silicon_agent.host.state import StateStore
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.server import build as build_iverilog
from silicon_agent.servers.spec_rag.server import build as build_spec_rag
from silicon_agent.servers.verilator.server import build as build_verilator
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
    # An uncited answer is dropped; the clause as the store holds it goes on, cited.
    fix_notes = states["counter_fix"].librarian_notes or ""
    assert "from memory" not in fix_notes
    assert fix_notes.startswith("Excerpt [TS 36.212 5.1.1") and "CRC calculation" in fix_notes

    def write_prompt(block: str) -> str:
        return next(
            x.messages[-1].content
            for x in exchanges
            if x.role == "rtl_engineer" and x.correlation_id.startswith(block + "/")
        )

    assert "Spec Librarian notes (cited)" in write_prompt("counter") and QUOTE in write_prompt(
        "counter"
    )
    assert "from memory" not in write_prompt("counter_fix")
    # The uncited answer was refused: one repair turn, then no answer.
    refused = [
        x for x in exchanges if x.role == "spec_librarian" and "counter_fix" in x.correlation_id
    ]
    assert len(refused) == 2 and "no citation, no answer" in refused[1].messages[-1].content


@pytest.mark.slow
def test_librarian_runs_with_the_repositorys_own_mcp_json(tmp_path: Path) -> None:
    """The receiver's registry run as a new user would: the servers exactly as the
    repository's mcp.json names them, a generated 36.212 ingested into the design's own spec
    store; the clause the block cites reaches the RTL Engineer's prompt with its citation."""
    from silicon_agent.host.mcp_client import REPO_ROOT, ServerPool, load_mcp_config

    shutil.copytree(REPO_ROOT / "hdl", tmp_path / "hdl", ignore=shutil.ignore_patterns("examples"))
    (tmp_path / "specs").mkdir()
    write_docx(SPEC_36212, tmp_path / "specs" / "36212.docx")
    repo_mcp = load_mcp_config(REPO_ROOT / "mcp.json")
    (store_name,) = [n for n in repo_mcp.mcpServers if n.replace("-", "_") == "spec_rag"]

    async def ingest() -> None:
        async with ServerPool(repo_mcp, workspace=tmp_path, only=[store_name]) as pool:
            result = await pool.call(store_name, "ingest", {"path": "specs/36212.docx"}, 600)
            assert result["status"] == "ingested", result

    asyncio.run(ingest())
    config = write_config(tmp_path, [])
    settings = yaml.safe_load(config.read_text())
    settings["limits"].update(max_iterations=1, smoke_testbench=False)
    config.write_text(yaml.safe_dump(settings))
    cited = {
        "found": True,
        "answer": "The checker divides by gCRC24A or gCRC24B.",
        "citations": [{"spec": "36.212", "clause": "5.1.1", "quote": QUOTE}],
    }
    code = (REPO_ROOT / "hdl" / "rtl" / "crc_checker.sv").read_text()
    rules = [
        {"match": ["Block: crc_checker\n", "Step: librarian"], "reply": {"structured": cited}},
        {"match": ["Block: crc_checker\n", "Step: write"], "reply": {"structured": {"code": code}}},
    ]
    (tmp_path / "script.yaml").write_text(yaml.safe_dump({"rules": rules}))
    run = create_run(
        tmp_path / "hdl" / "blocks.yaml",
        tmp_path / "runs",
        str(config),
        str(REPO_ROOT / "mcp.json"),
        only=["crc_checker"],
        run_id="repo-mcp",
    )
    asyncio.run(execute_run(run))
    store = StateStore(run / "state.sqlite")
    librarian = [r for _, r in store.steps("crc_checker") if r.kind == "librarian"]
    exchanges = [x for _, x in store.exchanges()]
    meta = store.meta()
    store.close()
    assert store_name in meta["servers"], meta.get("servers_failed")
    assert [(r.outcome, r.detail["excerpts"]) for r in librarian] == [("answered", 1)]
    prompt = next(x.messages[-1].content for x in exchanges if x.role == "rtl_engineer")
    assert "Spec Librarian notes (cited)" in prompt and QUOTE in prompt
    assert "Excerpt [TS 36.212 5.1.1" in prompt and "Citations: 36.212 5.1.1" in prompt
