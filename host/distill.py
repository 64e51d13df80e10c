"""The waveform server's reading of a failing run: `explain_mismatch` at the first mismatch
over the candidate's own sources, and the digest of it a designer may see (the design's
signals around the failure, never the testbench's)."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from silicon_agent.suite.design import Block

ToolCall = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
DIGEST_KEYS = ("signal", "notes", "clock", "time", "cycle", "value", "changed_at")
DIGEST_KEYS_MORE = ("changed_at_cycle", "previous_value", "inputs", "cone", "handshakes")
_PORT = re.compile(
    r"\b(?:input|output|inout)\b(?:\s+(?:wire|logic|reg|var|signed|unsigned))*"
    r"(?:\s*\[[^\]]*\])*\s*([A-Za-z_]\w*)"
)


@dataclass(frozen=True)
class Dut:
    """What is known to be the design under test's, from the registry and never from what a
    run printed: its instance below the testbench top (the trace spec's `dut`, else `dut`)
    and its ports."""

    top: str
    instance: str
    ports: frozenset[str]
    module: str = ""  # the block's own top module: the one root of the explained sources

    @classmethod
    def of(cls, block: Block, top: str | None = None) -> Dut | None:
        """The block's DUT below `top` (default: its hidden testbench's top)."""
        top = top or (block.verification.top if block.verification is not None else None)
        if not top:
            return None
        ports = {p.name for p in block.ports} or set(_PORT.findall(block.interface))
        instance = str((block.trace or {}).get("dut") or "dut")
        return cls(top, instance, frozenset(ports), block.top)

    @property
    def scope(self) -> str:
        return f"{self.top}.{self.instance}"

    def port(self, printed: object) -> str | None:
        """The DUT port a printed signal name stands for (`m_axis_tdata_o`,
        `tb.dut.m_axis_tdata_o[7:0]`), or None: a name that is not one is never looked up."""
        if not isinstance(printed, str):
            return None
        name = printed.strip().removeprefix("TOP.").split("[")[0]
        leaf = name.rsplit(".", 1)[-1]
        if leaf not in self.ports:
            return None
        if "." in name and name not in (f"{self.scope}.{leaf}", f"{self.instance}.{leaf}"):
            return None
        return leaf

    def stream(self, prefix: object) -> bool:
        """A stream prefix (`s_axis`) whose handshake ports are the DUT's."""
        return isinstance(prefix, str) and any(p.startswith(f"{prefix}_tvalid") for p in self.ports)

    def inside(self, name: object) -> bool:
        return isinstance(name, str) and name.removeprefix("TOP.").startswith(self.scope + ".")

    def mismatch(self, mismatch: dict[str, Any] | None) -> dict[str, Any] | None:
        """A first mismatch as the designer may see it: its signal only when it names a port
        of the DUT (as that port), else none."""
        if not isinstance(mismatch, dict):
            return None
        return {**mismatch, "signal": self.port(mismatch.get("signal"))}


def refusal(message: str) -> dict[str, Any]:
    return {
        "ok": False,
        "error": {
            "message": message,
            "hint": "Only signals of the design under test are explained: its ports, by name.",
        },
    }


async def explain_first_mismatch(
    call: ToolCall, waves: str, mismatch: dict[str, Any], sources: list[str], dut: Dut | None
) -> dict[str, Any]:
    """`explain_mismatch` on the dump, for the DUT port the first mismatch names, asked by its
    full name under the DUT's instance; a name that is not a DUT port is refused, never looked
    up, and whatever the answer shows outside the DUT's scope is left out."""
    port = dut.port(mismatch.get("signal")) if dut is not None else None
    if dut is None or port is None:
        return refusal(
            f"the first mismatch names {str(mismatch.get('signal'))[:80]!r}, which is not a "
            "port of the design under test"
        )
    args: dict[str, Any] = {
        "file": waves,
        "signal": f"{dut.scope}.{port}",
        "time": mismatch.get("time"),
        "sources": sources,
        "expected": mismatch.get("expected"),
        # the values that made the wrong output, as far back as the design goes; nothing
        # after the mismatch (the testbench's later stimulus stays hidden)
        "follow": "data",
        "depth": 16,
        "cycles_after": 0,
    }
    if dut.module:
        # the block's module is the one root: a stray module of the candidate's (one named
        # like the DUT instance) is never elaborated as the design the dump shows
        args["top"] = dut.module
    return within(await call(args), dut)


