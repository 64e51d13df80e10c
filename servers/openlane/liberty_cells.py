"""The drive ABC's buffering and sizing assume, chosen from the Liberty file actually used.

ABC (`abc -constr`) needs a driving cell for its inputs and a load for its outputs before it
buffers high-fanout nets and resizes gates; OpenSTA gets the same pair on the design's ports so
both tools price a port alike. The cell is picked by function and drive, not by a name table,
so any library works: the smallest inverter of drive >= 2 (OSU 0.18 um INVX2, sky130
`inv_2`, the cell OpenLane uses), else a buffer of that drive, else the median inverter or
buffer by input capacitance. The load is four such inputs (a fanout-of-4).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

FANOUT_LOAD = 4
WANTED_DRIVE = 2
# Cells whose function is a buffer or an inverter but that no logic net should assume:
# clock tree, delay, probe, level-shift, power-gated and keeper cells.
_SPECIAL = re.compile(r"clk|dly|delay|probe|lpflow|lsbuf|bleeder|ebuf|conb|keep|tap", re.I)
_CELL = re.compile(r"(?m)^\s*cell\s*\(\s*\"?([A-Za-z0-9_$.]+)\"?\s*\)\s*\{")
_PIN = re.compile(r"(?<![A-Za-z0-9_])pin\s*\(\s*\"?([A-Za-z0-9_\[\]]+)\"?\s*\)\s*\{")
_ATTR = r"(?<![A-Za-z0-9_]){}\s*:\s*\"?([^\";]+?)\"?\s*;"
_CAP_UNIT = re.compile(r"capacitive_load_unit\s*\(\s*([\d.eE+-]+)\s*,\s*\"?(\w+)\"?\s*\)")
_UNIT_FF = {"ff": 1.0, "pf": 1e3, "nf": 1e6}
_DRIVE = re.compile(r"(?:X|_)(\d+)$")
_PLAIN = re.compile(r"[A-Za-z0-9_]+")


@dataclass(frozen=True)
class Drive:
    cell: str
    input_pin: str
    output_pin: str
    inverter: bool
    input_cap: float  # library units
    unit_ff: float  # femtofarads per library capacitance unit

    @property
    def load(self) -> float:
        """The load on every output, in library units (what OpenSTA's set_load takes)."""
        return FANOUT_LOAD * self.input_cap

    @property
    def load_ff(self) -> float:
        """The same load in femtofarads (what ABC's constraint file takes)."""
        return self.load * self.unit_ff

    def abc_constraints(self) -> str:
        return f"set_driving_cell {self.cell}\nset_load {self.load_ff:.3f}\n"

    def describe(self) -> str:
        return (
            f"driving cell {self.cell}, output load {self.load_ff:.1f} fF "
            f"({FANOUT_LOAD} x its input)"
        )


def _group_end(text: str, start: int) -> int:
    """Index just past the brace group whose '{' is at or after `start`."""
    depth = 0
    for match in re.finditer(r"[{}]", text[start:]):
        depth += 1 if match.group() == "{" else -1
        if depth == 0:
            return start + match.end()
    return len(text)


def _attr(block: str, name: str) -> str | None:
    match = re.search(_ATTR.format(name), block)
    return match.group(1).strip() if match else None


def _own(body: str) -> str:
    """A group's body without its nested groups (timing, power): only its own attributes."""
    kept, depth, last = [], 0, 0
    for match in re.finditer(r"[{}]", body):
        if match.group() == "{":
            if depth == 0:
                kept.append(body[last : match.start()])
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                last = match.end()
    if depth == 0:
        kept.append(body[last:])
    return "\n".join(kept)


def _pins(cell: str) -> list[tuple[str, str, str]]:
    """(name, direction, own attributes) of each pin."""
    found = []
    for match in _PIN.finditer(cell):
        body = cell[match.end() : _group_end(cell, match.end() - 1) - 1]
        own = _own(body)
        found.append((match.group(1), _attr(own, "direction") or "", own))
    return found


def _drive_number(name: str) -> int | None:
    match = _DRIVE.search(name)
    return int(match.group(1)) if match else None


def _candidates(text: str, unit_ff: float) -> list[Drive]:
    heads = list(_CELL.finditer(text))
    found = []
    for index, head in enumerate(heads):
        name = head.group(1)
        end = heads[index + 1].start() if index + 1 < len(heads) else len(text)
        cell = text[head.end() - 1 : end]
        if _SPECIAL.search(name) or re.search(r"dont_use\s*:\s*true", cell):
            continue
        pins = _pins(cell)
        if not all(_PLAIN.fullmatch(n) for n in [name, *(p[0] for p in pins)]):
            continue  # the names go into a Tcl script and an ABC file: plain words only
        inputs = [p for p in pins if p[1] == "input"]
        outputs = [p for p in pins if p[1] == "output"]
        if len(inputs) != 1 or len(outputs) != 1:
            continue
        function = (_attr(outputs[0][2], "function") or "").replace(" ", "")
        pin = re.escape(inputs[0][0])
        if re.fullmatch(rf"\(?{pin}\)?", function):
            inverter = False
        elif re.fullmatch(rf"\(?!{pin}\)?|\(?{pin}'\)?|\(?!\({pin}\)\)?", function):
            inverter = True
        else:
            continue
        cap = _attr(inputs[0][2], "capacitance")
        try:
            capacitance = float(cap) if cap else 0.0
        except ValueError:
            continue
        if capacitance <= 0:
            continue
        found.append(Drive(name, inputs[0][0], outputs[0][0], inverter, capacitance, unit_ff))
    return found


def choose_drive(text: str) -> Drive | None:
    unit = _CAP_UNIT.search(text)
    unit_ff = 1e3  # Liberty's default capacitance unit is the picofarad
    if unit:
        scale = _UNIT_FF.get(unit.group(2).lower())
        if scale is not None:
            unit_ff = float(unit.group(1)) * scale
    cells = _candidates(text, unit_ff)
    for inverter in (True, False):
        kind = [c for c in cells if c.inverter == inverter]
        sized = [(n, c) for c in kind if (n := _drive_number(c.cell)) is not None]
        strong = sorted(((n, c.cell, c) for n, c in sized if n >= WANTED_DRIVE))
        if strong:
            return strong[0][2]
    for inverter in (True, False):
        kind = sorted((c for c in cells if c.inverter == inverter), key=lambda c: c.input_cap)
        if kind:
            return kind[len(kind) // 2]
    return None


@cache
def _drive_for(path: str, size: int, mtime_ns: int) -> Drive | None:
    return choose_drive(Path(path).read_text(errors="replace"))


def drive_for(liberty: Path) -> Drive | None:
    """The library's mid-strength driver, or None when it has no plain buffer or inverter."""
    stat = liberty.stat()
    return _drive_for(str(liberty), stat.st_size, stat.st_mtime_ns)
