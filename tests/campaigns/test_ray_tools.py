"""A worker node whose tools differ from the driver's refuses its tasks, naming the tool and
both versions; no summary is written."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from campaigns.ray_executor import RayExecutor
from campaigns.tools import ToolMismatch
from hdl.campaign import iverilog_version, run_regression, select

from .ray_cluster import LocalCluster

pytest.importorskip("ray")
pytestmark = pytest.mark.slow
TOOLS = {"iverilog": 1, "verilator": 1}


@pytest.fixture
def mismatched_cluster(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalCluster]:
    """A node whose iverilog is another version (first on its PATH)."""
    bin_dir = tmp_path / "other-iverilog"
    bin_dir.mkdir()
    fake = bin_dir / "iverilog"
    fake.write_text("#!/bin/sh\necho 'Icarus Verilog version 99.1 (other build)'\n")
    fake.chmod(0o755)
    # Short: Ray's socket paths under it must stay within 107 bytes.
    local = LocalCluster(tmp_path_factory.mktemp("r"))
    try:
        path = f"{bin_dir}:{os.environ['PATH']}"
        local.start_head(TOOLS, env={"PATH": path})
        yield local
    finally:
        local.stop()


def test_worker_with_another_tool_version_is_refused(
    mismatched_cluster: LocalCluster, tmp_path: Path
) -> None:
    executor = RayExecutor(mismatched_cluster.address)
    with pytest.raises(ToolMismatch) as refused:
        run_regression(select(["crc_checker:crc24b_k40"]), ["iverilog"], 1, executor, tmp_path)
    assert refused.value.tool == "iverilog"
    here = iverilog_version()
    assert (refused.value.worker, refused.value.driver) == ("99.1", here)
    assert f"iverilog is 99.1 there but {here} on the driver" in str(refused.value)
    assert not (tmp_path / "summary.json").exists()
