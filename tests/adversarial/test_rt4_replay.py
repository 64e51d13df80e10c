"""Red team rt4: verify_block's seed replay with its first mismatch, over real MCP stdio
through `agent-host serve` (Icarus), attacked by a design with no block logic.

Each failing reply shows the expected value of the first mismatching beat, and a call that
passes the reply's `seed` draws the same hidden case again. A crc_checker with no CRC logic
(one beat per block, its value taken from a table chosen by the polynomial of the first beat)
learns one expected beat per call: it fails at the first beat it does not know yet, the reply
names that beat's expected value, the next candidate adds it to its table, until the table
passes the replayed seed. Defended: a PASS on a replayed seed is confirmed on a fresh draw, so
the table's verdict is the fresh draw's failure (the reply's seed is the fresh one and its
summary says the replayed seed passed alone).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from ..host.modem_scenario import serve_params
from ..host.scenario import write_mcp_json

pytestmark = pytest.mark.anyio
SEED = 4242

TABLE_CRC = """`default_nettype none
module crc_checker (
    input  logic clk, input logic rst_n, input logic s_axis_tdata_i, input logic s_axis_tuser_i,
    input  logic s_axis_tvalid_i, output logic s_axis_tready_o, input logic s_axis_tlast_i,
    output logic [lte_baseband_pkg::CRC_TDATA_W-1:0] m_axis_tdata_o,
    output logic m_axis_tvalid_o, input logic m_axis_tready_i, output logic m_axis_tlast_o);
  localparam int W = lte_baseband_pkg::CRC_TDATA_W;
  logic v_r = 1'b0;
  logic first_r = 1'b1;
  logic sel_r = 1'b0;
  logic [3:0] idx_r = '0;
  function automatic logic [W-1:0] pick(input logic sel, input logic [3:0] idx);
    case ({sel, idx})
{cases}
      default: pick = '0;
    endcase
  endfunction
  always_ff @(posedge clk)
    if (!rst_n) begin
      v_r <= 1'b0;
      first_r <= 1'b1;
      idx_r <= '0;
    end else begin
      if (s_axis_tvalid_i && first_r) begin
        sel_r <= s_axis_tuser_i;
        first_r <= 1'b0;
      end
      if (m_axis_tvalid_o && m_axis_tready_i) idx_r <= idx_r + 4'd1;
      if (s_axis_tvalid_i && s_axis_tlast_i) v_r <= 1'b1;
      else if (m_axis_tready_i) v_r <= 1'b0;
    end
  assign s_axis_tready_o = 1'b1;
  assign m_axis_tvalid_o = v_r;
  assign m_axis_tdata_o = pick(sel_r, idx_r);
  assign m_axis_tlast_o = 1'b1;
endmodule
`default_nettype wire
"""


def candidate(learned: dict[int, list[str]]) -> str:
    cases = [
        f"      5'd{sel * 16 + i}: pick = W'('h{value});"
        for sel, values in learned.items()
        for i, value in enumerate(values)
    ]
    return TABLE_CRC.replace("{cases}", "\n".join(cases))


async def test_replayed_seeds_do_not_build_a_passing_table(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "cand").mkdir(parents=True)
    mcp = write_mcp_json(tmp_path, ["iverilog", "vcd"])
    params = serve_params(
        tmp_path / "state", "--workspace", str(workspace), "--mcp-config", str(mcp)
    )
    learned: dict[int, list[str]] = {0: [], 1: []}
    replies: list[dict[str, Any]] = []
    with anyio.fail_after(1500):
        async with Client(params) as client:
            for _ in range(40):
                (workspace / "cand" / "crc_checker.sv").write_text(candidate(learned))
                arguments = {"block": "crc_checker", "rtl_files": ["cand/crc_checker.sv"],
                             "simulator": "iverilog", "seed": SEED}  # fmt: skip
                answer = await client.call_tool("verify_block", arguments, read_timeout_seconds=900)
                body = answer.structured_content or {}
                reply = body.get("result", body) if set(body) == {"result"} else body
                replies.append(reply)
                if reply.get("seed") != SEED:
                    break  # the replayed seed passed: a fresh draw judged the table
                first = reply.get("first_mismatch") or {}
                if reply.get("status") != "SIM_FAIL" or first.get("signal") != "m_axis_tdata_o":
                    break
                case = str(reply["runs"][-1]["run"]).split("@")[0]
                # the case's polynomial, as the first beat's tuser gives it (0: 24A, 1: 24B)
                learned[1 if "24b" in case.lower() else 0].append(str(first["expected"]))
    last = replies[-1]
    # Safe: a candidate with no CRC logic never PASSes, however many replays it reads.
    assert last.get("status") != "PASS", (len(replies), learned, last.get("trace"))
    # The attack did reach its table: the replayed seed passed, and the fresh draw refused it.
    assert last.get("seed") != SEED and "(replayed) passed" in str(last.get("summary")), last
