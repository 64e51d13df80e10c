"""Dumps written by the suite's own simulator servers, built once per test session."""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import ToolResult
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.vcd.api import Waves
from silicon_agent.servers.verilator.api import Verilator

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Run:
    result: ToolResult
    waves: str  # workspace-relative dump


@dataclass
class Dumps:
    root: Path
    workspace: Workspace
    runs: dict[tuple[str, str, str], Run]  # (design, simulator, format)

    def waves(self, design: str, simulator: str, fmt: str) -> str:
        return self.runs[(design, simulator, fmt)].waves

    def result(self, design: str, simulator: str, fmt: str) -> ToolResult:
        return self.runs[(design, simulator, fmt)].result


DESIGNS = {
    "det": (["counter/counter.sv", "fifo/fifo.sv"], ["det/tb_det.sv"]),
    "counter_broken": (["counter/counter_broken.sv"], ["counter/tb_counter.sv"]),
    "counter_good": (["counter/counter.sv"], ["counter/tb_counter.sv"]),
    "fifo_broken": (["fifo/fifo_broken.sv"], ["fifo/tb_fifo.sv"]),
}


async def _simulate(workspace: Workspace, wanted: set[tuple[str, str, str]]) -> dict:
    runs: dict[tuple[str, str, str], Run] = {}
    sims = {"iverilog": Icarus(workspace), "verilator": Verilator(workspace)}
    for design, simulator, fmt in sorted(wanted):
        files, tb = DESIGNS[design]
        result = await sims[simulator].run_testbench(files, tb, waves=fmt, timeout_s=120)
        waves = result.artifacts.get("waves")
        assert waves is not None, result.model_dump_json(indent=1)
        runs[(design, simulator, fmt)] = Run(result, waves)
    return runs


@pytest.fixture(scope="session")
def dumps(tmp_path_factory: pytest.TempPathFactory) -> Dumps:
    root = tmp_path_factory.mktemp("vcdws")
    shutil.copytree(REPO / "hdl" / "examples" / "counter", root / "counter")
    shutil.copytree(REPO / "hdl" / "examples" / "fifo", root / "fifo")
    (root / "det").mkdir()
    shutil.copy(HERE / "tb_det.sv", root / "det" / "tb_det.sv")
    workspace = Workspace.open(root)
    wanted = {
        (design, sim, fmt)
        for design in ("det",)
        for sim in ("iverilog", "verilator")
        for fmt in ("vcd", "fst")
    }
    wanted |= {
        ("counter_broken", "iverilog", "vcd"),
        ("counter_good", "iverilog", "vcd"),
        ("fifo_broken", "iverilog", "vcd"),
        ("fifo_broken", "verilator", "fst"),
    }
    runs = asyncio.run(_simulate(workspace, wanted))
    return Dumps(root, workspace, runs)


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace.open(tmp_path)


@pytest.fixture
def waves_for(dumps: Dumps) -> Waves:
    return Waves(dumps.workspace)
