"""Red team rt4: the verify_block digest (explain_mismatch's cone, window and input beats) over
real MCP stdio through `agent-host serve`, attacked by a candidate's own sources.

Hole (closed): the digest's input beats read testbench variables. `explain_mismatch` is asked
for `tb.dut.m_axis_tdata_o` with the candidate's files as its sources and no top, so every
module of the candidate is a root of the driver graph. A candidate that adds an uninstantiated
module named `dut` with an output `m_axis_tdata_o` makes the dump name end with that module's
net (`...dut.m_axis_tdata_o`): the net maps to the module `dut` with the testbench's top
(`tb_qam_demodulator.`) as its prefix, and `input_beats` reads each input port of that module
as `tb_qam_demodulator.<port>`. Input ports named like the testbench's variables (`s_tvalid`,
`s_tready` for the stream, `n_sym`, `qm`, `seed`, `errors`, `limit` as "configuration") come
back in `explanation.inputs` with the testbench's values: `distill.within` cuts the cone,
the window and the handshakes to the DUT's scope, but not `inputs`. A fix: give
explain_mismatch the block's top (`top=<block>`) so a stray module is no root, and cut
`inputs` in `within` to the DUT's ports (a beat's stream prefix and value names must be ports
of the block), or have input_beats read only names under the DUT's instance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from silicon_agent.hdl.registry import load_registry

from ..host.modem_scenario import reference
from ..host.test_modem_feedback import LEVEL, QAM, verify

pytestmark = pytest.mark.anyio

# A module the testbench never instantiates: the driver graph still elaborates it as a root.
DECOY_DUT = """
module dut (
    input  logic        s_tvalid,
    input  logic        s_tready,
    input  logic [31:0] n_sym,
    input  logic [31:0] qm,
    input  logic [31:0] seed,
    input  logic [31:0] errors,
    input  logic [31:0] limit,
    output logic [7:0]  m_axis_tdata_o
);
  assign m_axis_tdata_o = n_sym[7:0] ^ qm[7:0] ^ seed[7:0] ^ errors[7:0] ^ limit[7:0];
endmodule
"""


def block_ports(name: str) -> set[str]:
    return {p.name for p in load_registry().block(name).ports}


async def test_the_digest_input_beats_name_only_the_dut_ports(tmp_path: Path) -> None:
    assert "module dut" not in reference("qam_demodulator")
    mutant = QAM.replace(LEVEL, LEVEL.replace("1295", "1296")) + DECOY_DUT
    reply: dict[str, Any] = await verify(tmp_path, "qam_demodulator", mutant)
    assert reply["status"] == "SIM_FAIL", reply
    explained = reply.get("explanation") or {}
    ports = block_ports("qam_demodulator")
    shown = {name for beat in explained.get("inputs") or [] for name in beat["values"]}
    streams = {beat["port"] for beat in explained.get("inputs") or []}
    # Safe: the input beats are the DUT's own input ports (s_axis, modulation_i), never the
    # testbench's variables read under names the candidate chose.
    assert shown <= ports, (shown - ports, explained.get("inputs"))
    assert streams <= {"s_axis"}, streams
