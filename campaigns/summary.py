"""What a campaign leaves: ``summary.json`` and ``summary.txt`` (the results, identical
whichever executor ran them) and ``run.json`` (the run record: executor, nodes, tasks per
node, durations and times, which differ from run to run)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from silicon_agent.campaigns.task import TaskResult


class Summary(BaseModel):
    """Results only: every field is a function of the tasks and the tool versions."""

    model_config = ConfigDict(extra="forbid")

    campaign: str
    parameters: dict[str, Any]
    tools: dict[str, str]
    total: int
    passed: int
    failed: int
    results: list[dict[str, Any]]
    totals: dict[str, Any] = Field(
        default_factory=dict, description="the campaign's own aggregates (a BER curve, a score)"
    )

    def to_json(self) -> str:
        return json.dumps(self.model_dump(), indent=2, sort_keys=True) + "\n"


class RunRecord(BaseModel):
    """How this run went: not compared between runs."""

    model_config = ConfigDict(extra="forbid")

    campaign: str
    executor: dict[str, object]
    started_at: str
    finished_at: str
    wall_s: float
    nodes: dict[str, int]
    tasks: list[dict[str, Any]]

    def to_json(self) -> str:
        return json.dumps(self.model_dump(), indent=2, sort_keys=True) + "\n"


def summarise(
    campaign: str, parameters: dict[str, Any], tools: dict[str, str], results: list[TaskResult]
) -> Summary:
    ordered = sorted(results, key=lambda r: r.task_id)
    return Summary(
        campaign=campaign,
        parameters=parameters,
        tools=tools,
        total=len(ordered),
        passed=sum(r.ok for r in ordered),
        failed=sum(not r.ok for r in ordered),
        results=[{"task_id": r.task_id, "ok": r.ok, **r.data} for r in ordered],
    )


def tasks_per_node(results: list[TaskResult]) -> dict[str, int]:
    return dict(sorted(Counter(r.node for r in results).items()))


def table(rows: list[list[str]], header: list[str]) -> str:
    """A plain fixed-width text table."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    lines = [
        "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def write(out: Path, summary: Summary, text: str, record: RunRecord) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(summary.to_json())
    (out / "summary.txt").write_text(text)
    (out / "run.json").write_text(record.to_json())
