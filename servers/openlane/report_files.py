"""Parsers for the single report files the flows write; text in, figures out, no file access.

Each one takes the text of one report and returns what it states, or None where the text does
not say; the folder readers decide which files to feed them.
"""

from __future__ import annotations

import csv
import io
import re

from .report_values import finite
from .sta import StaFigures

# -- STA summary table (OpenLane 2's MultiCornerSTA summary.rpt, a rich table) ---------------
# Columns are told apart by their header text, so both the 13-column table of OpenLane 2.3 and
# the older 7-column one (violation counts only, corner names cut to 15 characters) read.
_GROUP_FIELDS = (
    ("worst slack", "ws"),
    ("reg to reg paths", "r2r_ws"),
    ("reg-to-reg paths", "r2r_ws"),
    ("tns", "tns"),
    ("of which", "r2r_vio"),
    ("vio count", "vio"),
    ("violations", "vio"),
)


def _column_key(header: str, group: str) -> tuple[str | None, str]:
    text = " ".join(header.lower().split())
    if "corner" in text:
        return "corner", group
    if "max cap" in text:
        return "max_cap_vio", group
    if "max slew" in text:
        return "max_slew_vio", group
    for name in ("hold", "setup"):
        if text.startswith(name):
            group = name
    for words, field in _GROUP_FIELDS:
        if words in text and group:
            return f"{group}_{field}", group
    return None, group


def parse_sta_table(text: str) -> list[dict[str, str]]:
    """Rows of the table as {column key: cell text}; keys like setup_ws, hold_vio, corner."""
    headers: list[list[str]] = []
    rows = []
    for line in text.splitlines():
        if line.startswith("┃"):
            headers.append([c.strip() for c in line.strip().strip("┃").split("┃")])
        elif line.startswith("│"):
            rows.append([c.strip() for c in line.strip().strip("│").split("│")])
    if not headers or not rows:
        return []
    width = len(headers[0])
    joined = [" ".join(h[i] for h in headers if i < len(h)) for i in range(width)]
    keys: list[str | None] = []
    group = ""
    for header in joined:
        key, group = _column_key(header, group)
        keys.append(key)
    if "corner" not in keys:
        return []
    return [
        {k: cell for k, cell in zip(keys, row, strict=True) if k}
        for row in rows
        if len(row) == width and row[keys.index("corner")]
    ]


def full_corner(name: str, known: list[str]) -> str:
    """A corner name the table cut short ('nom_tt_025C_1v…'), completed from the corner folders."""
    if not name.endswith("…"):
        return name
    stem = name.rstrip("…")
    matches = [k for k in known if k.startswith(stem)]
    return matches[0] if len(matches) == 1 else stem


def cell_number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return finite(float(text))
    except ValueError:
        return None  # "?" (not measured) and "N/A" (unconstrained)


def cell_count(text: str | None) -> int | None:
    value = cell_number(text)
    return int(value) if value is not None else None


# -- OpenSTA text summaries (OpenLane 1: rcx_sta.summary.rpt, multi_corner_sta.summary.rpt) --
_STA_SECTION = re.compile(r"^report_(\w+)(?:\s+-(max|min))?")
_STA_VALUE = re.compile(r"^(tns|wns|worst slack)\s+(-?[\d.]+(?:[eE][-+]?\d+)?)\s*$")
_CORNER_VALUE = re.compile(r"^([\w.]+):\s*(-?[\d.]+(?:[eE][-+]?\d+)?)\s*$")


def parse_sta_text(text: str) -> StaFigures:
    """report_tns / report_worst_slack -max / -min sections, one value each (report_wns is
    the same figure clamped at zero)."""
    found = StaFigures()
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if match := _STA_SECTION.match(line):
            section = match.group(1) + (f"-{match.group(2)}" if match.group(2) else "")
            continue
        match = _STA_VALUE.match(line)
        if not match:
            continue
        value = finite(float(match.group(2)))
        if section == "worst_slack-max":
            found.worst_setup_ns = value
        elif section == "worst_slack-min":
            found.worst_hold_ns = value
        elif section == "tns":
            found.tns_ns = value
    return found


