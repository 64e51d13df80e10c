"""Campaigns on a real local Ray cluster (two nodes, one CPU each), against the serial run; then
a third node whose iverilog is another build, which refuses its tasks.

The cluster is conftest's: torn down even when a test fails."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from silicon_agent.campaigns.executors import SerialExecutor
from silicon_agent.campaigns.ray_executor import RayExecutor
from silicon_agent.campaigns.summary import Summary
from silicon_agent.campaigns.tools import ToolMismatch
from silicon_agent.hdl.campaign import iverilog_version, run_regression, select
from silicon_agent.refmodels.ber_cli import run_ber

from .conftest import TOOLS
from .ray_cluster import LocalCluster

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.slow

# 3 blocks x 2 seeds x 2 simulators, one short case each.
SELECTION = ["crc_checker:crc24b_k40", "descrambler:r2_sf1", "qam_demodulator:qpsk"]
SIMULATORS = ["iverilog", "verilator"]
SEEDS = 2
TASKS = len(SELECTION) * len(SIMULATORS) * SEEDS


@pytest.fixture(scope="module")
def serial_regression(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("serial")
    run_regression(select(SELECTION), SIMULATORS, SEEDS, SerialExecutor(), out)
    return out


def regression_on_ray(cluster: LocalCluster, out: Path) -> Summary:
    return run_regression(select(SELECTION), SIMULATORS, SEEDS, RayExecutor(cluster.address), out)


def test_regression_on_two_nodes_equals_serial(
    cluster: LocalCluster, serial_regression: Path, tmp_path: Path
) -> None:
    summary = regression_on_ray(cluster, tmp_path)
    assert summary.total == TASKS and summary.passed == TASKS
    for name in ("summary.json", "summary.txt"):
        assert (tmp_path / name).read_bytes() == (serial_regression / name).read_bytes(), name
    record = (tmp_path / "run.json").read_text()
    assert '"executor": "ray"' in record
    nodes = json.loads(record)["nodes"]
    assert len(nodes) == 2 and sum(nodes.values()) == TASKS, nodes


def test_killed_worker_loses_nothing(
    cluster: LocalCluster, serial_regression: Path, tmp_path: Path
) -> None:
    killed: list[tuple[int, str]] = []

    def kill_first_busy_worker() -> None:
        deadline = time.monotonic() + 120
        while not killed and time.monotonic() < deadline:
            for pid, cmd in cluster.task_workers().items():
                os.kill(pid, signal.SIGKILL)
                killed.append((pid, cmd))
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_first_busy_worker, daemon=True)
    killer.start()
    summary = regression_on_ray(cluster, tmp_path)
    killer.join()
    assert killed, "no campaign task was seen running"
    ids = [r["task_id"] for r in summary.results]
    assert len(ids) == len(set(ids)) == TASKS
    assert (tmp_path / "summary.json").read_bytes() == (
        serial_regression / "summary.json"
    ).read_bytes()
    pids = {t["pid"] for t in json.loads((tmp_path / "run.json").read_text())["tasks"]}
    assert killed[0][0] not in pids, "the killed worker's task was counted from that worker"


def test_ber_sweep_on_ray_equals_serial(cluster: LocalCluster, tmp_path: Path) -> None:
    """One point that reaches its error target at chunk 2 (5 + 7 + 9 block errors): Ray's two
    CPUs run chunks two at a time, so chunk 3 runs too and must not be counted."""
    args = {"k": 40, "ebn0": [1.0], "iters": 4, "blocks": 96, "max_errors": 20}
    args |= {"fixed": False, "seed": 7, "chunk_blocks": 16}
    serial = run_ber(**args, out=tmp_path / "serial", executor=SerialExecutor())
    on_ray = run_ber(**args, out=tmp_path / "ray", executor=RayExecutor(cluster.address))
    assert on_ray == serial
    assert (serial[0].blocks, serial[0].block_errors) == (48, 21)
    for name in ("campaign/summary.json", "campaign/summary.txt", "ber_K40_float_4it.csv"):
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "serial" / name).read_bytes()
    ran = json.loads((tmp_path / "ray" / "campaign" / "run.json").read_text())["tasks"]
    assert [t["task_id"][-2:] for t in ran] == ["00", "01", "02", "03"]


def test_resource_no_node_offers_is_refused_at_once(cluster: LocalCluster) -> None:
    executor = RayExecutor(cluster.address, resources={"no_such_tool": 1})
    with pytest.raises(RuntimeError, match="needs resource 'no_such_tool'.*--resources"):
        run_regression(select(SELECTION[:1]), ["iverilog"], 1, executor)


def test_node_with_another_tool_version_is_refused(
    cluster: LocalCluster, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A node joins whose PATH finds another iverilog build first; tasks sent there (through a
    resource only it offers) refuse to run, naming the tool and both versions."""
    bin_dir = tmp_path_factory.mktemp("other-iverilog")
    fake = bin_dir / "iverilog"
    fake.write_text("#!/bin/sh\necho 'Icarus Verilog version 99.1 (other build)'\n")
    fake.chmod(0o755)
    cluster.add_node({**TOOLS, "other_build": 1}, env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    executor = RayExecutor(cluster.address, resources={"other_build": 1})
    with pytest.raises(ToolMismatch) as refused:
        run_regression(select(SELECTION[:1]), ["iverilog"], 1, executor, tmp_path)
    here = iverilog_version()
    assert refused.value.tool == "iverilog"
    assert (refused.value.worker, refused.value.driver) == ("99.1", here)
    assert f"iverilog is 99.1 there but {here} on the driver" in str(refused.value)
    assert not (tmp_path / "summary.json").exists()