def within(result: dict[str, Any], dut: Dut) -> dict[str, Any]:
    """An explanation cut to the DUT's scope: cone entries, window columns and handshakes of
    signals outside it are dropped (a cone net resolved by its leaf could be the testbench's)."""
    if result.get("signal") is not None and not dut.inside(result.get("signal")):
        return refusal("the explanation named a signal outside the design under test")
    out = dict(result)
    if isinstance(out.get("cone"), list):
        out["cone"] = [
            {**c, "dump": c.get("dump") if dut.inside(c.get("dump")) else None}
            for c in out["cone"]
            if isinstance(c, dict)
        ]
    window = out.get("window")
    if isinstance(window, dict):
        names = [n for n in window.get("signals") or [] if dut.inside(n)]
        out["window"] = {
            **window,
            "signals": names,
            "rows": [
                {
                    **row,
                    "values": {n: v for n, v in (row.get("values") or {}).items() if dut.inside(n)},
                }
                for row in window.get("rows") or []
                if isinstance(row, dict)
            ],
        }
    if isinstance(out.get("inputs"), list):
        # input beats: only the DUT's own input streams, and of each beat only DUT ports
        kept = []
        for beat in out["inputs"]:
            if not isinstance(beat, dict) or not dut.stream(beat.get("port")):
                continue
            values = beat.get("values") if isinstance(beat.get("values"), dict) else {}
            kept.append({**beat, "values": {k: v for k, v in values.items() if k in dut.ports}})
        out["inputs"] = kept
    if isinstance(out.get("handshakes"), list):
        shown = [h for h in out["handshakes"] if isinstance(h, dict)]
        out["handshakes"] = [h for h in shown if dut.inside(h.get("prefix"))]
        dropped = [f"{h.get('prefix')}:" for h in shown if not dut.inside(h.get("prefix"))]
        if isinstance(out.get("notes"), list) and dropped:
            out["notes"] = [n for n in out["notes"] if not str(n).startswith(tuple(dropped))]
    return out


def digest(result: dict[str, Any]) -> dict[str, Any]:
    """What of an explanation leaves the hidden run: the failing signal's story and the
    per-cycle window of the design's fan-in cone (cone signals only)."""
    out = {k: result[k] for k in (*DIGEST_KEYS, *DIGEST_KEYS_MORE) if result.get(k) is not None}
    window = result.get("window") or {}
    cone = {c.get("dump") for c in result.get("cone") or [] if c.get("dump")}
    cone.add(result.get("signal"))
    names = [name for name in window.get("signals") or [] if name in cone]
    if names:
        out["window"] = {
            "signals": names,
            "clock": window.get("clock"),
            "rows": [
                {
                    "time": row.get("time"),
                    "cycle": row.get("cycle"),
                    "values": {n: v for n, v in (row.get("values") or {}).items() if n in cone},
                }
                for row in window.get("rows") or []
            ],
        }
    if result.get("error"):
        # the reason only: its hint names waveform tools the reader of a digest may not have
        out["error"] = {"message": (result["error"] or {}).get("message")}
    return out


