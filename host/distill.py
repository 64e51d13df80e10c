"""The waveform server's reading of a failing run: `explain_mismatch` at the first mismatch
over the candidate's own sources, and the digest of it a designer may see (the design's
signals around the failure, never the testbench's)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

ToolCall = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
DIGEST_KEYS = ("signal", "notes", "clock", "time", "cycle", "value", "changed_at")
DIGEST_KEYS_MORE = ("changed_at_cycle", "previous_value", "cone", "handshakes")


async def explain_first_mismatch(
    call: ToolCall, waves: str, mismatch: dict[str, Any], sources: list[str]
) -> dict[str, Any]:
    """`explain_mismatch` on the dump; a testbench that names its signals after the ports is
    asked again for the design's `dut.<port>`."""
    args: dict[str, Any] = {
        "file": waves,
        "signal": mismatch.get("signal"),
        "time": mismatch.get("time"),
        "sources": sources,
        "expected": mismatch.get("expected"),
    }
    result = await call(args)
    message = str((result.get("error") or {}).get("message", ""))
    if "ambiguous" in message and "." not in str(args["signal"]):
        args["signal"] = f"dut.{args['signal']}"
        result = await call(args)
    return result


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
        out["error"] = result["error"]
    return out
