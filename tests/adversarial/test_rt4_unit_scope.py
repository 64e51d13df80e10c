"""Red team rt4: a candidate that changes what the hidden testbench sees without defining the
package it uses, over real MCP stdio through `agent-host serve` (Icarus).

The candidate (a qam_demodulator with a 1-LSB error in one level, which its testbench catches)
declares in the compilation unit, ahead of its module, the testbench package's constants
narrowed (`LLR_W = 1`, the width the testbench compares by) and the testbench's own local
names, a `$unit` typedef and function named like package members, and leaves directives open
after its module (`timescale`, `default_nettype none`, `unconnected_drive`, `celldefine`,
`begin_keywords`). Defended: the testbench's module-scope wildcard import is found before the
compilation unit's names, and the server closes what the design left open, so the verdict stays
the design's own mismatch."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..host.test_modem_feedback import LEVEL, QAM, verify

pytestmark = pytest.mark.anyio

UNIT_HEAD = """`timescale 1s/1s
localparam int LLR_W = 1;
localparam int EQ_TDATA_W = 2;
localparam int MAX_SYM = 2;
localparam logic [1:0] MOD_QPSK = 2'd3;
typedef logic [0:0] llr_t;
function automatic int errors_of(input int x); return 0; endfunction
"""
OPEN_TAIL = """
`default_nettype none
`unconnected_drive pull1
`celldefine
`begin_keywords "1364-2005"
"""


async def test_unit_scope_names_and_open_directives_do_not_change_the_verdict(
    tmp_path: Path,
) -> None:
    mutant = QAM.replace(LEVEL, LEVEL.replace("1295", "1296"))
    reply = await verify(tmp_path, "qam_demodulator", UNIT_HEAD + mutant + OPEN_TAIL)
    # Safe: the design's own mismatch (a refusal of the candidate's $unit text would also do,
    # but never PASS and never an error in the hidden harness).
    assert reply["status"] in ("SIM_FAIL", "COMPILE_FAIL"), reply
    if reply["status"] == "COMPILE_FAIL":
        assert reply.get("hidden_diagnostics") in (0, None), reply
        return
    assert reply["failure"]["kind"] == "mismatch", reply["failure"]
    assert reply["first_mismatch"]["signal"] == "m_axis_tdata_o", reply["first_mismatch"]
    assert reply["mismatch_count"], reply
