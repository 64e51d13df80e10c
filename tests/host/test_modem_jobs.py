"""The host's run, answer and resume as jobs of `agent-host serve`, over real MCP stdio with a
scripted model: a run pauses on the RTL Engineer's question, answer_question resumes it and
the block passes; resume_run carries a stopped run to its end; runs are named by their ids
under the server's own state; bad arguments are refused with the argument named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp import Client

from silicon_agent.host.cli import main
from silicon_agent.host.run_setup import create_run
from tests.planning.scenario import COUNTER_ANSWERS, COUNTER_PROMPT, counter_rules, write_config

from .modem_scenario import serve_params
from .scenario import write_mcp_json
from .test_modem_server import call

pytestmark = pytest.mark.anyio
QUESTION = "Must rst clear count immediately"


@pytest.fixture
def planned_counter(tmp_path: Path) -> Path:
    """The planning flow's counter, planned by the scripted team and approved: a design whose
    RTL Engineer asks instead of guessing."""
    root = tmp_path
    write_config(root, counter_rules())
    answers = root / "answers.yaml"
    answers.write_text(yaml.safe_dump(COUNTER_ANSWERS))
    out = root / "plan"
    plan = ["plan", COUNTER_PROMPT, "--answers", str(answers), "--out", str(out)]
    assert main([*plan, "--config", str(root / "host.yaml")]) == 0
    assert main(["approve", str(out), "--yes", "--by", "tester"]) == 0
    return out / "design.yaml"


async def finished(client: Client, job: dict[str, Any]) -> dict[str, Any]:
    with anyio.fail_after(300):
        while job["state"] == "running":
            await anyio.sleep(1)
            job = await call(client, "design_status", {"run": job["run"]})
    assert job["state"] == "done", job
    return job


def assert_refused(view: dict[str, Any], argument: str) -> None:
    assert view["state"] == "INVALID_INPUT" and view["run"] is None, view
    assert view["problem"]["argument"] == argument and view["problem"]["message"], view


@pytest.mark.slow
async def test_run_answer_and_resume_as_jobs_over_stdio(
    tmp_path: Path, planned_counter: Path
) -> None:
    design = planned_counter
    mcp = write_mcp_json(tmp_path, ["iverilog", "verilator"])
    state = tmp_path / "state"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    # A run created and stopped before its first step, answered by a model that does not ask.
    quiet = tmp_path / "quiet"
    quiet.mkdir()
    quiet_config = write_config(quiet, counter_rules(ask_during_run=False))
    create_run(design, state / "runs", str(quiet_config), str(mcp), run_id="stopped")
    params = serve_params(
        state, "--design", str(design), "--workspace", str(workspace), "--mcp-config", str(mcp)
    )
    params.args += ["--config", str(tmp_path / "host.yaml")]
    async with Client(params) as client:
        job = await call(client, "run_design", {})
        run = job["run"]
        # A second executor on the same run would race its state.
        assert_refused(await call(client, "resume_run", {"run": run}), "run")
        job = await finished(client, job)
        assert "PAUSED" in job["status"] and QUESTION in job["status"], job["status"]
        assert_refused(await call(client, "answer_question", {"run": "nope", "text": "x"}), "run")
        wrong = {"run": run, "text": "x", "block": "nosuch"}
        assert_refused(await call(client, "answer_question", wrong), "block")

        answer = {"run": run, "text": "asynchronous: clear at once"}
        answered = await finished(client, await call(client, "answer_question", answer))
        assert "counter4" in answered["status"] and "PASSED" in answered["status"]
        assert QUESTION not in answered["status"], answered["status"]

        assert_refused(await call(client, "resume_run", {"run": "nope"}), "run")
        resumed = await finished(client, await call(client, "resume_run", {"run": "stopped"}))
        assert resumed["run"] == "stopped" and "PASSED" in resumed["status"]
        assert_refused(await call(client, "design_status", {"run": "nope"}), "run")
        assert_refused(await call(client, "run_design", {"blocks": ["nosuch"]}), "blocks")
        status = (await call(client, "design_status", {"run": run}))["status"]
    assert "PASSED" in status and QUESTION not in status
