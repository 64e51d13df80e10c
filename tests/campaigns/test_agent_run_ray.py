"""`agent-host run` with its ready blocks' steps as Ray tasks on a real two-node cluster (one
CPU each, conftest's), against the same run through the serial executor: the same final
state, steps, cost events and report; the two independent blocks' steps overlap in the
checkpoint's own step times; a worker killed mid-step is re-run and counted once; a node whose
server reports another tool version is refused with the tool named. Only the LLM is scripted."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from silicon_agent.campaigns.executors import SerialExecutor
from silicon_agent.campaigns.ray_executor import RayExecutor
from silicon_agent.campaigns.tools import ToolMismatch
from silicon_agent.host.run_setup import create_run
from silicon_agent.host.runs import execute_run
from silicon_agent.host.step_tasks import RECORD_FILE
from tests.host.test_crash_resume import committed_steps, kill_after_steps

from .agent_run import content, design, overlapping, report_text, step_spans
from .conftest import TOOLS
from .ray_cluster import LocalCluster

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.slow

STEP_TASKS = "ray::campaign:"
# The scripted model answers this late, as a model would: the blocks' steps last long enough
# for the second worker to start its servers while the first block is still stepping.
MODEL_DELAY_S = 1.0
REPO = Path(__file__).resolve().parents[2]


def run_with(executor: Any, root: Path, run_id: str) -> Path:
    files = design(root / "design", MODEL_DELAY_S)
    run = create_run(files[0], root / "runs", str(files[1]), str(files[2]), run_id=run_id)
    try:
        asyncio.run(execute_run(run, executor=executor))
    finally:
        executor.close()
    return run


@pytest.fixture(scope="module")
def serial_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_with(SerialExecutor(), tmp_path_factory.mktemp("serial"), "serial")


def test_ready_blocks_run_at_once_on_ray_as_serially(
    cluster: LocalCluster, serial_run: Path, tmp_path: Path
) -> None:
    run = run_with(RayExecutor(cluster.address), tmp_path, "ray")
    assert content(run) == content(serial_run)
    assert report_text(run, tmp_path / "r.html") == report_text(serial_run, tmp_path / "s.html")
    # Each block's steps ran while the other's did: both workers held a block at once.
    assert overlapping(step_spans(run)), step_spans(run)
    assert not overlapping(step_spans(serial_run))
    record = json.loads((run / RECORD_FILE).read_text())
    assert record["executor"]["executor"] == "ray"
    assert len(record["nodes"]) == 2, record["nodes"]
    ids = [t["task_id"] for t in record["tasks"]]
    assert len(ids) == len(set(ids)) == sum(len(s) for s in content(run)["steps"].values())


def test_killed_worker_step_is_rerun_and_counted_once(
    cluster: LocalCluster, serial_run: Path, tmp_path: Path
) -> None:
    killed: list[int] = []

    def kill_first_busy_worker() -> None:
        deadline = time.monotonic() + 180
        while not killed and time.monotonic() < deadline:
            for pid in cluster.task_workers(STEP_TASKS):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_first_busy_worker, daemon=True)
    killer.start()
    run = run_with(RayExecutor(cluster.address), tmp_path, "killed")
    killer.join()
    assert killed, "no step task was seen running"
    assert content(run) == content(serial_run)
    record = json.loads((run / RECORD_FILE).read_text())
    ids = [t["task_id"] for t in record["tasks"]]
    assert len(ids) == len(set(ids)) == sum(len(s) for s in content(run)["steps"].values())
    assert killed[0] not in {t["pid"] for t in record["tasks"]}


def test_cancelled_run_cancels_its_ray_tasks(cluster: LocalCluster, tmp_path: Path) -> None:
    files = design(tmp_path / "design")
    run = create_run(files[0], tmp_path / "runs", str(files[1]), str(files[2]), run_id="cancel")
    executor = RayExecutor(cluster.address)

    async def start_then_cancel() -> None:
        stepping = asyncio.create_task(execute_run(run, executor=executor))
        deadline = time.monotonic() + 120
        while not cluster.task_workers(STEP_TASKS) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert cluster.task_workers(STEP_TASKS), "no step task was seen running"
        stepping.cancel()
        with pytest.raises(asyncio.CancelledError):
            await stepping

    try:
        asyncio.run(start_then_cancel())
    finally:
        executor.close()
    deadline = time.monotonic() + 30
    while cluster.task_workers(STEP_TASKS) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not cluster.task_workers(STEP_TASKS), "a cancelled step task still runs"


def test_driver_killed_mid_run_resumes_on_ray_to_the_serial_result(
    cluster: LocalCluster, serial_run: Path, tmp_path: Path
) -> None:
    """`agent-host run --ray-address` killed after some steps are committed (its Ray tasks die
    with it, their owner); `agent-host resume --ray-address` ends where the serial run did."""
    files = design(tmp_path / "design", MODEL_DELAY_S)
    runs = tmp_path / "runs"
    ray_args = ["--ray-address", cluster.address]
    cli = [sys.executable, "-m", "silicon_agent.host.cli", "--runs-dir", str(runs)]
    db = runs / "crash" / "state.sqlite"
    kill_after_steps(
        [*cli, "run", str(files[0]), "--config", str(files[1]), "--mcp-config", str(files[2])]
        + ["--run-id", "crash", *ray_args],
        REPO,
        db,
        4,
    )
    assert 4 <= committed_steps(db) < sum(len(s) for s in content(serial_run)["steps"].values())
    resumed = subprocess.run(
        [*cli, "resume", "crash", *ray_args], cwd=REPO, capture_output=True, text=True, timeout=600
    )
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "step task(s)" in resumed.stderr and "ray on" in resumed.stderr
    assert content(runs / "crash") == content(serial_run)


def test_node_whose_server_reports_another_tool_version_is_refused(
    cluster: LocalCluster, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    bin_dir = tmp_path_factory.mktemp("other-iverilog")
    fake = bin_dir / "iverilog"
    fake.write_text("#!/bin/sh\necho 'Icarus Verilog version 99.1 (other build)'\n")
    fake.chmod(0o755)
    cluster.add_node({**TOOLS, "old_iverilog": 1}, env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    with pytest.raises(ToolMismatch) as refused:
        run_with(RayExecutor(cluster.address, resources={"old_iverilog": 1}), tmp_path, "old")
    assert refused.value.tool == "iverilog:iverilog"
    assert refused.value.worker.startswith("99.1"), refused.value
    assert "there but" in str(refused.value) and refused.value.driver in str(refused.value)
