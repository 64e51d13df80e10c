"""``python -m silicon_agent.hdl.run`` with ``$RAY_ADDRESS`` set, against a real one-node Ray
cluster that offers iverilog but no verilator: a single block asked ``--ray`` goes to the
cluster (and is refused there, in one line, for the simulator it lacks), ``--all`` on it is
refused in one line before anything runs. The cluster is this module's, torn down even when a
test fails."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import private_cluster
from .ray_cluster import LocalCluster
from .test_run_options import assert_one_line_refusal, hdl_run

pytest.importorskip("ray")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def iverilog_only(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with private_cluster(tmp_path_factory, {"iverilog": 1}) as local:
        yield local


def test_single_block_with_ray_goes_to_the_cluster(
    iverilog_only: LocalCluster, tmp_path: Path
) -> None:
    """Run here, it would pass on the local Verilator; on the cluster it is refused because no
    node offers Verilator, which only the cluster can say."""
    done = hdl_run(
        ["crc_checker", "--simulator", "verilator", "--ray"],
        tmp_path,
        RAY_ADDRESS=iverilog_only.address,
    )
    line = assert_one_line_refusal(done, "needs resource 'verilator'", "cluster offers 0.0")
    assert "PASS" not in done.stdout and "crc_checker" in line


def test_all_on_a_cluster_without_the_simulator_is_one_line(
    iverilog_only: LocalCluster, tmp_path: Path
) -> None:
    done = hdl_run(["--all", "--out", "out"], tmp_path, RAY_ADDRESS=iverilog_only.address)
    assert_one_line_refusal(done, "needs resource 'verilator'", "--resources")
    assert not (tmp_path / "out" / "summary.json").exists()
