"""The modem server's golden tool manifest: the live tools (schemas, annotations) and prompts
match `host/modem.manifest.json`; every tool is annotated and every parameter described."""

from __future__ import annotations

import json

import pytest

from silicon_agent.host.modem_server import MANIFEST, live_manifest
from silicon_agent.servers.core.manifest import render

pytestmark = pytest.mark.anyio


async def test_manifest_matches_golden_file() -> None:
    assert render(await live_manifest()) == MANIFEST.read_text(), (
        "the modem server's tools changed: if on purpose, run "
        "python -m silicon_agent.host.modem_server --write"
    )


def test_every_tool_annotated_and_every_parameter_described() -> None:
    tools = json.loads(MANIFEST.read_text())["tools"]
    assert {"verify_block", "run_design", "design_status", "job_start"} <= set(tools)
    for name, tool in tools.items():
        assert set(tool["annotations"]) >= {
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        }, name
        if not name.startswith("job_"):
            for param, schema in tool["input_schema"].get("properties", {}).items():
                assert schema.get("description"), f"{name}.{param}"
