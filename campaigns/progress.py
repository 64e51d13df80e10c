"""A campaign's progress line: tasks done of total, failures so far, an ETA."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from silicon_agent.campaigns.task import TaskResult

MIN_INTERVAL_S = 1.0


class Progress:
    def __init__(self, label: str, total: int, stream: TextIO | None = sys.stderr) -> None:
        self.label = label
        self.total = total
        self.done = 0
        self.failed = 0
        self.stream = stream
        self.started = time.monotonic()
        self._last = 0.0

    def grow(self, more: int) -> None:
        """A campaign that decides its work as it goes (a BER point not yet stopped) adds it."""
        self.total += more

    def update(self, result: TaskResult) -> None:
        self.done += 1
        self.failed += not result.ok
        now = time.monotonic()
        if self.stream is None:
            return
        if self.done < self.total and now - self._last < MIN_INTERVAL_S:
            return
        self._last = now
        print(self.line(now), file=self.stream, flush=True)

    def eta_s(self, now: float) -> float:
        rate = self.done / max(now - self.started, 1e-9)
        return (self.total - self.done) / rate if rate > 0 else float("inf")

    def line(self, now: float) -> str:
        eta = self.eta_s(now)
        when = "--" if eta == float("inf") else f"{eta:.0f} s"
        return (
            f"{self.label}: {self.done}/{self.total} tasks done, {self.failed} failed, ETA {when}"
        )
