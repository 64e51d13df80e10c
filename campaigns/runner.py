"""One campaign run: batches of tasks through an executor, each task counted exactly once,
with progress, then the summary and the run record."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from silicon_agent.campaigns.executors import Executor
from silicon_agent.campaigns.progress import Progress
from silicon_agent.campaigns.summary import RunRecord, Summary, summarise, tasks_per_node, write
from silicon_agent.campaigns.task import Task, TaskResult
from silicon_agent.campaigns.tools import driver_check


class CampaignRun:
    def __init__(
        self,
        name: str,
        executor: Executor,
        probes: dict[str, str],
        stream: TextIO | None = sys.stderr,
    ) -> None:
        self.name = name
        self.executor = executor
        self.check = driver_check(probes)
        self.progress = Progress(name, 0, stream)
        self.results: dict[str, TaskResult] = {}
        self.started_at = datetime.now(UTC)
        self._t0 = time.monotonic()

    def run(self, tasks: Sequence[Task]) -> list[TaskResult]:
        """Run one batch; its results in the batch's order. A task id already run, a result
        given twice or a task without a result is an error, never a silent double count."""
        ids = [t.id for t in tasks]
        if len(set(ids)) != len(ids) or self.results.keys() & set(ids):
            raise ValueError(f"{self.name}: task ids must be unique within a campaign")
        self.progress.grow(len(tasks))
        batch: dict[str, TaskResult] = {}

        def on_result(result: TaskResult) -> None:
            if result.task_id not in ids or result.task_id in batch:
                raise RuntimeError(f"{self.name}: unexpected or repeated result {result.task_id}")
            batch[result.task_id] = result
            self.progress.update(result)

        self.executor.run(tasks, self.check, on_result)
        missing = [i for i in ids if i not in batch]
        if missing:
            raise RuntimeError(f"{self.name}: no result for {', '.join(missing[:5])}")
        self.results.update(batch)
        return [batch[i] for i in ids]

    def summary(self, parameters: dict[str, Any], counted: list[TaskResult]) -> Summary:
        return summarise(self.name, parameters, self.check.versions, counted)

    def record(self) -> RunRecord:
        results = sorted(self.results.values(), key=lambda r: r.task_id)
        return RunRecord(
            campaign=self.name,
            executor=self.executor.describe(),
            started_at=self.started_at.isoformat(timespec="seconds"),
            finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
            wall_s=round(time.monotonic() - self._t0, 3),
            nodes=tasks_per_node(results),
            tasks=[
                {"task_id": r.task_id, "node": r.node, "pid": r.pid, "duration_s": r.duration_s}
                for r in results
            ],
        )

    def finish(
        self, summary: Summary, text: str, out: Path | None, stream: TextIO = sys.stdout
    ) -> RunRecord:
        """Print the table and where the tasks ran; write the three files under ``out``."""
        record = self.record()
        print(text, end="", file=stream)
        per_node = ", ".join(f"{node}: {n}" for node, n in record.nodes.items())
        print(
            f"{summary.passed}/{summary.total} passed, {summary.failed} failed; "
            f"{record.executor['executor']} on {len(record.nodes)} node(s) ({per_node}); "
            f"{record.wall_s:.1f} s",
            file=stream,
        )
        if out is not None:
            write(out, summary, text, record)
        return record
