"""The loop's no-output path: a candidate whose input ready is tied low stalls the receiver's
hidden harness, and the Reflection/Debug prompts say so in words (the no-output message and
each stream's handshakes) instead of a first mismatch on a signal the design does not have.
Real Icarus and waveform servers over MCP stdio, a scripted team."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from silicon_agent.host.run_setup import create_run
from silicon_agent.host.runs import execute_run
from silicon_agent.host.state import BlockStatus

from .modem_scenario import BLOCKS_YAML, mutant_then_fix_rules, reference, write_config
from .scenario import write_mcp_json
from .test_modem_loop import prompts, steps

QAM = reference("qam_demodulator")
READY = "assign s_axis_tready_o = !sym_valid_r || sym_done_w;"
STALL_REFLECTION = {
    "structured": {
        "hypotheses": [
            {
                "cause": "the input is never accepted",
                "evidence": "s_axis held tvalid high with tready low until the harness stopped",
                "suspect_signal": "s_axis_tready_o",
            }
        ],
        "fix_plan": "raise tready when the symbol register is free",
    }
}


@pytest.mark.slow
def test_a_stalled_candidate_reaches_debug_with_no_output_and_handshakes(tmp_path: Path) -> None:
    assert QAM.count(READY) == 1
    stalled = QAM.replace(READY, "assign s_axis_tready_o = 1'b0;")
    rules = mutant_then_fix_rules("qam_demodulator", stalled, QAM, STALL_REFLECTION)
    config = write_config(tmp_path, rules)
    mcp = write_mcp_json(tmp_path, ["iverilog", "vcd"])
    run = create_run(
        BLOCKS_YAML, tmp_path / "runs", str(config), str(mcp), only=["qam_demodulator"], run_id="s"
    )
    states = asyncio.run(execute_run(run))
    assert states["qam_demodulator"].status == BlockStatus.PASSED
    done = steps(run, "qam_demodulator")
    debug_prompts = prompts(run, "reflection_debug")
    kinds = [(k, o, i) for k, o, i, _ in done]
    assert ("simulate", "SIM_FAIL", 1) in kinds and ("simulate", "PASS", 2) in kinds, kinds
    (distill,) = [d for k, _, _, d in done if k == "distill"]
    assert distill["ok"] is True and distill["no_output"] is True, distill
    assert len(debug_prompts) == 2, debug_prompts  # the reflection, then the debug step
    for prompt in debug_prompts:
        said = re.search(r"no output: the design gave 0 of (\d+) expected output beats", prompt)
        assert said and int(said[1]) > 0, prompt
        # each of the design's streams in words, the input held back by its tready
        lines = {m[1]: m[0] for m in re.finditer(r"^(\w+) \((?:input|output)\): .*$", prompt, re.M)}
        assert set(lines) == {"s_axis", "m_axis"}, prompt
        assert lines["s_axis"].startswith("s_axis (input): 0 beats"), lines
        held = re.search(r"tvalid high with tready low (\d+) cycles", lines["s_axis"])
        assert held and int(held[1]) > 1000, lines["s_axis"]
        assert lines["m_axis"].startswith("m_axis (output): 0 beats"), lines
        # no first mismatch on the harness's beat count, no waveform tool's error or hint
        assert "signal=beats" not in prompt and "First mismatch" not in prompt, prompt
        assert "no signal" not in prompt and "list_signals" not in prompt, prompt
        assert '"cone"' not in prompt, prompt
