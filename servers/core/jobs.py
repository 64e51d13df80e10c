"""Background jobs: a run longer than a client's request timeout is started, polled, cancelled."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from .progress import Progress

JobFn = Callable[[dict[str, Any], Progress], Awaitable[BaseModel]]
MAX_FINISHED_KEPT = 200


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


class JobInfo(BaseModel):
    job_id: str
    operation: str
    state: JobState
    progress: float | None = Field(None, description="0..1 where the tool knows it")
    message: str = ""
    started_at: float
    finished_at: float | None = None
    result: dict[str, Any] | None = Field(None, description="The operation's own result when done")
    error: str | None = None


@dataclass
class _Job:
    info: JobInfo
    task: asyncio.Task[None] | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)


class JobManager:
    """Runs registered operations as asyncio tasks in the server process."""

    def __init__(self, operations: Mapping[str, JobFn] | None = None):
        self.operations: dict[str, JobFn] = dict(operations or {})
        self._jobs: dict[str, _Job] = {}

    def register(self, name: str, fn: JobFn) -> None:
        self.operations[name] = fn

    def start(self, operation: str, arguments: dict[str, Any]) -> JobInfo:
        if operation not in self.operations:
            known = ", ".join(sorted(self.operations)) or "none"
            raise KeyError(f"unknown operation '{operation}'; job operations here: {known}")
        job_id = uuid.uuid4().hex[:16]
        info = JobInfo(
            job_id=job_id, operation=operation, state=JobState.QUEUED, started_at=time.time()
        )
        job = _Job(info=info)
        self._jobs[job_id] = job

        async def progress(fraction: float | None, message: str) -> None:
            info.progress = fraction
            info.message = message

        async def body() -> None:
            info.state = JobState.RUNNING
            try:
                outcome = await self.operations[operation](arguments, progress)
                info.result = outcome.model_dump(mode="json")
                info.state = JobState.DONE
                info.progress = 1.0
            except asyncio.CancelledError:
                info.state = JobState.CANCELLED
                raise
            except Exception as exc:
                info.state = JobState.FAILED
                info.error = f"{type(exc).__name__}: {exc}"
            finally:
                info.finished_at = time.time()
                job.done.set()

        job.task = asyncio.get_running_loop().create_task(body())
        self._prune()
        return info.model_copy()

    def _get(self, job_id: str) -> _Job:
        if job_id not in self._jobs:
            raise KeyError(f"no job '{job_id}' in this server (jobs live as long as the server)")
        return self._jobs[job_id]

    def status(self, job_id: str) -> JobInfo:
        return self._get(job_id).info.model_copy(update={"result": None})

    async def result(self, job_id: str, wait_s: float = 0.0) -> JobInfo:
        job = self._get(job_id)
        if wait_s > 0 and not job.done.is_set():
            try:
                await asyncio.wait_for(job.done.wait(), timeout=wait_s)
            except TimeoutError:
                pass
        return job.info.model_copy()

    async def cancel(self, job_id: str) -> JobInfo:
        job = self._get(job_id)
        if job.task is not None and not job.task.done():
            job.task.cancel()
            try:
                await job.task
            except asyncio.CancelledError:
                pass
        return job.info.model_copy()

    def _prune(self) -> None:
        finished = [j for j in self._jobs.values() if j.done.is_set()]
        for job in sorted(finished, key=lambda j: j.info.started_at)[:-MAX_FINISHED_KEPT]:
            self._jobs.pop(job.info.job_id, None)
