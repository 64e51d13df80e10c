"""The executor seam without simulators: refusals, exactly-once counting, bad arguments."""

from __future__ import annotations

import io
import os

import pytest

from silicon_agent.campaigns.cli import resources_option
from silicon_agent.campaigns.executors import PoolExecutor, SerialExecutor
from silicon_agent.campaigns.runner import CampaignRun
from silicon_agent.campaigns.task import Task, execute
from silicon_agent.campaigns.tools import PYTHON_PROBES, ToolCheck, ToolMismatch, driver_check
from silicon_agent.hdl.campaign import select


def busy(n: int, seconds: float = 0.001) -> list[Task]:
    return [
        Task(
            id=f"t{i:03d}",
            fn="silicon_agent.campaigns.calibrate:busy_task",
            args={"seconds": seconds},
        )
        for i in range(n)
    ]


def test_other_tool_version_is_refused_naming_both() -> None:
    here = driver_check(PYTHON_PROBES)
    other = ToolCheck(probes=here.probes, versions={**here.versions, "numpy": "1.0.0"})
    with pytest.raises(ToolMismatch) as refused:
        execute(busy(1)[0], other, node="n1")
    assert refused.value.tool == "numpy"
    assert f"numpy is {here.versions['numpy']} there but 1.0.0 on the driver" in str(refused.value)


@pytest.mark.slow
def test_pool_counts_each_task_once_and_sums_like_serial() -> None:
    summaries = []
    for executor in (SerialExecutor(), PoolExecutor(2)):
        run = CampaignRun("calibrate", executor, PYTHON_PROBES, stream=io.StringIO())
        try:
            results = run.run(busy(6))
        finally:
            executor.close()
        assert [r.task_id for r in results] == [f"t{i:03d}" for i in range(6)]
        summaries.append(run.summary({}, results).to_json())
        with pytest.raises(ValueError, match="unique"):
            run.run(busy(1))  # t000 again
    assert summaries[0] == summaries[1]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="INVALID_INPUT: unknown block 'nonesuch'"):
        select(["nonesuch"])
    with pytest.raises(ValueError, match="has no case bogus"):
        select(["crc_checker:bogus"])
    with pytest.raises(SystemExit, match="INVALID_INPUT: --ray-resource"):
        resources_option(["verilator=many"])
    assert resources_option(["verilator=2", "gpu"]) == {"verilator": 2.0, "gpu": 1.0}
    with pytest.raises(ValueError):
        Task(id="x", fn="not a function")


def test_serial_submit_gives_each_task_its_result_in_this_process() -> None:
    executor = SerialExecutor()
    check = driver_check(PYTHON_PROBES)
    try:
        futures = [executor.submit(task, check) for task in busy(3, 0.05)]
        results = [f.result(timeout=30) for f in futures]
    finally:
        executor.close()
    assert [r.task_id for r in results] == ["t000", "t001", "t002"]
    assert all(r.ok and r.duration_s >= 0.05 for r in results)
    assert {r.pid for r in results} == {os.getpid()}
