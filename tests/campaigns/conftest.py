"""The module-wide Ray cluster of the Ray tests: a head and a second node, one CPU each, on a
private loopback-only network, torn down by the finaliser even when a test fails. The driver
stays connected for the whole module, so the nodes' worker processes serve every test."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from .private_network import NoPrivateNetwork, interface_addresses, private_loopback_network
from .ray_cluster import LocalCluster

TOOLS = {"iverilog": 1, "verilator": 1}


@contextlib.contextmanager
def private_cluster(
    tmp_path_factory: pytest.TempPathFactory, head: dict[str, float], *nodes: dict[str, float]
) -> Iterator[LocalCluster]:
    """A head offering ``head`` and a node per ``nodes`` entry, one CPU each, on a private
    loopback-only network; torn down on exit even when a test fails (skips where no private
    network can be made)."""
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
        local.start_head(head)
        for resources in nodes:
            local.add_node(resources)
        yield local
    finally:
        try:
            local.stop()
        finally:
            network.__exit__(None, None, None)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with private_cluster(tmp_path_factory, TOOLS, {**TOOLS, "second_node": 1}) as local:
        import ray

        ray.init(address=local.address, log_to_driver=False)
        yield local
