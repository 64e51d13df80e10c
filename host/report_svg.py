"""The run report's pictures, as inline SVG: the block DAG coloured by status, and a
Gantt-like timeline of each block's steps with the time split between the tools and the
model."""

from __future__ import annotations

import html
from datetime import datetime
from typing import Any

from .state import BlockState, StepRecord

COLOURS = {
    "PASSED": "#8fd694",
    "ESCALATED": "#f08a8a",
    "FAILING": "#f6d36b",
    "IN_PROGRESS": "#9cc7f0",
    "PAUSED": "#c9a6e8",
    "NOT_STARTED": "#dddddd",
}
MODEL_COLOUR = "#7a5cc7"
TOOL_COLOUR = "#3b8bd4"


def _e(value: Any) -> str:
    return html.escape(str(value))


def depth_of(deps: dict[str, list[str]]) -> dict[str, int]:
    depth: dict[str, int] = {}

    def visit(name: str) -> int:
        if name not in depth:
            depth[name] = 1 + max((visit(d) for d in deps.get(name, []) if d in deps), default=-1)
        return depth[name]

    for name in deps:
        visit(name)
    return depth


def dag_svg(deps: dict[str, list[str]], states: dict[str, BlockState]) -> str:
    """Blocks in columns by dependency depth, an arrow from each dependency to its user."""
    depth = depth_of(deps)
    columns: dict[int, list[str]] = {}
    for name in deps:
        columns.setdefault(depth[name], []).append(name)
    width, height, gap_x, gap_y = 150, 34, 60, 14
    where = {
        name: (20 + col * (width + gap_x), 20 + row * (height + gap_y))
        for col, names in columns.items()
        for row, name in enumerate(names)
    }
    total_w = 40 + (max(columns, default=0) + 1) * (width + gap_x)
    total_h = 40 + max((len(v) for v in columns.values()), default=1) * (height + gap_y)
    edges = []
    for name, uses in deps.items():
        x2, y2 = where[name]
        for dep in uses:
            if dep in where:
                x1, y1 = where[dep]
                edges.append(
                    f'<line x1="{x1 + width}" y1="{y1 + height / 2}" x2="{x2}" '
                    f'y2="{y2 + height / 2}" stroke="#888" marker-end="url(#arrow)"/>'
                )
    nodes = []
    for name, (x, y) in where.items():
        status = str(states[name].status) if name in states else "NOT_STARTED"
        nodes.append(
            f'<g class="node {_e(status)}" data-block="{_e(name)}" data-status="{_e(status)}">'
            f'<rect x="{x}" y="{y}" width="{width}" height="{height}" rx="6" '
            f'fill="{COLOURS.get(status, "#ddd")}" stroke="#555"/>'
            f'<text x="{x + 8}" y="{y + 14}" font-size="11">{_e(name)}</text>'
            f'<text x="{x + 8}" y="{y + 28}" font-size="10" fill="#333">{_e(status)}</text></g>'
        )
    return (
        f'<svg id="dag" xmlns="http://www.w3.org/2000/svg" width="{total_w}" '
        f'height="{total_h}"><defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" '
        'markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" '
        f'fill="#888"/></marker></defs>{"".join(edges)}{"".join(nodes)}</svg>'
    )


def _time(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def gantt_svg(blocks: list[str], steps: list[tuple[int, StepRecord]]) -> str:
    """One row per block; each step a bar from its start to its end, its model time (the
    step's `llm_s`) drawn over the rest, which is the tools and the host."""
    if not steps:
        return '<svg id="gantt" xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'
    start = min(_time(r.started_at) for _, r in steps)
    end = max(_time(r.finished_at) for _, r in steps)
    span = max(end - start, 1e-3)
    label_w, plot_w, row_h = 160, 900, 22
    rows = {name: i for i, name in enumerate(blocks)}
    bars = []
    for seq, record in steps:
        row = rows.get(record.block)
        if row is None:
            continue
        t0 = _time(record.started_at) - start
        t1 = _time(record.finished_at) - start
        x = label_w + plot_w * t0 / span
        w = max(plot_w * (t1 - t0) / span, 1.0)
        model = min(float(record.detail.get("llm_s") or 0.0), t1 - t0)
        wall = max(t1 - t0, 1e-9)
        mw = w * model / wall
        y = 10 + row * row_h
        tip = (
            f"{record.block} {record.kind} #{seq} (iteration {record.iteration}): "
            f"{record.outcome}; {t1 - t0:.2f} s, model {model:.2f} s"
        )
        bars.append(
            f'<g class="step" data-block="{_e(record.block)}" data-kind="{_e(record.kind)}" '
            f'data-wall="{t1 - t0:.3f}" data-model="{model:.3f}"><title>{_e(tip)}</title>'
            f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row_h - 6}" '
            f'fill="{TOOL_COLOUR}"/><rect x="{x:.1f}" y="{y}" width="{mw:.1f}" '
            f'height="{row_h - 6}" fill="{MODEL_COLOUR}"/></g>'
        )
    labels = "".join(
        f'<text x="4" y="{22 + i * row_h}" font-size="11">{_e(name)}</text>'
        for name, i in rows.items()
    )
    height = 30 + len(rows) * row_h
    axis = (
        f'<text x="{label_w}" y="{height - 4}" font-size="10">0 s</text>'
        f'<text x="{label_w + plot_w - 40}" y="{height - 4}" font-size="10">{span:.1f} s</text>'
    )
    return (
        f'<svg id="gantt" xmlns="http://www.w3.org/2000/svg" width="{label_w + plot_w + 20}" '
        f'height="{height}">{labels}{"".join(bars)}{axis}</svg>'
    )
