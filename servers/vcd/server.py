"""MCP server `mcp-vcd`: a thin layer over servers.vcd.api."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from host.roles.prompts import register_role_prompts
from servers.core.jobs import JobManager
from servers.core.mcp_app import add_job_tools, mcp_progress, serve
from servers.core.workspace import Workspace
from servers.vcd.api import Waves
from servers.vcd.models import (
    CompareResult,
    EventResult,
    ExplainResult,
    HandshakeResult,
    SignalList,
    SummaryResult,
    Table,
)

INSTRUCTIONS = """Waveform dumps (VCD, FST, GHW) for debugging a failing simulation: ask for the
few signals and cycles that matter, never the whole dump. Paths are workspace-relative (a
run_testbench result's artifacts.waves). Times are integer ticks of the dump's timescale (or
strings like '120ns'); a cycle is the index of a clock edge (0 = first rising edge) and is
sampled just before the edge, as the flops see it. Values are hex with width (8'h3f), x/z kept.
Names resolve as simulators write them: 'tb.dut.x', 'TOP.tb.dut.x', 'x' (when unique) and
'data' for 'data[7:0]'. Start a failing run with explain_mismatch(file, signal, time, sources)
using the result's first_mismatch; then window/values_at/find_event/compare to dig.
A cold load of a very large dump can go through job_start(operation='summary', ...)."""

Sample = Literal["before", "after"]
Edge = Literal["rising", "falling"]
Radix = Literal["hex", "bin", "dec"]


def build(workspace: Workspace) -> MCPServer:
    api = Waves(workspace)
    server = MCPServer("silicon-agent-vcd", instructions=INSTRUCTIONS)

    @server.tool()
    async def list_signals(
        file: str, pattern: str | None = None, scope: str | None = None, limit: int = 200
    ) -> SignalList:
        """Signal names with width and kind. pattern: substring, or glob ('*tvalid*') on the
        full or leaf name; scope: only names under this scope ('tb.dut')."""
        return await api.list_signals(file, pattern, scope, limit)

    @server.tool()
    async def values_at(
        file: str,
        signals: list[str],
        times: list[int | str] | None = None,
        cycles: list[int] | None = None,
        clock: str | None = None,
        sample: Sample = "before",
        edge: Edge = "rising",
        radix: Radix = "hex",
    ) -> Table:
        """Values of signals at given times, or at clock cycles (cycles + clock; the clock is
        found next to the first signal when omitted). sample='after' reads the value right
        after the edge instead of the one the edge registers."""
        return await api.values_at(file, signals, times, cycles, clock, sample, edge, radix)

    @server.tool()
    async def window(
        file: str,
        signals: list[str],
        start: int | str = 0,
        end: int | str | None = None,
        clock: str | None = None,
        max_rows: int = 200,
        sample: Sample = "before",
        edge: Edge = "rising",
        radix: Radix = "hex",
    ) -> Table:
        """A table of the signals over [start, end]: one row per change of any of them, or
        with a clock one row per cycle. At most max_rows rows (truncated says when cut)."""
        return await api.window(file, signals, start, end, clock, max_rows, sample, edge, radix)

    @server.tool()
    async def find_event(
        file: str,
        condition: str,
        start: int | str = 0,
        clock: str | None = None,
        sample: Sample = "before",
        edge: Edge = "rising",
        ctx: Context | None = None,
    ) -> EventResult:
        """First time at or after start where a condition holds, e.g.
        "tvalid && tready && tdata == 'h3f" or "count == 7 && $past(count) == 5".
        Operators: ! ~ - * / % + - << >> < <= > >= == != === !== & ^ | && ||, sig[3],
        sig[7:4], literals 12 'h3f 8'hff 'b101 0x3f, $past(e[,n]) $rose $fell $stable
        $changed. With a clock it is checked once per cycle (and $past is a cycle back),
        without one at every change of its signals. x/z makes a condition not hold."""
        return await api.find_event(
            file, condition, start, clock, sample, edge, progress=mcp_progress(ctx)
        )

    @server.tool()
    async def compare(
        file: str,
        reference: str,
        signals: list[str] | None = None,
        clock: str | None = None,
        vector_signal: str | None = None,
        when: str | None = None,
        start: int | str = 0,
        sample: Sample = "before",
        edge: Edge = "rising",
        radix: Radix = "hex",
    ) -> CompareResult:
        """First divergence of a dump from a reference, with time, cycle, signal, expected
        and actual.
        - reference = another dump: compares `signals` (default: every name both share),
          per clock cycle when clock is given (robust to different timescales), else at
          every change.
        - reference = a $readmemh file (hex words, // comments, @addr lines): give
          vector_signal (the dumped signal) and when (the beat condition, e.g.
          'm_axis_tvalid_o && m_axis_tready_i'; default every cycle); beat n is compared with
          the word at address n; x digits in a word are don't-care."""
        return await api.compare(
            file, reference, signals, clock, vector_signal, when, start, sample, edge, radix
        )

    @server.tool()
    async def explain_mismatch(
        file: str,
        signal: str,
        time: int | str,
        sources: list[str] | None = None,
        depth: int = 3,
        clock: str | None = None,
        expected: str | None = None,
        reference: str | None = None,
        cycles_before: int = 8,
        cycles_after: int = 2,
        top: str | None = None,
    ) -> ExplainResult:
        """The one call for a failing run: give the failing signal and time (a
        run_testbench result's first_mismatch.signal/.time) and the RTL sources. Returns when
        the signal took its wrong value, its fan-in cone from the RTL (depth levels) mapped to
        dumped names, a per-cycle window of that cone around the failure, AXI-Stream
        handshake counts (beats, stalls, bubbles) nearby, and notes. With reference (a good
        dump) it first finds the real first divergence at or after time."""
        return await api.explain_mismatch(
            file, signal, time, sources, depth, clock, expected, reference,
            cycles_before, cycles_after, top,
        )  # fmt: skip

    @server.tool()
    async def handshake_stats(
        file: str,
        prefix: str | None = None,
        clock: str | None = None,
        start: int | str = 0,
        end: int | str | None = None,
        edge: Edge = "rising",
    ) -> HandshakeResult:
        """Per AXI-Stream interface (<prefix>_tvalid/_tready/_tdata/_tlast, also with _i/_o
        suffixes): beats, stalls (valid without ready), bubbles (ready without valid), idle,
        longest stall. prefix filters ('s_axis' or 'tb.dut.m_axis'); omitted = all."""
        return await api.handshake_stats(file, prefix, clock, start, end, edge)

    @server.tool()
    async def render(
        file: str,
        signals: list[str],
        start: int | str = 0,
        end: int | str | None = None,
        format: Literal["svg", "png"] = "png",
        out: str | None = None,
        marker: int | str | None = None,
    ) -> list[Image | str]:
        """A waveform picture of up to 32 signals over [start, end] (1-bit lanes, bus lanes
        with values, time axis, optional marker line), returned as an image and saved in the
        workspace (out, or .silicon-agent/vcd/renders/). The text part gives the saved path."""
        info, data = await api.render(file, signals, start, end, format, out, marker)
        if not info.ok or data is None:
            assert info.error is not None
            hint = f" ({info.error.hint})" if info.error.hint else ""
            raise ToolError(info.error.message + hint)
        mime = "svg+xml" if format == "svg" else "png"
        return [Image(data=data, format=mime), info.model_dump_json(exclude_none=True)]

    @server.tool()
    async def summary(file: str, top: int = 10, ctx: Context | None = None) -> SummaryResult:
        """Format, timescale, time range, signal counts, top scopes and the busiest signals
        (most changes). The first call on a dump parses it; later calls reuse the parse."""
        return await api.summary(file, top, progress=mcp_progress(ctx))

    async def job_summary(args: dict[str, Any], progress: Any) -> SummaryResult:
        return await api.summary(**args, progress=progress)

    async def job_find_event(args: dict[str, Any], progress: Any) -> EventResult:
        return await api.find_event(**args, progress=progress)

    async def job_compare(args: dict[str, Any], progress: Any) -> CompareResult:
        return await api.compare(**args)

    async def job_explain(args: dict[str, Any], progress: Any) -> ExplainResult:
        return await api.explain_mismatch(**args)

    add_job_tools(
        server,
        JobManager(
            {
                "summary": job_summary,
                "find_event": job_find_event,
                "compare": job_compare,
                "explain_mismatch": job_explain,
            }
        ),
    )
    register_role_prompts(server)
    return server


def main() -> None:
    serve(build, "mcp-vcd")


if __name__ == "__main__":
    main()
