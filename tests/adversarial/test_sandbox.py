"""Confinement: whatever a simulation tries, writes stay in its scratch directory, runaway
runs are killed within their limit, and floods of output never hide the verdict."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.sandbox import plan_sandbox
from silicon_agent.servers.core.sv.flow import SIM_CWD
from silicon_agent.servers.iverilog.api import Icarus

from .conftest import TB_COUNTER, put, wrong_counter

needs_bwrap = pytest.mark.skipif(
    "bwrap" not in plan_sandbox([Path("/tmp")], []).description,
    reason="bubblewrap is not usable here",
)

# The testbench is trusted, but the sandbox must hold for any simulation: this one tries to
# write through the scratch's links into the workspace, above the scratch, and to /tmp.
ESCAPES = """module tb_escape;
  integer fd;
  initial begin
    fd = $fopen("examples/{tag}_via_link.txt", "w");
    if (fd != 0) begin $fdisplay(fd, "x"); $fclose(fd); end
    fd = $fopen("../../../{tag}_above.txt", "w");
    if (fd != 0) begin $fdisplay(fd, "x"); $fclose(fd); end
    fd = $fopen("{root}/{tag}_absolute.txt", "w");
    if (fd != 0) begin $fdisplay(fd, "x"); $fclose(fd); end
    fd = $fopen("/tmp/{tag}_tmp.txt", "w");
    if (fd != 0) begin $fdisplay(fd, "x"); $fclose(fd); end
    fd = $fopen("{tag}_scratch.txt", "w");
    if (fd != 0) begin $fdisplay(fd, "x"); $fclose(fd); end
    $display("Mismatches: 0 in 1 samples");
    $finish;
  end
endmodule
"""


def run(icarus: Icarus, design: list[str], tb: list[str], **kw: object):
    return asyncio.run(icarus.run_testbench(design, tb, **kw))


@needs_bwrap
def test_writes_stay_in_the_scratch_directory(icarus: Icarus, adv_root: Path) -> None:
    tag = f"sa_adv_{uuid.uuid4().hex[:8]}"
    tb = put(adv_root, "sandbox/tb_escape.sv", ESCAPES.format(tag=tag, root=adv_root))
    design = put(adv_root, "sandbox/empty.sv", "module empty_design;\nendmodule\n")
    result = run(icarus, [design], [tb], timeout_s=60)
    assert result.status == Status.PASS, result.summary
    assert "bwrap" in (result.sandbox or "")
    escaped = [
        adv_root / "examples" / f"{tag}_via_link.txt",
        adv_root / f"{tag}_above.txt",
        adv_root / f"{tag}_absolute.txt",
        Path("/tmp") / f"{tag}_tmp.txt",
    ]
    assert [p for p in escaped if p.exists()] == []
    scratch = adv_root / Path(result.artifacts["log"]).parent / SIM_CWD
    assert (scratch / f"{tag}_scratch.txt").read_text() == "x\n"


def test_zero_delay_oscillation_is_killed_at_the_timeout(icarus: Icarus, adv_root: Path) -> None:
    extra = "  logic osc = 0;\n  initial forever #0 osc = ~osc;"
    design = put(adv_root, "sandbox/osc.sv", wrong_counter(extra))
    result = run(icarus, [design], [TB_COUNTER], timeout_s=3)
    assert result.status == Status.TIMEOUT and result.timed_out


def test_memory_hog_design_fails_cleanly(icarus: Icarus, adv_root: Path) -> None:
    # 2**26 words of 1024 bits = 8 GiB: over the address-space limit, so the run must fail.
    extra = (
        "  logic [1023:0] hog [0:(1<<26)-1];\n"
        "  always @(posedge clk) hog[count_r] <= {128{count_r}};"
    )
    design = put(adv_root, "sandbox/hog.sv", wrong_counter(extra))
    result = run(icarus, [design], [TB_COUNTER], timeout_s=60)
    assert result.status in (Status.SIM_FAIL, Status.TOOL_ERROR, Status.COMPILE_FAIL)


def test_a_flood_of_mismatch_lines_stays_a_failure(icarus: Icarus, adv_root: Path) -> None:
    # The CYCLES plusarg (attacker-chosen) turns the wrong counter into ~40k MISMATCH lines,
    # over the 1 MiB output cap and the 10k kept verdict lines.
    design = put(adv_root, "sandbox/flood.sv", wrong_counter())
    result = run(icarus, [design], [TB_COUNTER], plusargs=["CYCLES=40000"], timeout_s=120)
    assert result.status == Status.SIM_FAIL
    assert result.truncated
    assert result.first_mismatch is not None and result.first_mismatch.signal == "count_o"