def prompt_digest(result: dict[str, Any], limit: int = 4000) -> str:
    """The digest as a model reads it: compact JSON within `limit` characters; the window
    loses its earliest rows first, then the cone its deepest nets (the notes say the rest)."""
    out = digest(result)
    out.pop("handshakes", None)  # the notes hold them in words
    text = json.dumps(out, separators=(",", ":"))
    rows = (out.get("window") or {}).get("rows") or []
    while len(text) > limit and len(rows) > 2:
        del rows[0]
        text = json.dumps(out, separators=(",", ":"))
    cone = out["cone"] = list(out.get("cone") or [])  # the explanation itself stays whole
    while len(text) > limit and len(cone) > 4:
        dropped = cone.pop()
        for row in rows:
            (row.get("values") or {}).pop(dropped.get("dump"), None)
        if dropped.get("dump") in (out.get("window") or {}).get("signals", []):
            out["window"]["signals"].remove(dropped["dump"])
        text = json.dumps(out, separators=(",", ":"))
    return text[:limit]


# The hidden harness's watchdog reports a stalled design as a mismatch of the beat count
# (hdl/tb/tb_harness.svh, TB_WATCHDOG): expected beats, beats seen.
WATCHDOG_SIGNAL = "beats"
MODEM_HINT = {
    "mismatch": "Read explanation: the input beats that made the wrong output, and the cone's "
    "source lines; fix the arithmetic there and call verify_block again.",
    "no_output": "The design stopped producing output: check the handshake statistics (a "
    "tready or tvalid that stays low), the reset and the conditions of the valid/ready logic "
    "against block_brief, then call verify_block again.",
    "timeout": "The simulation did not finish in time: look for a loop that never ends or a "
    "stream that never drains, then call verify_block again.",
    "crash": "The simulator stopped without a verdict: see diagnostics; simplify the construct "
    "it names, or try the other simulator with verify_block(simulator=...).",
    "harness": "The errors are in the hidden testbench where it meets the candidate: compare "
    "the module header (names, directions, widths) with block_brief's interface, then call "
    "verify_block again.",
    "compile": "Fix the errors in diagnostics (file and line are the candidate's own), then "
    "call verify_block again.",
}


def hex_count(text: object) -> int | None:
    try:
        return int(str(text), 16)
    except ValueError:
        return None


def is_watchdog(mismatch: dict[str, Any] | None) -> bool:
    return isinstance(mismatch, dict) and mismatch.get("signal") == WATCHDOG_SIGNAL


def no_output_message(mismatch: dict[str, Any]) -> str:
    expected, seen = hex_count(mismatch.get("expected")), hex_count(mismatch.get("actual"))
    return (
        f"no output: the design gave {seen if seen is not None else '?'} of "
        f"{expected if expected is not None else '?'} expected output beats and then none "
        f"until the harness stopped it at cycle {mismatch.get('cycle')}"
    )


def port_stalls(stats: list[dict[str, Any]], ports: set[str], end_cycle: int) -> list[str]:
    """Each of the design's streams in words: beats, and which of tvalid/tready stayed low
    for how long."""
    lines: list[str] = []
    seen: set[str] = set()
    for hs in stats:
        prefix = str(hs.get("prefix", ""))
        name = prefix.rsplit(".", 1)[-1]
        valid = str(hs.get("valid", "")).rsplit(".", 1)[-1]
        if name in seen or (ports and valid not in ports):
            continue
        seen.add(name)
        side = "input" if valid.endswith("_i") else "output" if valid.endswith("_o") else "stream"
        last = hs.get("last_beat_cycle")
        quiet = end_cycle - (last if last is not None else -1)
        text = (
            f"{name} ({side}): {hs.get('beats', 0)} beats"
            + (f", the last at cycle {last}" if last is not None else "")
            + f", none for the last {quiet} cycles; tvalid high with tready low "
            f"{hs.get('stalls', 0)} cycles (longest {hs.get('longest_stall', 0)}"
            + (
                f" from cycle {hs.get('longest_stall_cycle')}"
                if hs.get("longest_stall_cycle") is not None
                else ""
            )
            + f"), tready high with tvalid low {hs.get('bubbles', 0)} cycles, both low "
            f"{hs.get('idle', 0)} cycles"
        )
        lines.append(text)
    return lines
