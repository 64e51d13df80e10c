"""explain_mismatch through a memory, over MCP stdio: a small stream buffer (four banks of
memory in a generate loop) simulated by the Icarus server, its first wrong beat explained by
the waveform server. The cone follows the read back to the writes' data, lists one copy of the
generate loop, and reads the waveform to put the likely cause first: the value path when the
right value never reached the output, what picks the value when it did and was not taken."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "membuf"
DESIGN = (HERE / "membuf.sv").read_text()
SCALE = "assign scaled_w = 10'(s_axis_tdata_i) * 10'd3;"
POP = "assign pop_w = out_valid_r && m_axis_tready_i;"
pytestmark = pytest.mark.anyio


def params(module: str, root: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", f"silicon_agent.servers.{module}.server", "--workspace", str(root)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )


async def explain(root: Path, design: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The mutant simulated by mcp-iverilog, its first mismatch explained by mcp-vcd as the
    design loop asks (values first, deep, nothing after the mismatch)."""
    (root / "membuf.sv").write_text(design)
    shutil.copy(HERE / "tb_membuf.sv", root / "tb_membuf.sv")
    with anyio.fail_after(300):
        async with Client(params("iverilog", root)) as client:
            reply = await client.call_tool(
                "run_testbench",
                {"design": ["membuf.sv"], "testbench": ["tb_membuf.sv"], "waves": "vcd",
                 "timeout_s": 120},
            )  # fmt: skip
        run = reply.structured_content or {}
        run = run.get("result", run) if set(run) == {"result"} else run
        assert run["status"] == "SIM_FAIL", run.get("summary")
        first = run["first_mismatch"]
        async with Client(params("vcd", root)) as client:
            reply = await client.call_tool(
                "explain_mismatch",
                {"file": run["artifacts"]["waves"], "signal": f"tb_membuf.dut.{first['signal']}",
                 "time": first["time"], "sources": ["membuf.sv"], "expected": first["expected"],
                 "follow": "data", "depth": 16, "cycles_after": 0, "top": "membuf"},
            )  # fmt: skip
    body = reply.structured_content or {}
    body = body.get("result", body) if set(body) == {"result"} else body
    assert body.get("ok", True), body
    return first, body


def line_of(text: str, needle: str) -> str:
    return f"membuf.sv:{text[: text.index(needle)].count(chr(10)) + 1}"


def order(cone: list[dict[str, Any]]) -> list[str]:
    """The distinct source lines in the order the cone names them."""
    lines: list[str] = []
    for entry in cone:
        lines += [line for line in entry["lines"] if line not in lines]
    return lines


async def test_a_wrong_value_written_to_memory_is_followed_to_the_write(tmp_path: Path) -> None:
    mutant = DESIGN.replace(SCALE, SCALE.replace("10'd3;", "10'd3 + 10'd1;"))
    changed = line_of(mutant, "assign scaled_w")
    _, explained = await explain(tmp_path, mutant)
    cone = {c["rtl"]: c for c in explained["cone"]}
    # through the read of the memory to the write and the value written
    assert {"membuf.gen_bank[0].u_ram.mem_r", "membuf.gen_bank[0].u_ram.wdata_i"} <= set(cone)
    assert cone["membuf.scaled_w"]["lines"] == [changed]
    # one copy of the generate loop stands for the four (the same source lines)
    assert not [n for n in cone if n.startswith("membuf.gen_bank[1]")], sorted(cone)
    # the value path leads: the line that computed the value comes before the pointers that
    # only pick which word is read or written
    lines = order(explained["cone"])
    pointers = [line_of(mutant, "rd_ptr_r <= rd_ptr_r"), line_of(mutant, "wr_ptr_r <= wr_ptr_r")]
    assert all(lines.index(changed) < lines.index(p) for p in pointers if p in lines), lines
    assert lines.index(changed) < 12, lines
    assert not [n for n in explained["notes"] if "not taken" in n], explained["notes"]


async def test_a_beat_dropped_under_back_pressure_puts_the_pop_first(tmp_path: Path) -> None:
    mutant = DESIGN.replace(POP, "assign pop_w = out_valid_r;")
    changed = line_of(mutant, "assign pop_w")
    first, explained = await explain(tmp_path, mutant)
    # the expected beat was on the port and not taken: the values were right
    shown = [n for n in explained["notes"] if "was not taken" in n]
    assert shown and first["expected"] in " ".join(explained["notes"]), explained["notes"]
    lines = order(explained["cone"])
    memory = line_of(mutant, "if (we_i) mem_r")
    assert changed in lines and lines.index(changed) < 16, lines
    assert lines.index(changed) < lines.index(line_of(mutant, "assign scaled_w")), lines
    assert memory not in lines or lines.index(changed) < lines.index(memory), lines
