"""Red team rt4: a candidate's own `include reaches the hidden run's files, over real MCP
stdio through `agent-host serve` (Icarus).

Hole (closed: a candidate's include may name only its own files): verify_block stages the
candidate in `calls/call-<id>/candidate/` of the modem's private folder, beside the hidden
testbench (`hdl/tb/`), its header and this call's golden vectors (`.hidden-
vectors/<block>/<case>/`); the simulator server's workspace is that private folder, so its
include check (inside the workspace, not in the server's own state folder) lets the candidate
`include "../.hidden-vectors/qam_demodulator/qpsk_drawn/expected_llr.hex"` (the answer key of
this call) or `"../hdl/tb/tb_harness.svh"` (hidden testbench text). The design text then holds
the hidden file: today its tokens only fail to parse (550, 180, 772 syntax errors on three
seeds, counted in the reply: the count follows the hidden expected values, a side channel
replayable by the call's seed), and any hidden file that parses (a header with macros) becomes
design code (the harness header is refused only for the name of the function it declares, in
the hidden file). A fix: the candidate's includes resolve only among the candidate's own files
(stage them in a folder of their own that holds nothing hidden, or give the simulator server
`private`/listed paths that name the hidden assets), and an include of anything else is refused
on the candidate's line before a token of it is read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..host.test_modem_feedback import QAM, verify

pytestmark = pytest.mark.anyio

HIDDEN = [
    "../.hidden-vectors/qam_demodulator/qpsk_drawn/expected_llr.hex",
    "../hdl/tb/tb_harness.svh",
]


@pytest.mark.parametrize("hidden", HIDDEN, ids=["expected_vectors", "harness_header"])
async def test_a_candidate_cannot_include_the_hidden_runs_files(
    tmp_path: Path, hidden: str
) -> None:
    reply = await verify(tmp_path, "qam_demodulator", QAM + f'\n`include "{hidden}"\n')
    assert reply["status"] in ("COMPILE_FAIL", "INVALID_INPUT"), reply
    # Safe: refused on the candidate's own line, before anything of the hidden file is read
    # (nothing of it parsed, so nothing of it counted).
    assert not reply.get("hidden_diagnostics"), (reply["summary"], reply.get("hidden_diagnostics"))
    assert "hidden harness reported" not in reply["summary"], reply["summary"]
