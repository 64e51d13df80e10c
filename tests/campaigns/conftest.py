"""The module-wide Ray cluster of the Ray tests: a head and a second node, one CPU each, on a
private loopback-only network, torn down by the finaliser even when a test fails. The driver
stays connected for the whole module, so the nodes' worker processes serve every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .private_network import NoPrivateNetwork, interface_addresses, private_loopback_network
from .ray_cluster import LocalCluster

TOOLS = {"iverilog": 1, "verilator": 1}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    # Short: Ray's socket paths under it must stay within 107 bytes.
    local = LocalCluster(tmp_path_factory.mktemp("r"))
    try:
        network = private_loopback_network()
        network.__enter__()
    except NoPrivateNetwork as exc:
        pytest.skip(f"a Ray cluster runs here only on a private loopback network: {exc}")
    try:
        # Nothing but loopback: the cluster cannot reach or advertise another address.
        assert interface_addresses() <= {"127.0.0.1", "::1"}, interface_addresses()
        local.start_head(TOOLS)
        local.add_node({**TOOLS, "second_node": 1})
        import ray

        ray.init(address=local.address, log_to_driver=False)
        yield local
    finally:
        try:
            local.stop()
        finally:
            network.__exit__(None, None, None)
