"""The modem design loop over MCP stdio from a plain client: `agent-host serve` lists the
blocks, briefs one, judges candidates on the hidden testbench with fresh vectors and runs the
host's agents as a job; its status is what `agent-host status` prints."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from silicon_agent.hdl.registry import REPO

from .modem_scenario import (
    ALT_CRC,
    hidden_markers,
    reference,
    serve_params,
    write_config,
    write_rules,
)
from .scenario import write_mcp_json

pytestmark = pytest.mark.anyio
MUTANT = ALT_CRC.read_text().replace("CRC24B_POLY : CRC24A_POLY", "CRC24B_POLY : 24'h864CFA")
TOOLS = {
    "list_blocks",
    "block_brief",
    "verify_block",
    "synthesize_block",
    "design_status",
    "run_design",
    "resume_run",
    "answer_question",
    "memory_search",
    "server_info",
    "job_start",
    "job_status",
    "job_result",
    "job_cancel",
}


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> Any:
    """The structured answer; an error result only for a refusal (INVALID_INPUT)."""
    reply = await client.call_tool(tool, arguments, read_timeout_seconds=900)
    body = reply.structured_content
    assert body is not None, reply.content
    body = body.get("result", body) if set(body) == {"result"} else body
    refusal = isinstance(body, dict) and "INVALID_INPUT" in (body.get("status"), body.get("state"))
    assert reply.is_error == refusal, reply.content
    return body


@pytest.mark.slow
async def test_a_plain_client_designs_crc_checker_over_stdio(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "cand").mkdir(parents=True)
    (workspace / "cand" / "crc_bad.sv").write_text(MUTANT)
    (workspace / "cand" / "crc_checker.sv").write_text(reference("crc_checker"))
    mcp = write_mcp_json(tmp_path, ["iverilog", "verilator", "vcd"])
    config = write_config(tmp_path, write_rules(["crc_checker"]))
    state = tmp_path / "state"
    params = serve_params(
        state, "--workspace", str(workspace), "--mcp-config", str(mcp), "--config", str(config)
    )
    markers = hidden_markers(["crc_checker"])
    async with Client(params) as client:
        assert TOOLS <= {t.name for t in (await client.list_tools()).tools}
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        assert {"design_block", "role_rtl_engineer", "role_reflection_debug"} <= prompts
        templates = (await client.list_resource_templates()).resource_templates
        assert any(t.uri_template == "modem://block/{block}" for t in templates)

        blocks = await call(client, "list_blocks", {})
        names = [b["name"] for b in blocks]
        assert names[0] == "crc_checker" and names[-1] == "lte_baseband_top"
        brief = await call(client, "block_brief", {"block": "crc_checker"})
        assert brief["interface"].startswith("module crc_checker")
        assert brief["clauses"] == ["TS 36.212 5.1.1"] and "CRC24A_POLY" in brief["package_text"]
        resource = await client.read_resource("modem://block/crc_checker")
        assert json.loads(resource.contents[0].text)["interface"] == brief["interface"]

        bad = await call(
            client,
            "verify_block",
            {"block": "crc_checker", "rtl_files": ["cand/crc_bad.sv"], "simulator": "iverilog"},
        )
        assert bad["status"] == "SIM_FAIL", bad
        assert bad["first_mismatch"]["expected"] and bad["mismatch_count"] >= 1
        assert bad["explanation"] and bad["explanation"]["cone"]
        text = json.dumps(bad)
        assert [m for m in markers if m in text] == [] and "$readmemh" not in text
        assert "output_tail" not in text and "crc_checker/crc" not in text

        good = await call(
            client,
            "verify_block",
            {"block": "crc_checker", "rtl_files": ["cand/crc_checker.sv"], "simulator": "iverilog"},
        )
        assert good["status"] == "PASS", good
        assert {r["run"] for r in good["runs"]} == {"drawn_24a@iverilog", "drawn_24b@iverilog"}
        assert good["seed"] != bad["seed"]

        refused = await call(
            client, "verify_block", {"block": "crc_checker", "rtl_files": ["../etc/passwd"]}
        )
        assert refused["status"] == "INVALID_INPUT" and refused["error"]["argument"] == "rtl_files"

        job = await call(client, "run_design", {"blocks": ["crc_checker"]})
        assert "/" not in job["run"]
        with anyio.fail_after(900):
            while job["state"] == "running":
                await anyio.sleep(2)
                job = await call(client, "design_status", {"run": job["run"]})
        assert job["state"] == "done", job
        status = (await call(client, "design_status", {}))["status"]
    assert "crc_checker" in status and "PASSED" in status and "verified dependency" in status
    printed = subprocess.run(
        [
            sys.executable,
            "-m",
            "silicon_agent.host.cli",
            "--runs-dir",
            str(state / "runs"),
            "status",
            job["run"],
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    ).stdout
    assert printed.strip() == status.strip()


async def test_synthesize_block_fails_a_missed_clock_and_names_its_path(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "cand").mkdir(parents=True)
    (workspace / "cand" / "crc_checker.sv").write_text(reference("crc_checker"))
    mcp = write_mcp_json(tmp_path, ["iverilog", "openlane"])
    params = serve_params(
        tmp_path / "state", "--workspace", str(workspace), "--mcp-config", str(mcp)
    )
    async with Client(params) as client:
        arguments = {"block": "crc_checker", "rtl_files": ["cand/crc_checker.sv"]}
        met = await call(client, "synthesize_block", arguments)
        missed = await call(client, "synthesize_block", arguments | {"clock_period_ns": 0.3})
    assert met["status"] == "PASS", met
    assert met["critical_path"] and not met["recommendations"] and met["hint"] is None
    assert missed["status"] == "TIMING_FAIL", missed
    assert missed["worst_setup_slack_ns"] < 0 and "NOT MET" in missed["summary"]
    path = missed["critical_path"]
    assert path["startpoint"] and path["endpoint"] and path["logic_depth"] > 0
    assert any(r.startswith("setup_wns:") for r in missed["recommendations"])
    assert "pipeline" in missed["hint"]
