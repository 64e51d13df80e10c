"""Workers prove their tools: every task compares the versions its node has with the driver's
before it runs, so results of different tool versions never mix.

A probe is data, resolved on each node: ``pkg:NAME`` is an installed distribution's version,
``call:package.module:function`` a function returning a version string (so the tool's own
lookup, e.g. the simulator toolchain, stays where it is)."""

from __future__ import annotations

import importlib
import socket
from functools import cache
from importlib.metadata import PackageNotFoundError, version

from pydantic import BaseModel, ConfigDict

PROJECT = "silicon-agent"
ABSENT = "absent"

# The Python packages whose versions decide numerical results everywhere.
PYTHON_PROBES: dict[str, str] = {
    "numpy": "pkg:numpy",
    "numba": "pkg:numba",
    PROJECT: f"pkg:{PROJECT}",
}


class CampaignRefused(RuntimeError):
    """An executor cannot run a campaign's tasks (a cluster it cannot reach, a resource no node
    offers, a node with other tool versions): the message says why, in one line."""


class ToolMismatch(CampaignRefused):
    """A worker's tool differs from the driver's; the task refuses to run."""

    def __init__(self, tool: str, worker: str, driver: str, node: str) -> None:
        super().__init__(
            f"tool version mismatch on node {node}: {tool} is {worker} there but {driver} on "
            f"the driver; set the node up with the driver's versions (make setup) or leave it "
            f"out of the cluster"
        )
        self.tool = tool
        self.worker = worker
        self.driver = driver
        self.node = node

    def __reduce__(self) -> tuple[type[ToolMismatch], tuple[str, str, str, str]]:
        return (ToolMismatch, (self.tool, self.worker, self.driver, self.node))


class ToolCheck(BaseModel):
    """The probes of a campaign and the versions the driver found with them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    probes: dict[str, str]
    versions: dict[str, str]


@cache
def probe(spec: str) -> str:
    """The version ``spec`` finds on this node (looked up once per process)."""
    kind, _, target = spec.partition(":")
    if kind == "pkg":
        try:
            return version(target)
        except PackageNotFoundError:
            return ABSENT
    if kind == "call":
        module, _, name = target.partition(":")
        found = getattr(importlib.import_module(module), name)()
        return str(found) if found else ABSENT
    raise ValueError(f"tool probe {spec!r}: expected pkg:NAME or call:module:function")


def driver_check(probes: dict[str, str]) -> ToolCheck:
    """What the driver has: the reference every task is held to."""
    return ToolCheck(probes=dict(probes), versions={t: probe(p) for t, p in probes.items()})


def check_tools(check: ToolCheck, node: str = "") -> None:
    """Raise ``ToolMismatch`` at the first tool whose version here is not the driver's."""
    for tool, spec in sorted(check.probes.items()):
        here = probe(spec)
        if here != check.versions[tool]:
            raise ToolMismatch(tool, here, check.versions[tool], node or socket.gethostname())
