"""What a campaign hands an executor (a ``Task``) and what comes back (a ``TaskResult``)."""

from __future__ import annotations

import importlib
import os
import socket
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from silicon_agent.campaigns.tools import ToolCheck, check_tools


class Task(BaseModel):
    """One independent unit of work, as plain data so that any executor can ship it.

    ``fn`` names a function (``package.module:function``) that every node imports from its own
    installation; it takes ``args`` as keywords and returns an ``Outcome``. The seed of a task is
    one of its ``args``: a result never depends on which worker ran it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    fn: str = Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
    args: dict[str, Any] = Field(default_factory=dict)
    resources: dict[str, float] = Field(
        default_factory=dict, description="Ray custom resources a node must offer, e.g. verilator"
    )


class Outcome(BaseModel):
    """A task function's answer. ``ok`` false is a result (a failing case, a surviving
    mutant), never a reason to run the task again."""

    model_config = ConfigDict(extra="forbid")

    ok: bool
    data: dict[str, Any] = Field(default_factory=dict)


class TaskResult(BaseModel):
    """An ``Outcome`` with its task id and where, how and how long it ran."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    ok: bool
    data: dict[str, Any]
    node: str
    pid: int
    duration_s: float


def resolve(fn: str) -> Callable[..., Outcome]:
    module, _, name = fn.partition(":")
    return getattr(importlib.import_module(module), name)


def execute(task: Task, check: ToolCheck, node: str | None = None) -> TaskResult:
    """Run ``task`` here once its tools are proven to be the driver's (``ToolMismatch``
    otherwise). Every executor ends up in this function."""
    check_tools(check, node or "")
    started = time.perf_counter()
    outcome = resolve(task.fn)(**task.args)
    if not isinstance(outcome, Outcome):
        raise TypeError(f"task {task.id}: {task.fn} returned {type(outcome).__name__}, not Outcome")
    return TaskResult(
        task_id=task.id,
        ok=outcome.ok,
        data=outcome.data,
        node=node or socket.gethostname(),
        pid=os.getpid(),
        duration_s=time.perf_counter() - started,
    )
