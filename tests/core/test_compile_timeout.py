"""Compiles obey the call's timeout like simulations do: a design that takes forever to
elaborate (a 300 x 300 generate loop: under slang's step limit, whose error would refuse it
at once) is stopped at timeout_s, on both simulators and in slang's analysis, with a TIMEOUT
naming the limit; the same flow then answers a good call."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from silicon_agent.servers.core.bounded import (
    MEMORY_MB,
    CallCrashed,
    CallOutOfMemory,
    CallTimedOut,
    call_bounded,
    run_bounded,
)
from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.verilator.api import Verilator
from tests.conftest import processes_mentioning

HUGE = """module huge_gen(input logic clk, output logic [7:0] q);
  genvar i, j;
  for (i = 0; i < 300; i++) begin : row
    for (j = 0; j < 300; j++) begin : col
      logic r;
      always_ff @(posedge clk) r <= ~r;
    end
  end
  assign q = 8'd0;
endmodule
"""
TB = """module tb_huge;
  logic clk = 0;
  logic [7:0] q;
  huge_gen dut(.clk(clk), .q(q));
  initial begin
    $display("Mismatches: 0 in 1 samples");
    $finish;
  end
endmodule
"""
LIMIT_S = 4.0


def _spin(seconds: float) -> str:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return "done"


def _fail() -> None:
    raise ValueError("from the worker")


def test_bounded_calls_return_raise_and_stop() -> None:
    assert run_bounded(_spin, 0.01, timeout_s=30) == "done"
    with pytest.raises(ValueError, match="from the worker"):
        run_bounded(_fail, timeout_s=30)
    started = time.monotonic()
    with pytest.raises(CallTimedOut, match="timeout_s=0.5"):
        asyncio.run(call_bounded(_spin, 600, timeout_s=0.5))
    assert time.monotonic() - started < 30
    assert asyncio.run(call_bounded(_spin, 0.01, timeout_s=30)) == "done"


@pytest.mark.slow
@pytest.mark.parametrize("simulator", [Icarus, Verilator])
def test_a_compile_that_never_ends_stops_at_the_call_timeout(
    workspace_dir: Path, simulator: type[Icarus] | type[Verilator]
) -> None:
    for name, text in (("huge_gen.sv", HUGE), ("tb_huge.sv", TB)):
        (workspace_dir / name).write_text(text)
        (workspace_dir / name).chmod(0o644)
    flow = simulator(Workspace.open(workspace_dir))
    started = time.monotonic()
    result = asyncio.run(flow.run_testbench(["huge_gen.sv"], ["tb_huge.sv"], timeout_s=LIMIT_S))
    elapsed = time.monotonic() - started
    assert result.status == Status.TIMEOUT, result.summary
    assert f"timeout_s={LIMIT_S:g}" in result.summary
    # Killed at the limit, not when the compiler or slang gave up (over 300 s before).
    assert elapsed < LIMIT_S * 5 + 30, elapsed
    time.sleep(0.5)
    assert processes_mentioning(str(workspace_dir / "huge_gen.sv")) == []
    good = asyncio.run(
        flow.run_testbench(
            ["examples/counter/counter.sv"], ["examples/counter/tb_counter.sv"], timeout_s=600
        )
    )
    assert good.status == Status.PASS, good.summary


@pytest.mark.slow
def test_the_compile_tool_obeys_its_limit(workspace_dir: Path) -> None:
    (workspace_dir / "huge_gen.sv").write_text(HUGE)
    (workspace_dir / "huge_gen.sv").chmod(0o644)
    icarus = Icarus(Workspace.open(workspace_dir))
    icarus.compile_timeout_s = LIMIT_S
    result = asyncio.run(icarus.compile(["huge_gen.sv"]))
    assert result.status == Status.TIMEOUT and f"timeout_s={LIMIT_S:g}" in result.summary
    good = asyncio.run(icarus.compile(["examples/counter/counter.sv"]))
    assert good.status == Status.PASS, good.summary


def _macro_bomb(levels: int) -> str:
    """A short file whose one use expands to 2**levels tokens in the preprocessor."""
    lines = ["`define M0 1'b0 ^"]
    lines += [f"`define M{i} `M{i - 1} `M{i - 1}" for i in range(1, levels + 1)]
    lines.append(f"module bomb(output logic q); assign q = `M{levels} 1'b0; endmodule")
    return "\n".join(lines) + "\n"


def _grab(megabytes: int) -> int:
    return len(bytearray(megabytes * 1024 * 1024))


def test_a_preprocessor_bomb_stops_at_the_call_timeout(workspace_dir: Path) -> None:
    # 600 bytes that take the preprocessor ~40 s and ~2 GB: made in the killable worker,
    # not in the server's own process.
    (workspace_dir / "bomb.sv").write_text(_macro_bomb(20))
    (workspace_dir / "bomb.sv").chmod(0o644)
    (workspace_dir / "tb_huge.sv").write_text(TB.replace("huge_gen dut(.clk(clk), .q(q));", ""))
    (workspace_dir / "tb_huge.sv").chmod(0o644)
    flow = Icarus(Workspace.open(workspace_dir))
    started = time.monotonic()
    result = asyncio.run(flow.run_testbench(["bomb.sv"], ["tb_huge.sv"], timeout_s=LIMIT_S))
    elapsed = time.monotonic() - started
    assert result.status == Status.TIMEOUT, result.summary
    assert "slang" in result.summary and f"timeout_s={LIMIT_S:g}" in result.summary
    assert elapsed < LIMIT_S * 3 + 10, elapsed


def test_a_worker_past_its_memory_cap_gives_a_structured_stop() -> None:
    with pytest.raises(CallOutOfMemory, match=f"more than {MEMORY_MB} MB"):
        run_bounded(_grab, MEMORY_MB + 64, timeout_s=60)
    assert run_bounded(_grab, 1, timeout_s=60) == 1024 * 1024


def _segfault() -> None:
    os.kill(os.getpid(), signal.SIGSEGV)


def test_a_worker_that_crashes_gives_a_structured_stop() -> None:
    with pytest.raises(CallCrashed, match="killed by signal 11"):
        run_bounded(_segfault, timeout_s=60)
    assert run_bounded(_grab, 1, timeout_s=60) == 1024 * 1024


@pytest.mark.slow
def test_a_design_that_crashes_the_preprocessor_is_a_compile_failure(workspace_dir: Path) -> None:
    # With time to run, the same bomb crashes slang (its stack); the server's own process
    # lives on and answers with a structured failure naming the cause.
    (workspace_dir / "bomb.sv").write_text(_macro_bomb(20))
    (workspace_dir / "tb_huge.sv").write_text(TB.replace("huge_gen dut(.clk(clk), .q(q));", ""))
    for name in ("bomb.sv", "tb_huge.sv"):
        (workspace_dir / name).chmod(0o644)
    flow = Icarus(Workspace.open(workspace_dir))
    result = asyncio.run(flow.run_testbench(["bomb.sv"], ["tb_huge.sv"], timeout_s=600))
    assert result.status in (Status.COMPILE_FAIL, Status.TIMEOUT), result.summary
    assert "slang's analysis" in result.summary, result.summary
    assert result.diagnostics and result.diagnostics[0].hint
