"""Red team over real MCP stdio, as a client would call: a few attacks per class through the
console servers (iverilog, Verilator, waveform), each server answering a good call after."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import example_trace

from .conftest import TB_COUNTER, put, wrong_counter
from .test_rt_design_text import ATTACKS
from .test_rt_trace_judge import GLITCH, RIGHT_COUNTER

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.anyio
# One attack of each design-text class, and the trace judge's withheld verdict.
OVER_STDIO = ["c1_macro_defines_macro", "c2_plusarg_vectors_dir", "c3_dpi_import"]


def params(module: str, root: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", module, "--workspace", str(root)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )


@pytest.mark.parametrize(
    "module", ["silicon_agent.servers.iverilog.server", "silicon_agent.servers.verilator.server"]
)
async def test_design_attacks_refused_over_stdio(module: str, adv_root: Path) -> None:
    if module.endswith("verilator.server"):
        from silicon_agent.servers.core.workspace import Workspace
        from silicon_agent.servers.verilator.api import Verilator

        if not Verilator(Workspace.open(adv_root)).tool.available:
            pytest.skip("verilator is not installed")
    sim = "iverilog" if "iverilog" in module else "verilator"
    with anyio.fail_after(600):
        async with Client(params(module, adv_root)) as client:
            for name in OVER_STDIO:
                attack = ATTACKS[name]
                for relative, text in attack.files.items():
                    put(adv_root, relative, text)
                answer = await client.call_tool(
                    "run_testbench",
                    {"design": list(attack.design), "testbench": [TB_COUNTER], "timeout_s": 60},
                )
                out = answer.structured_content
                assert out["status"] == "COMPILE_FAIL", (name, out["summary"])
                places = [
                    (d["file"], d["line"])
                    for d in out["diagnostics"]
                    if d["category"] == "FORBIDDEN_CONSTRUCT"
                ]
                assert attack.where[sim] in places, (name, places)
            if sim == "iverilog":
                design = put(adv_root, "stdio/glitch.sv", RIGHT_COUNTER.format(extra=GLITCH))
                answer = await client.call_tool(
                    "run_testbench",
                    {"design": [design], "testbench": [TB_COUNTER], "top": "tb_counter",
                     "trace": example_trace("counter"), "timeout_s": 120},
                )  # fmt: skip
                out = answer.structured_content
                assert out["status"] == "INVALID_INPUT" and not out["trace"]["agrees"], out
                # The same server still judges a plain failing design.
                plain = put(adv_root, "stdio/plain.sv", wrong_counter())
                answer = await client.call_tool(
                    "run_testbench",
                    {"design": [plain], "testbench": [TB_COUNTER], "timeout_s": 120},
                )
                assert answer.structured_content["status"] == "SIM_FAIL"


async def test_waveform_links_and_bombs_over_stdio(adv_root: Path, tmp_path: Path) -> None:
    from .test_rt_hostile_inputs import GOOD, vcd_bombs

    outside = tmp_path / "outside.vcd"
    outside.write_bytes(GOOD.replace(b" a $end", b" sa_outside_mark $end"))
    link = adv_root / "stdio" / "linked.vcd"
    link.parent.mkdir(exist_ok=True)
    link.unlink(missing_ok=True)
    link.symlink_to(outside)
    put(adv_root, "stdio/good.vcd", GOOD)
    bombs = {n: v for n, v in vcd_bombs().items() if "comment" not in n}
    for name, (data, _) in bombs.items():
        put(adv_root, f"stdio/{name}", data)
    with anyio.fail_after(600):
        async with Client(params("silicon_agent.servers.vcd.server", adv_root)) as client:
            refused = await client.call_tool("list_signals", {"file": "stdio/linked.vcd"})
            out = refused.structured_content
            assert out["ok"] is False and "sa_outside_mark" not in str(out), out
            for name, (_, limit) in bombs.items():
                refused = await client.call_tool("summary", {"file": f"stdio/{name}"})
                out = refused.structured_content
                assert out["ok"] is False and limit in out["error"]["message"], (name, out)
                good = await client.call_tool("list_signals", {"file": "stdio/good.vcd"})
                assert good.structured_content["ok"] is True
