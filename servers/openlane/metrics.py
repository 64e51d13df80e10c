"""OpenLane 2 metric names: `<area>__<name>__<stat>` plus `__key:value` modifiers.

Modifiers (corner, iter, class, net, ...) trail the base name; a metric without modifiers is
the flow's own aggregate over them.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Value = float | str | None


def split_metric(name: str) -> tuple[str, dict[str, str]]:
    parts = name.split("__")
    modifiers: dict[str, str] = {}
    while len(parts) > 1 and ":" in parts[-1]:
        key, value = parts.pop().split(":", 1)
        modifiers[key] = value
    return "__".join(parts), dict(reversed(list(modifiers.items())))


@dataclass
class MetricTable:
    """Final metrics with the values that could not be read set aside, never raised."""

    values: dict[str, float | str] = field(default_factory=dict)
    junk: dict[str, str] = field(default_factory=dict)
    source: str = ""

    def get(self, base: str, **modifiers: str) -> float | None:
        for name, value in self.values.items():
            b, mods = split_metric(name)
            if b == base and mods == modifiers and isinstance(value, float):
                return value
        return None

    def by_modifier(self, base: str, modifier: str) -> dict[str, float]:
        """{modifier value: metric} for metrics with exactly that one modifier."""
        found: dict[str, float] = {}
        for name, value in self.values.items():
            b, mods = split_metric(name)
            if b == base and set(mods) == {modifier} and isinstance(value, float):
                found[mods[modifier]] = value
        return found

    def box_area(self, base: str) -> float | None:
        """Area of a bounding-box metric ("x0 y0 x1 y1")."""
        raw = self.values.get(base)
        box = _numbers(raw) if isinstance(raw, str) else None
        if box is None or len(box) != 4:
            return None
        return round((box[2] - box[0]) * (box[3] - box[1]), 6)

    def last_iteration(self, base: str) -> float | None:
        """A metric reported per iteration (`__iter:N`): the value of the highest N."""
        per_iter = self.by_modifier(base, "iter")
        numbered = [(int(k), v) for k, v in per_iter.items() if k.isdigit()]
        return max(numbered)[1] if numbered else None


def _number(raw: Any) -> float | None:
    """A metric value as a float ('Infinity' included), or None when it is not a number."""
    if isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, int | float):
        return float(raw) if not math.isnan(raw) else None
    if isinstance(raw, str):
        text = raw.strip()
        try:
            value = float(text)
        except ValueError:
            return None
        return None if math.isnan(value) else value
    return None


def _numbers(raw: Any) -> list[float] | None:
    """A string of several numbers (`design__die__bbox`: "x0 y0 x1 y1"), else None."""
    parts = raw.split() if isinstance(raw, str) else []
    values = [_number(p) for p in parts]
    return [v for v in values if v is not None] if len(parts) > 1 and None not in values else None


def _add(table: MetricTable, name: str, raw: Any) -> None:
    value = _number(raw)
    if isinstance(value, float):
        table.values[name] = value
    elif _numbers(raw) is not None:
        table.values[name] = " ".join(str(raw).split())
    else:  # OpenLane 2 metrics are numbers or bounding boxes; anything else is reported
        table.junk[name] = repr(raw)[:80]


def load_json(path: Path) -> MetricTable:
    data = json.loads(path.read_text(errors="replace"))
    if isinstance(data, dict) and isinstance(data.get("metrics"), dict):
        data = data["metrics"]  # a step's state_out.json carries its metrics inside
    if not isinstance(data, dict):
        raise ValueError("not a JSON object of metric: value")
    table = MetricTable(source=str(path))
    for name, raw in data.items():
        _add(table, str(name), raw)
    return table


def load_long_csv(path: Path) -> MetricTable:
    """OpenLane 2's final/metrics.csv: a `Metric,Value` row per metric."""
    rows = list(csv.reader(io.StringIO(path.read_text(errors="replace"))))
    if not rows or [c.strip().lower() for c in rows[0][:2]] != ["metric", "value"]:
        raise ValueError("first row is not 'Metric,Value'")
    table = MetricTable(source=str(path))
    for row in rows[1:]:
        if len(row) >= 2:
            _add(table, row[0].strip(), row[1])
    return table


def load_wide_csv(path: Path) -> tuple[dict[str, str], MetricTable]:
    """OpenLane 1's metrics.csv / final_summary_report.csv: a header row and one run row."""
    rows = list(csv.reader(io.StringIO(path.read_text(errors="replace"))))
    if len(rows) < 2:
        raise ValueError("needs a header row and a value row")
    header, row = rows[0], rows[-1]
    raw = {h.strip(): (row[i].strip() if i < len(row) else "") for i, h in enumerate(header)}
    table = MetricTable(source=str(path))
    for name, text in raw.items():
        value = _number(text)
        if value is not None:
            table.values[name] = value
        elif text:
            table.values[name] = text
    return raw, table
