"""A cached PASS must not outlive a change to any file the compile read."""

from __future__ import annotations

import asyncio
import os

import pytest

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.iverilog.api import Icarus

from .conftest import TB_COUNTER, put

pytestmark = pytest.mark.skipif(
    os.environ.get("SILICON_AGENT_NO_CACHE") == "1", reason="the result cache is turned off"
)

DESIGN = """module counter #(parameter int WIDTH = 8) (
    input logic clk, input logic rst_n, input logic en_i, output logic [WIDTH-1:0] count_o
);
  logic [WIDTH-1:0] count_r;
  always_ff @(posedge clk) if (!rst_n) count_r <= '0; else if (en_i) count_r <= count_r + {step};
  assign count_o = count_r;
endmodule
"""


def run(icarus: Icarus, design: str, **kw: object):
    return asyncio.run(icarus.run_testbench([design], [TB_COUNTER], timeout_s=60, **kw))


def test_editing_a_directly_included_file_is_seen(icarus: Icarus, adv_root) -> None:
    put(adv_root, "stale1/body.svh", DESIGN.format(step="1'b1"))
    design = put(adv_root, "stale1/top.sv", '`include "stale1/body.svh"\n')
    assert run(icarus, design).status == Status.PASS
    put(adv_root, "stale1/body.svh", DESIGN.format(step="2'd2"))
    again = run(icarus, design)
    assert again.status == Status.SIM_FAIL, f"{again.status} cache_hit={again.cache_hit}"


def test_editing_a_file_in_an_include_dir_is_seen(icarus: Icarus, adv_root) -> None:
    put(adv_root, "stale2/inc/body.svh", DESIGN.format(step="1'b1"))
    design = put(adv_root, "stale2/top.sv", '`include "body.svh"\n')
    assert run(icarus, design, include_dirs=["stale2/inc"]).status == Status.PASS
    put(adv_root, "stale2/inc/body.svh", DESIGN.format(step="2'd2"))
    assert run(icarus, design, include_dirs=["stale2/inc"]).status == Status.SIM_FAIL


def test_editing_a_nested_include_is_seen(icarus: Icarus, adv_root) -> None:
    put(adv_root, "stale3/body.svh", DESIGN.format(step="1'b1"))
    put(adv_root, "stale3/middle.svh", '`include "stale3/body.svh"\n')
    design = put(adv_root, "stale3/top.sv", '`include "stale3/middle.svh"\n')
    assert run(icarus, design).status == Status.PASS
    put(adv_root, "stale3/body.svh", DESIGN.format(step="2'd2"))
    again = run(icarus, design)
    assert again.status == Status.SIM_FAIL, f"{again.status} cache_hit={again.cache_hit}"


def test_an_edit_during_the_run_is_never_cached_under_the_old_content(
    icarus: Icarus, adv_root, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key is made from the passing design; the design is then swapped for the failing one
    before the compiler reads it. Caching that verdict under the passing design's key would
    answer the next call on the passing design with a failure."""
    design = put(adv_root, "stale4/counter.sv", DESIGN.format(step="1'b1"))
    original_build = Icarus.build

    async def edit_then_build(self, *args, **kwargs):
        put(adv_root, "stale4/counter.sv", DESIGN.format(step="2'd2"))
        return await original_build(self, *args, **kwargs)

    monkeypatch.setattr(Icarus, "build", edit_then_build)
    during = run(icarus, design)
    # Neither design's verdict: the checks and the compiler may have read different bytes.
    assert during.status == Status.INVALID_INPUT, during.summary
    first = during.diagnostics[0]
    assert first.file == design and "changed while the tool ran" in first.message
    monkeypatch.setattr(Icarus, "build", original_build)

    put(adv_root, "stale4/counter.sv", DESIGN.format(step="1'b1"))
    after = run(icarus, design)
    assert after.status == Status.PASS, f"{after.status} cache_hit={after.cache_hit}"
    assert not after.cache_hit
    # Undisturbed runs are cached as before.
    assert run(icarus, design).cache_hit
