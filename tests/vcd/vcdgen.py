"""A tiny VCD writer for tests: known signals, known changes, so answers can be checked."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

Change = tuple[int, str, str]  # (time, signal name, value as MSB-first 0/1/x/z bits)


def _ident(n: int) -> str:
    chars = "".join(chr(c) for c in range(33, 127))
    out = ""
    n += 1
    while n:
        n, r = divmod(n - 1, len(chars))
        out += chars[r]
    return out


def write_vcd(
    path: Path,
    signals: Sequence[tuple[str, int]],
    changes: Sequence[Change],
    scope: str = "tb",
    timescale: str = "1ns",
    end: int | None = None,
) -> None:
    ids = {name: _ident(i) for i, (name, _) in enumerate(signals)}
    widths = dict(signals)
    lines = [f"$timescale {timescale} $end", f"$scope module {scope} $end"]
    for name, width in signals:
        suffix = f" [{width - 1}:0]" if width > 1 else ""
        lines.append(f"$var wire {width} {ids[name]} {name}{suffix} $end")
    lines += ["$upscope $end", "$enddefinitions $end"]
    current = None
    for time, name, bits in sorted(changes, key=lambda c: c[0]):
        if time != current:
            lines.append(f"#{time}")
            current = time
        if widths[name] == 1:
            lines.append(f"{bits}{ids[name]}")
        else:
            lines.append(f"b{bits} {ids[name]}")
    if end is not None and end != current:
        lines.append(f"#{end}")
    path.write_text("\n".join(lines) + "\n")
