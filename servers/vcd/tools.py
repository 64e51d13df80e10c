"""The `mcp-vcd` tool registry: what each tool is, over `Waves`'s methods."""

from __future__ import annotations

from mcp.server.mcpserver import Image
from mcp.server.mcpserver.exceptions import ToolError

from silicon_agent.servers.core.registry import READS, WRITES, Registry, Tool
from silicon_agent.servers.core.server_info import wheel_info

from .api import MAX_POINTS, MAX_ROWS, MAX_SCAN, MAX_SIGNALS
from .models import RenderInfo

INSTRUCTIONS = """Waveform dumps (VCD, FST, GHW) for debugging a failing simulation: ask for the
few signals and cycles that matter, never the whole dump. Paths are workspace-relative (a
run_testbench result's artifacts.waves). Times are integer ticks of the dump's timescale (or
strings like '120ns'); a cycle is the index of a clock edge (0 = first rising edge) and is
sampled just before the edge, as the flops see it. Values are hex with width (8'h3f), x/z kept.
Names resolve as simulators write them: 'tb.dut.x', 'TOP.tb.dut.x', 'x' (when unique) and
'data' for 'data[7:0]'. Start a failing run with explain_mismatch(file, signal, time, sources)
using the result's first_mismatch; then window/values_at/find_event/compare to dig.
A cold load of a very large dump can go through job_start(operation='summary', ...)."""

SIGNALS = f"<= {MAX_SIGNALS} signals"
ROWS = f"<= {MAX_ROWS} rows"
SCAN = f"<= {MAX_SCAN} points scanned"


def picture(made: tuple[RenderInfo, bytes | None]) -> list[Image | str]:
    """The picture as an MCP image plus the saved path as text; a refusal is a tool error."""
    info, data = made
    if not info.ok or data is None:
        assert info.error is not None
        hint = f" ({info.error.hint})" if info.error.hint else ""
        raise ToolError(info.error.message + hint)
    mime = "svg+xml" if info.format == "svg" else "png"
    return [Image(data=data, format=mime), info.model_dump_json(exclude_none=True)]


REGISTRY = Registry(
    server="vcd",
    title="Waveforms",
    instructions=INSTRUCTIONS,
    toolchain=lambda: [wheel_info("pywellen"), wheel_info("pillow")],
    tools=(
        Tool(
            name="list_signals",
            method="list_signals",
            title="List signals",
            description="""Signal names with width and kind. pattern: substring, or glob
('*tvalid*') on the full or leaf name; scope: only names under this scope ('tb.dut').""",
            hints=READS,
        ),
        Tool(
            name="values_at",
            method="values_at",
            title="Values at times or cycles",
            description="""Values of signals at given times, or at clock cycles (cycles +
clock; the clock is found next to the first signal when omitted). sample='after' reads the
value right after the edge instead of the one the edge registers.""",
            hints=READS,
            limits={"signals": SIGNALS, "points": f"<= {MAX_POINTS} times or cycles"},
        ),
        Tool(
            name="window",
            method="window",
            title="Window of signals",
            description="""A table of the signals over [start, end]: one row per change of any
of them, or with a clock one row per cycle. At most max_rows rows (truncated says when
cut).""",
            hints=READS,
            limits={"signals": SIGNALS, "rows": ROWS},
        ),
        Tool(
            name="find_event",
            method="find_event",
            title="Find an event",
            description="""First time at or after start where a condition holds, e.g.
"tvalid && tready && tdata == 'h3f" or "count == 7 && $past(count) == 5".
Operators: ! ~ - * / % + - << >> < <= > >= == != === !== & ^ | && ||, sig[3],
sig[7:4], literals 12 'h3f 8'hff 'b101 0x3f, $past(e[,n]) $rose $fell $stable
$changed. With a clock it is checked once per cycle (and $past is a cycle back),
without one at every change of its signals. x/z makes a condition not hold.""",
            hints=READS,
            job=True,
            limits={"scan": SCAN},
            internal=("max_points",),
        ),
        Tool(
            name="compare",
            method="compare",
            title="Compare with a reference",
            description="""First divergence of a dump from a reference, with time, cycle,
signal, expected and actual.
- reference = another dump: compares `signals` (default: every name both share), per clock
  cycle when clock is given (robust to different timescales), else at every change.
- reference = a $readmemh file (hex words, // comments, @addr lines): give vector_signal
  (the dumped signal) and when (the beat condition, e.g. 'm_axis_tvalid_o &&
  m_axis_tready_i'; default every cycle); beat n is compared with the word at address n;
  x digits in a word are don't-care.""",
            hints=READS,
            job=True,
            limits={"signals": SIGNALS, "scan": SCAN},
        ),
        Tool(
            name="explain_mismatch",
            method="explain_mismatch",
            title="Explain a mismatch",
            description="""The one call for a failing run: give the failing signal and time (a
run_testbench result's first_mismatch.signal/.time) and the RTL sources. Returns when the
signal took its wrong value, its fan-in cone from the RTL (depth levels, up to 16; each with
the source lines assigning it; follow='data' follows the values assigned and not the
conditions guarding them) mapped to dumped names (a testbench's instance of the top module
included), a per-cycle window of that cone around the failure, the last beats the design's
input streams accepted before it with its configuration inputs, AXI-Stream handshake counts
(beats, stalls, bubbles) nearby, and notes. With reference (a good dump) it first finds the
real first divergence at or after time.""",
            hints=READS,
            job=True,
            limits={"cone": "<= 24 signals"},
            internal=("max_signals",),
        ),
        Tool(
            name="handshake_stats",
            method="handshake_stats",
            title="AXI-Stream handshake counts",
            description="""Per AXI-Stream interface (<prefix>_tvalid/_tready/_tdata/_tlast,
also with _i/_o suffixes): beats, stalls (valid without ready), bubbles (ready without
valid), idle, longest stall. prefix filters ('s_axis' or 'tb.dut.m_axis'); omitted = all.""",
            hints=READS,
            limits={"scan": SCAN},
        ),
        Tool(
            name="render",
            method="render",
            title="Render a waveform picture",
            description="""A waveform picture of up to 32 signals over [start, end] (1-bit
lanes, bus lanes with values, time axis, optional marker line), returned as an image and
saved in the workspace (out, or .silicon-agent/vcd/renders/). The text part gives the saved
path.""",
            hints=WRITES,
            limits={"signals": "<= 32 signals"},
            present=picture,
        ),
        Tool(
            name="summary",
            method="summary",
            title="Summary of a dump",
            description="""Format, timescale, time range, signal counts, top scopes and the
busiest signals (most changes). The first call on a dump parses it; later calls reuse the
parse.""",
            hints=READS,
            job=True,
        ),
    ),
)
