"""The executor seam: serial (in this process), a local process pool, or Ray.

An executor runs a batch of independent tasks and hands each result to ``on_result`` as it
arrives, or takes one task at a time (``submit``) for a driver that decides its next tasks from
the results (an agent run's ready blocks). It schedules nothing itself: the pool's queue and
Ray's scheduler (with its ``max_retries`` for lost workers and custom resources for nodes with
a tool) do."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from typing import Protocol

from silicon_agent.campaigns.task import Task, TaskResult, execute
from silicon_agent.campaigns.tools import ToolCheck

OnResult = Callable[[TaskResult], None]


class Executor(Protocol):
    name: str

    @property
    def parallelism(self) -> int:
        """How many tasks run at once (a campaign sizes its batches by it)."""
        ...

    def run(self, tasks: Sequence[Task], check: ToolCheck, on_result: OnResult) -> None: ...

    def submit(self, task: Task, check: ToolCheck) -> Future[TaskResult]:
        """One task; cancelling the future cancels the task where the executor can."""
        ...

    def describe(self) -> dict[str, object]:
        """For the run record: kind, address, workers."""
        ...

    def close(self) -> None: ...


class SerialExecutor:
    """Every task in this process, one after the other: the reference for the others."""

    name = "serial"
    parallelism = 1

    def __init__(self) -> None:
        self._thread: ThreadPoolExecutor | None = None

    def run(self, tasks: Sequence[Task], check: ToolCheck, on_result: OnResult) -> None:
        for task in tasks:
            on_result(execute(task, check))

    def submit(self, task: Task, check: ToolCheck) -> Future[TaskResult]:
        # One thread, first come first run: serial still, and off the caller's event loop.
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="serial-task")
        return self._thread.submit(execute, task, check)

    def describe(self) -> dict[str, object]:
        return {"executor": self.name, "workers": 1}

    def close(self) -> None:
        if self._thread is not None:
            self._thread.shutdown(cancel_futures=True)
            self._thread = None


class PoolExecutor:
    """A local process pool (spawned processes: the driver may hold threads and event loops
    that a fork would copy half-way)."""

    name = "pool"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self._pool: ProcessPoolExecutor | None = None

    @property
    def parallelism(self) -> int:
        return self.workers

    def submit(self, task: Task, check: ToolCheck) -> Future[TaskResult]:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn")
            )
        return self._pool.submit(execute, task, check)

    def run(self, tasks: Sequence[Task], check: ToolCheck, on_result: OnResult) -> None:
        pending = {self.submit(task, check) for task in tasks}
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    on_result(future.result())
        finally:
            for future in pending:
                future.cancel()

    def describe(self) -> dict[str, object]:
        return {"executor": self.name, "workers": self.workers}

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
