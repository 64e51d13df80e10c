"""synthesize within the caller's time: how much of the call Yosys may use, the progress it
reports while it maps, and what a stopped run or a missed clock tells the designer to change."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

from silicon_agent.servers.core.models import Category, Diagnostic, Severity
from silicon_agent.servers.core.progress import Progress

from . import sta

DEFAULT_TIMEOUT_S = 300.0
"""Well inside the request timeouts MCP clients commonly use (600 s and less)."""

PROGRESS_EVERY_S = 5.0
_PASS = re.compile(r"^\d+(?:\.\d+)*\. Executing (.+?)(?: \(.*)?\.?$")


def yosys_budget(limit_s: float, memories_only: bool, spent_s: float) -> float:
    """Yosys's share of the call: OpenSTA and the answer keep a fifth (10 to 60 s) after it.
    A memories-only call times nothing, so only a few seconds are kept back."""
    reserve = 3.0 if memories_only else min(60.0, max(10.0, 0.2 * limit_s))
    return max(1.0, min(limit_s - reserve, limit_s * 0.95) - spent_s)


def last_pass(log: str) -> str | None:
    """The Yosys pass running when the log ends ("ABC pass", "OPT pass"), if it says."""
    found = None
    for line in log.splitlines():
        match = _PASS.match(line.strip())
        if match:
            found = match.group(1).rstrip(".")
    return found


async def report_passes(log_path: Path, budget_s: float, progress: Progress) -> None:
    """Progress while Yosys runs: seconds used of its share and the pass it is in."""
    started = time.monotonic()
    while True:
        await asyncio.sleep(PROGRESS_EVERY_S)
        elapsed = time.monotonic() - started
        where = last_pass(read_log(log_path))
        await progress(
            0.2 + 0.6 * min(1.0, elapsed / budget_s),
            f"yosys: {elapsed:.0f} s of {budget_s:.0f} s" + (f", in {where}" if where else ""),
        )


def read_log(path: Path, limit: int = 1 << 20) -> str:
    """The log's last `limit` bytes (it only grows; the pass names sit near its end)."""
    try:
        with path.open("rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - limit))
            return handle.read().decode(errors="replace")
    except OSError:
        return ""


def timeout_advice(where: str | None, memory_bits: int, limit_s: float) -> str:
    """What to change when Yosys cannot finish in the call's time."""
    steps = []
    if memory_bits >= 65536:
        steps.append(
            f"the design infers {memory_bits} memory bits, which map to flip-flops here: pass "
            "stand-in sizes through params (smaller depth parameters) for synthesis"
        )
    if where and "ABC" in where.upper():
        steps.append(
            "ABC was mapping wide combinational logic (multipliers, adders, wide muxes): "
            "pipeline the arithmetic with registers between stages, narrow operands to the "
            "widths the brief needs, or share one operator over cycles"
        )
    elif where and any(k in where.upper() for k in ("MEMORY", "OPT", "FSM", "PROC")):
        steps.append(
            f"Yosys was still optimising ({where}): very large arrays or generate loops "
            "make this slow; use stand-in sizes through params"
        )
    if not steps:
        steps.append(
            "reduce what is mapped at once: stand-in sizes through params, narrower "
            "datapaths, or pipelining of long arithmetic"
        )
    steps.append(f"or call again with timeout_s above {limit_s:g}")
    return "; ".join(steps) + "."


def timing_missed(period_ns: float, timing: sta.StaFigures) -> Diagnostic:
    """A negative worst setup slack as a failing timing verdict that names the path."""
    slack = timing.worst_setup_ns
    path = timing.path
    where = ""
    if path is not None:
        where = (
            f": critical path {path.startpoint} -> {path.endpoint}, "
            f"{path.logic_depth} cells"
            + (f", arrival {path.arrival_ns} ns" if path.arrival_ns is not None else "")
        )
    return Diagnostic(
        severity=Severity.ERROR,
        category=Category.OTHER,
        code="SETUP_SLACK",
        message=f"timing not met at {period_ns:g} ns: worst setup slack {slack} ns{where}",
        hint=(
            "Cut the critical path with a register between its start and end point (pipeline "
            "stage), move logic across the flop boundary, or narrow the arithmetic on it; "
            f"the clock it meets now is {period_ns - (slack or 0.0):.2f} ns. The advise tool "
            "gives the same as recommendations."
        ),
        source="opensta",
    )


def sta_timeout(duration_s: float) -> Diagnostic:
    return Diagnostic(
        severity=Severity.WARNING,
        category=Category.TIMEOUT,
        message=f"OpenSTA was stopped after {duration_s:.0f} s: no timing figures",
        hint="Call again with a larger timeout_s to get the timing.",
        source="silicon-agent",
    )