def corner_values(text: str) -> dict[str, float]:
    """`<corner>: <value>` lines (ws.max.rpt, tns.max.rpt of Caravel's timing reports)."""
    found = {}
    for line in text.splitlines():
        if match := _CORNER_VALUE.match(line.strip()):
            value = finite(float(match.group(2)))
            if value is not None:
                found[match.group(1)] = value
    return found


# -- IR drop ----------------------------------------------------------------------------------
_IR_WORST = re.compile(r"Worstcase IR drop\s*:\s*([\d.+\-eE]+)\s*V")


def ir_drop(text: str) -> float | None:
    """OpenROAD's summary line, or the spread of a per-instance voltage table (OpenLane 1)."""
    if match := _IR_WORST.search(text):
        return finite(float(match.group(1)))
    lines = text.splitlines()
    if not lines or "voltage" not in lines[0].lower():
        return None
    voltages = []
    for row in csv.reader(io.StringIO("\n".join(lines[1:]))):
        if row:
            try:
                voltages.append(float(row[-1]))
            except ValueError:
                continue
    return round(max(voltages) - min(voltages), 9) if voltages else None


# -- DRC, LVS, XOR, antenna, power ------------------------------------------------------------
_MAGIC_BOX = re.compile(r"^\s*-?[\d.]+um\s+-?[\d.]+um\s+-?[\d.]+um\s+-?[\d.]+um\s*$")
_MAGIC_COUNT = re.compile(r"\[INFO\]\s*COUNT:\s*(\d+)")
_POWER_TOTAL = re.compile(r"^Total\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)")
_ANTENNA_LINE = re.compile(
    r"Partial/Required:\s*([\d.]+).*?Net:\s*(\S+?),\s*Pin:\s*(\S+?),", re.IGNORECASE
)


def magic_drc_count(text: str) -> int:
    if match := _MAGIC_COUNT.search(text):
        return int(match.group(1))
    return sum(1 for line in text.splitlines() if _MAGIC_BOX.match(line))


def lyrdb_items(text: str) -> int:
    """Markers in a KLayout report database (DRC or XOR): one <item> each."""
    return text.count("<item>")


def netgen_lvs(text: str) -> bool | None:
    """True when the netlists match, False when they do not, None when the text does not say."""
    final = [line for line in text.splitlines() if "Final result" in line]
    verdict = final[-1] if final else text
    if "do not match" in verdict or "Netlists do not match" in text:
        return False
    if "match uniquely" in verdict:
        return True
    return None


def antenna_violators(text: str) -> tuple[int, int] | None:
    """(nets, pins) over the ratio > 1 lines of an antenna_violators.rpt, None if none read."""
    hits = [m for m in _ANTENNA_LINE.finditer(text) if float(m.group(1)) > 1.0]
    if not hits and "Partial/Required" not in text:
        return None
    return len({m.group(2) for m in hits}), len({m.group(3) for m in hits})


def power_total(text: str) -> float | None:
    totals = [m for line in text.splitlines() if (m := _POWER_TOTAL.match(line))]
    return cell_number(totals[-1].group(4)) if totals else None


# -- Caravel's manufacturability.rpt -----------------------------------------------------------
_MANUFACTURE = {
    "magic_drc_errors": re.compile(r"Total Magic DRC violations is\s+(\d+)"),
    "antenna_violating_pins": re.compile(r"Pin violations:\s*(\d+)"),
    "antenna_violating_nets": re.compile(r"Net violations:\s*(\d+)"),
    "lvs_errors": re.compile(r"(?:LVS errors|Total errors)\s*[:=]\s*(\d+)"),
}


def manufacturability(text: str) -> dict[str, int]:
    found = {k: int(m.group(1)) for k, rx in _MANUFACTURE.items() if (m := rx.search(text))}
    if "lvs_errors" not in found and "LVS clean" in text:
        found["lvs_errors"] = 0
    return found
