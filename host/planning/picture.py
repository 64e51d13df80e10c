"""The plan's DAG as a PNG: one box per block (integration nodes above their children),
edges from each child to the parent that instantiates it."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from .plan import Plan

COLOURS = {"integration": "#cfe2ff", "module": "#d1f0d1"}


def layout(plan: Plan) -> dict[str, tuple[float, float]]:
    """Leaves spread evenly; a parent sits above the middle of its children."""
    places: dict[str, tuple[float, float]] = {}
    next_x = [0.0]

    def place(name: str, depth: int) -> float:
        node = plan.node(name)
        if not node.children:
            x = next_x[0]
            next_x[0] += 1.0
        else:
            xs = [place(c, depth + 1) for c in node.children]
            x = sum(xs) / len(xs)
        places[name] = (x, -float(depth))
        return x

    place(plan.top, 0)
    for node in plan.nodes:  # nodes outside the top's tree still appear
        if node.name not in places:
            places[node.name] = (next_x[0], 0.0)
            next_x[0] += 1.0
    return places


def render_dag(plan: Plan, path: Path) -> Path:
    places = layout(plan)
    width = max(x for x, _ in places.values()) + 1
    depth = -min(y for _, y in places.values()) + 1
    fig, ax = plt.subplots(figsize=(max(4.0, 2.6 * width), max(2.5, 1.6 * depth)))
    for node in plan.nodes:
        for used in plan.uses(node):
            if used in places:
                (x0, y0), (x1, y1) = places[used], places[node.name]
                ax.annotate(
                    "",
                    xy=(x1, y1 - 0.18),
                    xytext=(x0, y0 + 0.18),
                    arrowprops={"arrowstyle": "->", "color": "#555"},
                )
    for node in plan.nodes:
        x, y = places[node.name]
        label = f"{node.name}\n[{node.kind}]\n{len(node.ports)} ports, tb: yes"
        if not node.testbench:
            label = label.replace("tb: yes", "tb: NONE")
        ax.text(
            x,
            y,
            label,
            ha="center",
            va="center",
            fontsize=9,
            bbox={"boxstyle": "round", "facecolor": COLOURS[node.kind], "edgecolor": "#333"},
        )
    ax.set_xlim(-0.7, width - 0.3)
    ax.set_ylim(-depth + 0.5, 0.6)
    ax.set_title(f"plan {plan.name} (arrow: block -> its user)", fontsize=9)
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
