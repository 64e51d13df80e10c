"""An agent run's content without what differs from run to run (times, event ids, the order
in which concurrent blocks' steps were committed), for comparing runs on different executors."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from silicon_agent.host.report import write_report
from silicon_agent.host.state import StateStore
from tests.host.scenario import make_workspace, write_config, write_mcp_json

# Two blocks with no dependency between them, so both are ready at once.
BLOCKS = ["counter", "counter_fix"]
SERVERS = ["iverilog", "verilator"]
RUN_VARYING = ("wall_s", "llm_s", "duration_s")
# Timestamps, durations and ids in the report's text.
REPORT_VARYING = re.compile(
    r"\d{4}-\d\d-\d\dT[\d:.]+(\+00:00|Z)?|\b\d+(\.\d+)?\s?(s|ms)\b|\b[0-9a-f]{32}\b"
)


def design(root: Path, delay_s: float = 0.0) -> tuple[Path, Path, Path]:
    """The design, its scripted team's config (each reply ``delay_s`` late, as a model's would
    be) and its mcp.json."""
    root.mkdir(parents=True, exist_ok=True)
    return (
        make_workspace(root, BLOCKS),
        write_config(root, BLOCKS, parallel=2, delay_s=delay_s),
        write_mcp_json(root, SERVERS),
    )


def content(run: Path) -> dict[str, Any]:
    store = StateStore(run / "state.sqlite")
    try:
        steps: dict[str, list[Any]] = {}
        for _, record in store.steps():
            detail = {k: v for k, v in record.detail.items() if k not in RUN_VARYING}
            steps.setdefault(record.block, []).append(
                (record.step_no, record.kind, record.iteration, record.outcome, detail)
            )
        events = sorted(
            (e.correlation_id, e.component, e.model, e.input_tokens, e.output_tokens, e.cost_usd)
            for _, e in store.events()
        )
        meta = store.meta()
        return {
            "blocks": {n: s.model_dump(mode="json") for n, s in store.blocks().items()},
            "steps": steps,
            "events": events,
            "spent": (meta["tokens_spent"], round(meta["cost_spent"], 9), meta["phase"]),
            "errors": [{k: v for k, v in e.items() if k != "at"} for e in store.error_log()],
        }
    finally:
        store.close()


def report_text(run: Path, out: Path) -> str:
    """The HTML report without what differs from run to run: times, durations, ids, the run's
    name and folder, the timeline picture, and the order in which concurrent blocks' steps
    were committed (the table rows are compared as a set; each block's own order is in
    ``content``)."""
    text = Path(write_report(run, out)).read_text()
    text = text.replace(str(run.parent.parent), "ROOT").replace(run.name, "RUN")
    text = re.sub(r'<svg id="gantt".*?</svg>', "", text, flags=re.S)
    text = REPORT_VARYING.sub("#", re.sub(r"<tr><td>\d+</td>", "<tr>", text))
    rows = re.findall(r"<tr>.*?</tr>", text, flags=re.S)
    return "\n".join([re.sub(r"<tr>.*?</tr>", "", text, flags=re.S), *sorted(rows)])


def step_spans(run: Path) -> dict[str, list[tuple[datetime, datetime]]]:
    """Each block's recorded step times, as the checkpoint holds them."""
    store = StateStore(run / "state.sqlite")
    try:
        spans: dict[str, list[tuple[datetime, datetime]]] = {}
        for _, r in store.steps():
            start, end = datetime.fromisoformat(r.started_at), datetime.fromisoformat(r.finished_at)
            spans.setdefault(r.block, []).append((start, end))
        return spans
    finally:
        store.close()


def overlapping(spans: dict[str, list[tuple[datetime, datetime]]]) -> bool:
    """Whether a step of one block ran while a step of another did."""
    names = sorted(spans)
    return any(
        a0 < b1 and b0 < a1
        for i, x in enumerate(names)
        for y in names[i + 1 :]
        for a0, a1 in spans[x]
        for b0, b1 in spans[y]
    )
