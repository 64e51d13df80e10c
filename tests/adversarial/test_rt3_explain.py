"""The first mismatch and its explanation name only signals of the design under test, whatever
a printed line says. A design's $error prints a forged MISMATCH line naming the testbench's
model (`tb_counter.model_r`, the expected values); the host's explanation step is driven with
that line over the real iverilog and waveform servers (MCP stdio): the name is refused before
any lookup, and the DUT's own port is explained under the DUT's scope alone."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client

from silicon_agent.hdl.registry import load_registry
from silicon_agent.host.distill import Dut, explain_first_mismatch
from silicon_agent.servers.core.sv.verdict import MISMATCH
from silicon_agent.servers.core.workspace import STATE_DIR

from .conftest import TB_COUNTER, put
from .test_rt3_verdicts import FORGES_A_MISMATCH, IVERILOG, call
from .test_rt_over_stdio import params

VCD = "silicon_agent.servers.vcd.server"
# What the registry knows of the counter's DUT: the testbench top, its instance, its ports.
COUNTER = Dut("tb_counter", "dut", frozenset({"clk", "rst_n", "en_i", "count_o"}))


def fields(line: str) -> dict[str, str]:
    match = MISMATCH.match(line)
    assert match is not None, line
    return dict(part.split("=", 1) for part in match["fields"].split() if "=" in part)


@pytest.mark.anyio
async def test_a_forged_mismatch_line_never_gets_a_testbench_signal_described(
    adv_root: Path,
) -> None:
    design = put(adv_root, "rt3x/forges.sv", FORGES_A_MISMATCH)
    out = await call(IVERILOG, adv_root, {"design": [design], "testbench": [TB_COUNTER],
                                          "waves": "vcd", "timeout_s": 240})  # fmt: skip
    assert out["status"] == "SIM_FAIL", out["summary"]
    waves = out["artifacts"]["waves"]
    assert STATE_DIR in waves
    log = (adv_root / out["artifacts"]["log"]).read_text()
    forged = fields(next(line for line in log.splitlines() if MISMATCH.match(line)))
    assert forged["signal"] == "tb_counter.model_r", forged
    asked: list[dict] = []
    with anyio.fail_after(300):
        async with Client(params(VCD, adv_root)) as client:

            async def explain(args: dict) -> dict:
                asked.append(args)
                reply = await client.call_tool("explain_mismatch", args)
                return reply.structured_content or {"ok": False, "error": {"message": "none"}}

            async def explained(signal: str, time: str = "40") -> dict:
                asked.clear()
                line = {**forged, "signal": signal, "time": time}
                return await explain_first_mismatch(explain, waves, line, [design], COUNTER)

            # The testbench's model is refused by name: nothing is looked up in the dump.
            result = await explained(forged["signal"], forged["time"])
            assert asked == [] and result["ok"] is False, result
            assert "not a port of the design under test" in result["error"]["message"], result
            # Other testbench signals, however spelled, are refused too.
            for name in ("model_r", "tb_counter.count", "tb_counter.dut.model_r", "cycle"):
                result = await explained(name)
                assert asked == [] and result["ok"] is False, (name, result)
            # The DUT's own port, however the line spells it, is explained under the DUT alone.
            for name in ("count_o", "tb_counter.dut.count_o", "dut.count_o[7:0]"):
                result = await explained(name)
                assert [a["signal"] for a in asked] == ["tb_counter.dut.count_o"], asked
                assert result.get("ok", True), result
                assert result["signal"].endswith("tb_counter.dut.count_o"), result
                window = result.get("window") or {}
                cone = [c.get("dump") for c in result.get("cone", [])]
                shown = [*window.get("signals", []), *cone]
                assert shown and all(n is None or ".dut." in n for n in shown), shown
                assert "model_r" not in str(result), result


def test_the_first_mismatch_shown_names_only_a_port_of_the_dut() -> None:
    """What verify_block and the loop's feedback show: a printed name that is not one of the
    block's ports (registry ports, instance from its trace spec) is dropped."""
    block = load_registry().block("crc_checker")
    dut = Dut.of(block)
    assert dut is not None and dut.scope == "tb_crc_checker.dut"
    line = {"signal": "tb_crc_checker.expected", "time": "1", "expected": "1", "actual": "2"}
    assert dut.mismatch(line) == {**line, "signal": None}
    assert dut.mismatch({**line, "signal": "m_axis_tdata_o"})["signal"] == "m_axis_tdata_o"  # type: ignore[index]
    assert dut.mismatch({**line, "signal": "beats"})["signal"] is None  # type: ignore[index]
