"""AXI-Stream handshake bookkeeping from per-cycle samples of tvalid/tready(/tlast)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .values import Raw, same, to_int

# <prefix>_tvalid, also the suite's direction-suffixed port names (s_axis_tvalid_i).
_VALID = re.compile(r"^(?P<prefix>.*?)_?tvalid(?P<suffix>_[io])?$", re.IGNORECASE)


@dataclass(frozen=True)
class Port:
    prefix: str
    valid: str
    ready: str | None
    data: str | None
    last: str | None


def find_ports(names: Iterable[str], prefix: str | None = None) -> list[Port]:
    """Group dump names into AXI-Stream ports; `prefix` filters by the part before `_tvalid`
    (a full hierarchical prefix, or a trailing part of it such as 's_axis')."""
    pool = set(names)
    ports: list[Port] = []
    for name in sorted(pool):
        match = _VALID.match(name)
        if not match:
            continue
        base = match.group("prefix")
        if prefix and not (base == prefix or base.endswith("." + prefix) or base.endswith(prefix)):
            continue
        sep = "_" if name[len(base) : len(base) + 1] == "_" else ""

        def partner(role: str, base: str = base, sep: str = sep) -> str | None:
            for suffix in ("", "_i", "_o", "_I", "_O"):
                candidate = f"{base}{sep}{role}{suffix}"
                if candidate in pool:
                    return candidate
            return None

        ports.append(Port(base, name, partner("tready"), partner("tdata"), partner("tlast")))
    return ports


@dataclass
class Counts:
    cycles: int = 0
    beats: int = 0
    packets: int = 0
    stalls: int = 0  # valid without ready
    bubbles: int = 0  # ready without valid
    idle: int = 0
    unknown: int = 0  # valid or ready was x/z
    longest_stall: int = 0
    longest_stall_start: int | None = None  # cycle index
    first_beat: int | None = None
    last_beat: int | None = None
    # AXI-Stream rule: once tvalid is up it stays up, with tdata stable, until tready.
    violations: int = 0
    first_violation: int | None = None


def _bit(raw: Raw) -> int | None:
    value = to_int(raw)
    return None if value is None else value & 1


def count(
    valid: Sequence[Raw],
    ready: Sequence[Raw] | None,
    last: Sequence[Raw] | None = None,
    first_cycle: int = 0,
    data: Sequence[Raw] | None = None,
) -> Counts:
    """Per-cycle classification; a missing tready counts as always ready (AXI-S allows it)."""
    out = Counts(cycles=len(valid))
    run = 0
    run_start = 0
    stalled = False
    for i, raw in enumerate(valid):
        v = _bit(raw)
        r = 1 if ready is None else _bit(ready[i])
        if stalled and (v == 0 or (data is not None and not same(data[i], data[i - 1]))):
            out.violations += 1
            if out.first_violation is None:
                out.first_violation = first_cycle + i
        stalled = v == 1 and r == 0
        if v is None or r is None:
            out.unknown += 1
            run = 0
            continue
        if v and r:
            out.beats += 1
            cycle = first_cycle + i
            out.first_beat = cycle if out.first_beat is None else out.first_beat
            out.last_beat = cycle
            if last is not None and _bit(last[i]) == 1:
                out.packets += 1
            run = 0
        elif v:
            out.stalls += 1
            if run == 0:
                run_start = first_cycle + i
            run += 1
            if run > out.longest_stall:
                out.longest_stall = run
                out.longest_stall_start = run_start
        elif r:
            out.bubbles += 1
            run = 0
        else:
            out.idle += 1
            run = 0
    return out
