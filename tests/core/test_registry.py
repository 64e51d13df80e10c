"""The declarative tool registries: every tool annotated, the manifests and the README tables
made from them, and an edit of a registry showing up in each of them."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from mcp import Client

from silicon_agent.servers.core.manifest import (
    README,
    manifest_path,
    readme_tables,
    registry,
    with_tables,
)
from silicon_agent.servers.core.mcp_app import make_server
from silicon_agent.servers.core.registry import READS, REPLACES, Tool
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.suite.servers import SERVER_NAMES, SERVERS

pytestmark = pytest.mark.anyio
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


@pytest.mark.parametrize("name", SERVER_NAMES)
def test_every_tool_in_every_manifest_has_annotations(name: str) -> None:
    manifest = json.loads(manifest_path(name).read_text())
    assert manifest["tools"]
    for tool, entry in manifest["tools"].items():
        annotations = entry["annotations"] or {}
        assert all(isinstance(annotations.get(h), bool) for h in HINTS), (name, tool)
    listed = {t.name for t in registry(name).tools}
    assert listed <= set(manifest["tools"]), "a registry tool is missing from the manifest"


def test_readme_tables_are_current() -> None:
    tables = readme_tables([registry(n) for n in SERVER_NAMES])
    assert with_tables(README.read_text(), tables) == README.read_text(), (
        "the README's tool tables are stale: run "
        "python -m silicon_agent.servers.core.manifest readme --write"
    )


async def test_editing_the_registry_changes_tools_tables_and_server_list(tmp_path: Path) -> None:
    base = registry("iverilog")
    added = Tool(
        name="compile_check",
        method="compile",
        title="Compile, read-only",
        description="Compile only to see the diagnostics.",
        hints=READS,
        limits={"sources": "one file"},
    )
    edited = dataclasses.replace(
        base,
        tools=(
            *[dataclasses.replace(t, hints=REPLACES) if t.name == "simulate" else t
              for t in base.tools],
            added,
        ),
    )  # fmt: skip
    workspace = Workspace.open(tmp_path)
    server = make_server(edited, Icarus(workspace), workspace)
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert (
        tools["compile_check"].input_schema["properties"]
        == (tools["compile"].input_schema["properties"])
    )
    assert tools["compile_check"].annotations.read_only_hint is True
    assert tools["simulate"].annotations.destructive_hint is True

    others = [registry(n) for n in SERVER_NAMES if n != "iverilog"]
    table = readme_tables([edited, *others])
    assert "| `iverilog` | `compile_check` | Compile only to see the diagnostics |" in table
    assert table != readme_tables([base, *others])

    from silicon_agent.host.mcp_client import local_mcp_config
    from silicon_agent.suite.servers import mcp_json

    renamed = tuple(dataclasses.replace(s, name=f"{s.name}2") for s in SERVERS)
    assert set(mcp_json(servers=renamed)["mcpServers"]) == {f"{n}2" for n in SERVER_NAMES}
    assert set(local_mcp_config().mcpServers) == set(SERVER_NAMES)


async def test_job_arguments_are_checked_against_the_same_contract(tmp_path: Path) -> None:
    workspace = Workspace.open(tmp_path)
    server = make_server(registry("iverilog"), Icarus(workspace), workspace)
    async with Client(server) as client:
        started = await client.call_tool(
            "job_start", {"operation": "compile", "arguments": {"sources": 5}}
        )
        job_id = started.structured_content["job_id"]
        done = await client.call_tool("job_result", {"job_id": job_id, "wait_s": 10})
    body = done.structured_content
    assert body["state"] == "failed"
    assert "sources" in body["error"]
