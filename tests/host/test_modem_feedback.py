"""What `verify_block` tells a designer over MCP when a candidate fails: the input beats and
the source lines behind a wrong value, a stalled design's handshakes in words, and a build's
errors counted once with the simulator's own notes as warnings."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from .modem_scenario import reference, serve_params
from .scenario import write_mcp_json

pytestmark = pytest.mark.anyio
QAM = reference("qam_demodulator")
LEVEL = "mag = p[0] ? 16'sd3886 : 16'sd1295;"
READY = "assign s_axis_tready_o = !sym_valid_r || sym_done_w;"
PBCH = "(sym_r <= 4'd10)"
WARM = "localparam logic [WARM_CNT_W-1:0] WARM_LAST = 1;"
VCD_TOOLS = ("list_signals", "explain_mismatch", "handshake_stats", "find_event", "values_at")


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


async def verify(tmp_path: Path, block: str, text: str) -> dict[str, Any]:
    """One candidate through `agent-host serve`'s verify_block on Icarus."""
    workspace = tmp_path / "ws"
    (workspace / "cand").mkdir(parents=True)
    (workspace / "cand" / f"{block}.sv").write_text(text)
    mcp = write_mcp_json(tmp_path, ["iverilog", "vcd"])
    params = serve_params(
        tmp_path / "state", "--workspace", str(workspace), "--mcp-config", str(mcp)
    )
    arguments = {"block": block, "rtl_files": [f"cand/{block}.sv"], "simulator": "iverilog"}
    async with Client(params) as client:
        reply = await client.call_tool("verify_block", arguments, read_timeout_seconds=900)
    body = reply.structured_content
    assert body is not None, reply.content
    return body.get("result", body) if set(body) == {"result"} else body


def assert_only_modem_tools(reply: dict[str, Any]) -> None:
    text = json.dumps(reply)
    assert not [t for t in VCD_TOOLS if t in text], text


async def test_a_one_lsb_error_in_a_qam_level_names_its_input_beats_and_line(
    tmp_path: Path,
) -> None:
    mutant = QAM.replace(LEVEL, LEVEL.replace("1295", "1296"))
    changed = line_of(mutant, "16'sd1296")
    reply = await verify(tmp_path, "qam_demodulator", mutant)
    assert reply["status"] == "SIM_FAIL", reply
    assert reply["failure"]["kind"] == "mismatch", reply["failure"]
    first = reply["first_mismatch"]
    assert first["signal"] == "m_axis_tdata_o" and first["expected"] != first["actual"]
    assert first["actual"] in reply["failure"]["message"]
    explained = reply["explanation"]
    assert "error" not in explained and explained["value"].endswith(first["actual"])
    # the input beats that made it: the symbol, its 1/N0 scale and the modulation
    inputs = explained["inputs"]
    assert inputs and all(b["port"] == "s_axis" for b in inputs), inputs
    for beat in inputs:
        assert {"s_axis_tdata_i", "s_axis_tuser_i", "modulation_i"} <= set(beat["values"])
        assert beat["cycle"] <= explained["cycle"] and beat["values"]["modulation_i"] == "2'h1"
    # the cone from the port back through the design's own assignments to the changed line
    cone = {c["rtl"]: c for c in explained["cone"]}
    port = cone["qam_demodulator.m_axis_tdata_o"]
    assert port["level"] == 0 and port["lines"] == [
        f"qam_demodulator.sv:{line_of(mutant, 'assign m_axis_tdata_o')}"
    ]
    assert cone["qam_demodulator.out_data_r"]["level"] == 1
    spans = [
        (int(m[1]), int(m[2]))
        for c in explained["cone"]
        for line in c["lines"]
        if (m := re.match(r"qam_demodulator\.sv:(\d+)-(\d+) \(function level\)", line))
    ]
    assert any(lo <= changed <= hi for lo, hi in spans), explained["cone"]
    # nothing of the run after the first mismatch
    rows = explained["window"]["rows"]
    assert rows and max(r["cycle"] for r in rows) <= explained["cycle"]
    assert "qam_demodulator.sv" in json.dumps(explained) and "tb_" not in json.dumps(inputs)
    assert_only_modem_tools(reply)


