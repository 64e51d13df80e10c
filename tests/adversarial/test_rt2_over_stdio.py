"""Second red team over real MCP stdio: the holes and refusals of the other rt2 files as a
client would call them, through the console servers."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
import pytest
from mcp import Client

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.verilator.api import Verilator

from .conftest import TB_COUNTER, put
from .test_rt2_design_text import ATTACKS
from .test_rt2_includes import DESIGN, TB, crc_workspace
from .test_rt2_paths import escapes
from .test_rt2_trace_judge import GOOD, SPECS
from .test_rt_over_stdio import params

pytestmark = pytest.mark.anyio


async def call(module: str, root: Path, tool: str, arguments: dict) -> dict:
    with anyio.fail_after(600):
        async with Client(params(module, root)) as client:
            answer = await client.call_tool(tool, arguments)
            return answer.structured_content  # type: ignore[return-value]


async def test_planted_harness_over_stdio() -> None:
    root, _, case = crc_workspace(plant=True)
    try:
        out = await call(
            "silicon_agent.servers.iverilog.server",
            root,
            "run_testbench",
            {"design": DESIGN[1:], "testbench": [DESIGN[0], TB], "top": "tb_crc_checker",
             "include_dirs": ["hdl/tb"], "plusargs": [*case.plusargs, "SEED=1"],
             "timeout_s": 300},
        )  # fmt: skip
        assert out["status"] != "PASS", out["summary"]
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.slow
async def test_ref_port_over_stdio(adv_root: Path) -> None:
    if not Verilator(Workspace.open(adv_root)).tool.available:
        pytest.skip("verilator is not installed")
    design = put(adv_root, "rt2stdio/ref.sv", ATTACKS["ref_port_holds_stimulus"])
    out = await call(
        "silicon_agent.servers.verilator.server",
        adv_root,
        "run_testbench",
        {"design": [design], "testbench": [TB_COUNTER], "timeout_s": 240},
    )
    assert out["status"] != "PASS", out["summary"]


@pytest.mark.parametrize("name", ["sibling_prefix_dotdot", "nul_byte", "file_url"])
async def test_path_escapes_over_stdio(name: str, adv_root: Path) -> None:
    sibling = adv_root.with_name(adv_root.name + "-evil")
    path = escapes(adv_root, sibling)[name]
    out = await call(
        "silicon_agent.servers.iverilog.server",
        adv_root,
        "run_testbench",
        {"design": [path], "testbench": [TB_COUNTER], "timeout_s": 60},
    )
    assert out["status"] == "INVALID_INPUT", out["summary"]


async def test_trace_injection_over_stdio(adv_root: Path) -> None:
    design = put(adv_root, "rt2stdio/good.sv", GOOD)
    out = await call(
        "silicon_agent.servers.iverilog.server",
        adv_root,
        "run_testbench",
        {"design": [design], "testbench": [TB_COUNTER], "top": "tb_counter",
         "trace": SPECS["data_port_reads_the_model"], "timeout_s": 60},
    )  # fmt: skip
    assert out["status"] == "INVALID_INPUT" and "trace" in out["summary"], out["summary"]
