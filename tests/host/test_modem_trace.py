"""The trace judge in the modem loop: `verify_block` (plain API and over MCP stdio) and the
host's judge step hand the servers the block's trace spec with expected beats of the run's own
vectors, so a verdict whose printed summary lies is withheld there too.

A copy of the registry whose testbench harness prints a false PASS (and hides its mismatch
lines) stands in for any way the summary could lie; the candidate is a descrambler mutant. The
testbench alone says PASS; the server's trace of the output beats says otherwise."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from silicon_agent.hdl.registry import REPO
from silicon_agent.host.mcp_client import load_mcp_config
from silicon_agent.host.modem_desk import ModemDesk
from silicon_agent.host.run_setup import create_run
from silicon_agent.host.runs import execute_run
from silicon_agent.host.state import BlockStatus
from tests.hdl.test_trace_judge import FALSE_PASS, MUTATION, SILENT_MISMATCH

from .modem_scenario import code_reply, reference, write_config
from .scenario import write_mcp_json
from .test_modem_server import call

pytestmark = pytest.mark.anyio
BLOCK = "descrambler"
SIMULATORS = ["iverilog", "vcd"]


def mutant() -> str:
    text = reference(BLOCK)
    assert text.count(MUTATION[0]) == 1
    return text.replace(*MUTATION)


def lying_registry(root: Path) -> Path:
    """The receiver's registry beside a testbench harness whose summary says PASS."""
    shutil.copytree(REPO / "hdl", root / "hdl", ignore=shutil.ignore_patterns("__pycache__"))
    harness = root / "hdl" / "tb" / "tb_harness.svh"
    text = harness.read_text()
    for old, new in (SILENT_MISMATCH, FALSE_PASS):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    harness.write_text(text)
    return root / "hdl" / "blocks.yaml"


def candidates(root: Path) -> Path:
    workspace = root / "ws"
    (workspace / "cand").mkdir(parents=True)
    (workspace / "cand" / "mutant.sv").write_text(mutant())
    (workspace / "cand" / "reference.sv").write_text(reference(BLOCK))
    return workspace


def assert_withheld(verdict: dict[str, Any]) -> None:
    assert verdict["status"] == "INVALID_INPUT", verdict
    assert "withheld" in verdict["summary"] and "trace" in verdict["summary"]
    trace = verdict["trace"]
    assert (
        trace["agrees"] is False
        and trace["passed"] is False
        and trace["beats_wrong_or_missing"] > 0
    )


async def test_verify_block_withholds_a_false_pass(tmp_path: Path) -> None:
    design = lying_registry(tmp_path)
    workspace = candidates(tmp_path)
    config = load_mcp_config(write_mcp_json(tmp_path, SIMULATORS))
    runs, private = tmp_path / "state" / "runs", tmp_path / "state" / "desk"
    async with ModemDesk(design, workspace, runs, config, private=private) as desk:
        lied = await desk.verify_block(BLOCK, ["cand/mutant.sv"])
        good = await desk.verify_block(BLOCK, ["cand/reference.sv"])
    assert_withheld(lied.model_dump())
    assert good.status == "PASS", good
    assert good.trace is not None and good.trace["passed"] and good.trace["beats"] > 0


async def test_verify_block_over_stdio_withholds_a_false_pass(tmp_path: Path) -> None:
    design = lying_registry(tmp_path)
    workspace = candidates(tmp_path)
    mcp = write_mcp_json(tmp_path, SIMULATORS)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "silicon_agent.host.cli", "serve", "--state-dir", str(tmp_path / "state")]
        + ["--design", str(design), "--workspace", str(workspace), "--mcp-config", str(mcp)],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        cwd=str(REPO),
    )
    async with Client(params) as client:
        lied = await call(client, "verify_block", {"block": BLOCK, "rtl_files": ["cand/mutant.sv"]})
    assert_withheld(lied)


def test_the_loop_judge_withholds_a_false_pass(tmp_path: Path) -> None:
    design = lying_registry(tmp_path)
    rules = [{"match": [f"Block: {BLOCK}\n", "Step: write"], "reply": code_reply(mutant())}]
    config = write_config(tmp_path, rules)
    mcp = write_mcp_json(tmp_path, SIMULATORS)
    run = create_run(design, tmp_path / "runs", str(config), str(mcp), only=[BLOCK], run_id="lie")
    state = asyncio.run(execute_run(run))[BLOCK]
    assert state.status == BlockStatus.ESCALATED, state
    assert state.escalation is not None
    reason = state.escalation["reason"]
    assert reason.startswith("verdict withheld: ") and "trace" in reason, reason