async def test_a_deadlocked_ready_says_no_output_with_each_ports_handshakes(
    tmp_path: Path,
) -> None:
    mutant = QAM.replace(READY, "assign s_axis_tready_o = 1'b0;")
    reply = await verify(tmp_path, "qam_demodulator", mutant)
    assert reply["status"] == "SIM_FAIL", reply
    failure = reply["failure"]
    assert failure["kind"] == "no_output" and failure["message"].startswith("no output"), failure
    assert re.search(r"gave 0 of \d+ expected output beats", failure["message"]), failure
    assert reply["summary"] == failure["message"]
    # no nonsense signal, no count that disagrees with the trace's
    assert reply["first_mismatch"] is None and reply["explanation"] is None
    assert reply["mismatch_count"] is None
    assert reply["trace"]["beats"] == 0 and reply["trace"]["beats_wrong_or_missing"] > 0
    assert "mismatch_count" not in reply["trace"]
    stalls = {line.split(" ", 1)[0]: line for line in failure["handshakes"]}
    assert set(stalls) == {"s_axis", "m_axis"}, failure["handshakes"]
    assert stalls["s_axis"].startswith("s_axis (input): 0 beats")
    held = re.search(r"tvalid high with tready low (\d+) cycles", stalls["s_axis"])
    assert held and int(held[1]) > 1000, stalls["s_axis"]
    assert stalls["m_axis"].startswith("m_axis (output): 0 beats")
    assert "verify_block" in failure["hint"] and "block_brief" in failure["hint"]
    assert_only_modem_tools(reply)


async def test_a_wrongly_picked_beat_names_the_condition_that_picked_it(tmp_path: Path) -> None:
    """The resource demapper passes its input REs through unchanged: a wrong output RE is one
    the wrong condition let through. The digest follows the conditions that pick the value into
    what they are computed from, and a condition written over several lines names them all."""
    demapper = reference("resource_demapper")
    assert demapper.count(PBCH) == 1
    mutant = demapper.replace(PBCH, PBCH.replace("4'd10", "4'd9"))
    changed = line_of(mutant, "(sym_r <= 4'd9)")
    reply = await verify(tmp_path, "resource_demapper", mutant)
    assert reply["status"] == "SIM_FAIL" and reply["failure"]["kind"] == "mismatch", reply
    explained = reply["explanation"]
    assert "error" not in explained, explained
    cone = {c["rtl"]: c for c in explained["cone"]}
    # the value: the input RE registered; the condition that picked it, and what that is made of
    assert "resource_demapper.s_axis_tdata_i" in cone and "resource_demapper.pdsch_w" in cone
    reserved = cone["resource_demapper.reserved_w"]
    assert reserved["level"] > cone["resource_demapper.pdsch_w"]["level"], reserved
    spans = [
        (int(m[1]), int(m[2] or m[1]))
        for line in reserved["lines"]
        if (m := re.fullmatch(r"resource_demapper\.sv:(\d+)(?:-(\d+))?", line))
    ]
    assert any(lo <= changed <= hi and lo < hi for lo, hi in spans), reserved
    assert_only_modem_tools(reply)


async def test_a_wrong_constant_names_its_declaration(tmp_path: Path) -> None:
    """A warm-up one count too long: the constant is read by a condition of the cone, and the
    digest names the line that declares it."""
    descrambler = reference("descrambler")
    assert descrambler.count(WARM) == 1
    mutant = descrambler.replace(WARM, WARM.replace("= 1;", "= 2;"))
    changed = line_of(mutant, WARM.replace("= 1;", "= 2;"))
    reply = await verify(tmp_path, "descrambler", mutant)
    assert reply["status"] == "SIM_FAIL" and reply["failure"]["kind"] == "mismatch", reply
    named = {line for c in reply["explanation"]["cone"] for line in c["lines"]}
    assert f"descrambler.sv:{changed} (parameter WARM_LAST)" in named, sorted(named)
    assert_only_modem_tools(reply)


async def test_a_misnamed_port_is_counted_once_and_simulator_notes_are_warnings(
    tmp_path: Path,
) -> None:
    mutant = reference("crc_checker").replace("m_axis_tlast_o", "m_axis_last_o")
    reply = await verify(tmp_path, "crc_checker", mutant)
    assert reply["status"] == "COMPILE_FAIL", reply
    diagnostics = reply["diagnostics"]
    errors = [d for d in diagnostics if d["severity"] == "error"]
    assert not [d for d in diagnostics if d["category"] == "UNSUPPORTED_CONSTRUCT"], diagnostics
    notes = [d for d in diagnostics if d["category"] == "SIMULATOR_LIMITATION"]
    assert notes and all(d["severity"] == "warning" for d in notes), diagnostics
    assert "constant selects" in notes[0]["message"]
    counted = re.match(
        r"(\d+) errors: (\d+) in the candidate's files(?:; the hidden harness reported (\d+))?",
        reply["summary"],
    )
    assert counted, reply["summary"]
    total, own, hidden = (int(g or 0) for g in counted.groups())
    assert own == len(errors) and total == own + hidden and hidden <= reply["hidden_diagnostics"]
    assert "PORT_MISMATCH" in reply["summary"] and "block_brief" in reply["summary"]
    assert reply["failure"]["kind"] == "compile"
    assert_only_modem_tools(reply)
