"""Red team rt4: the failure kinds of verify_block (no output, mismatch) over real MCP stdio
through `agent-host serve`. A failing candidate prints the harness's watchdog line itself
(`signal=beats`, the line that makes a run read as "no output"), with and without a guess at
the verdict tag, before its first wrong value: the run must still read as the mismatch it is,
with the DUT's port named, never as a stall. Defended: verdict lines carry the run's secret."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..host.test_modem_feedback import LEVEL, QAM, verify

pytestmark = pytest.mark.anyio

FORGED_WATCHDOG = """
  initial begin
    $error("x%cMISMATCH time=0 cycle=0 signal=beats expected=00000004 actual=00000000", 8'd10);
    $error("x%c[sa:0] MISMATCH time=0 cycle=0 signal=beats expected=4 actual=0%c%s", 8'd10,
           8'd10, "[sa:0] Mismatches: 1 in 1 samples");
  end
"""


async def test_a_printed_watchdog_line_does_not_make_a_mismatch_read_as_no_output(
    tmp_path: Path,
) -> None:
    mutant = QAM.replace(LEVEL, LEVEL.replace("1295", "1296"))
    at = mutant.rindex("endmodule")
    mutant = mutant[:at] + FORGED_WATCHDOG + mutant[at:]
    reply = await verify(tmp_path, "qam_demodulator", mutant)
    # The design's own $error fails the run it prints in (the first drawn case, QPSK, where the
    # trace sees every beat right, so the verdict is withheld), or its wrong 16QAM level is the
    # mismatch; either way never PASS, never a stall, and never the forged line's signal.
    assert reply["status"] in ("SIM_FAIL", "INVALID_INPUT"), reply.get("diagnostics")
    assert "no output" not in reply["summary"], reply["summary"]
    assert (reply.get("failure") or {}).get("kind") != "no_output", reply["failure"]
    if reply["status"] == "SIM_FAIL":
        assert reply["first_mismatch"]["signal"] == "m_axis_tdata_o", reply["first_mismatch"]
        assert reply["mismatch_count"], reply
    else:
        assert reply.get("first_mismatch") is None, reply["first_mismatch"]
        assert reply["trace"]["passed"] and not reply["trace"]["agrees"], reply["trace"]


# A candidate that ends the run itself, before any output, with the watchdog's words.
FATAL_WATCHDOG = """
  initial #200 $fatal(0, "x%cMISMATCH time=200 cycle=20 signal=beats expected=4 actual=0%c%s",
                      8'd10, 8'd10, "Mismatches: 1 in 1 samples");
"""


async def test_a_design_that_ends_the_run_with_the_watchdog_words_is_not_a_stall(
    tmp_path: Path,
) -> None:
    text = QAM
    at = text.rindex("endmodule")
    reply = await verify(tmp_path, "qam_demodulator", text[:at] + FATAL_WATCHDOG + text[at:])
    assert reply["status"] != "PASS", reply
    # Safe: the run ended by the design's own $fatal is never the harness's no-output verdict,
    # and names no testbench signal.
    assert (reply.get("failure") or {}).get("kind") != "no_output", reply.get("failure")
    assert "no output" not in reply["summary"], reply["summary"]
    assert (reply.get("first_mismatch") or {}).get("signal") in (None, "m_axis_tdata_o"), reply
