"""Calls bounded in time: in-process work that cannot be interrupted (pyslang elaborating a
hostile design runs for as long as the design asks) runs in a worker process that is killed
at the deadline. Workers are started once with the heavy modules imported and reused, so a
call costs a round trip of pickles, not an interpreter start; a killed worker is replaced
on the next call."""

from __future__ import annotations

import asyncio
import importlib
import os
import pickle
import resource
import select
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
PRELOAD = ("silicon_agent.servers.core.sv.slang_check",)  # pyslang: the import that costs
MAX_WORKERS = 2  # idle workers kept; more start when more calls run at once
MAX_CALLS_PER_WORKER = 200  # then it is replaced, so memory a call leaves behind is returned
_HEADER = 8


# A worker's address space: a hostile input (macros that expand each other twice over) ends
# in MemoryError here instead of taking the machine's memory from the server beside it.
MEMORY_MB = int(os.environ.get("SILICON_AGENT_WORKER_MEMORY_MB", "4096"))


class CallStopped(Exception):
    """A bounded call its worker did not finish: a limit, the memory cap or a crash."""


class CallTimedOut(CallStopped, TimeoutError):
    """The call ran past its limit and its process was killed."""

    def __init__(self, limit_s: float):
        super().__init__(f"ran past timeout_s={limit_s:g} and was stopped")
        self.limit_s = limit_s


class CallCrashed(CallStopped, RuntimeError):
    """The worker died during the call (a native crash, e.g. recursion too deep for its
    stack); it was replaced."""

    def __init__(self, name: str, detail: str):
        super().__init__(f"{name} crashed: {detail}")


class CallOutOfMemory(CallStopped, MemoryError):
    """The call needed more than the worker's memory cap; the worker was replaced."""

    def __init__(self, limit_mb: int):
        super().__init__(f"needed more than {limit_mb} MB and was stopped")
        self.limit_mb = limit_mb


class _Worker:
    """One worker process; calls go through it one at a time, from any event loop."""

    def __init__(self) -> None:
        # The worker imports what this process imports from: same interpreter, same path.
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self.calls = 0

    def call(self, payload: bytes, timeout_s: float) -> tuple[bool, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(len(payload).to_bytes(_HEADER, "big") + payload)
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], timeout_s)
        if not ready:
            raise CallTimedOut(timeout_s)
        header = self.process.stdout.read(_HEADER)
        if len(header) < _HEADER:
            raise EOFError("the worker ended")
        body = self.process.stdout.read(int.from_bytes(header, "big"))
        return pickle.loads(body)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


_idle: list[_Worker] = []
_lock = threading.Lock()


def _take() -> _Worker:
    with _lock:
        if _idle:
            return _idle.pop()
    return _Worker()


def _give_back(worker: _Worker) -> None:
    with _lock:
        if len(_idle) < MAX_WORKERS and worker.calls < MAX_CALLS_PER_WORKER:
            _idle.append(worker)
            return
    worker.kill()


def prewarm() -> None:
    """Start a worker in the background when none is idle, so the first call does not pay
    for the interpreter start and the pyslang import."""

    def start() -> None:
        with _lock:
            if _idle:
                return
        _give_back(_Worker())

    threading.Thread(target=start, name="bounded-prewarm", daemon=True).start()


def _settle(worker: _Worker, fn: Callable[..., Any], call: Callable[[], tuple[bool, Any]]):
    """Run one call on a worker: its value, or its exception re-raised here; a worker that
    timed out, broke or was abandoned is killed, a healthy one goes back to the pool."""
    try:
        ok, value = call()
    except CallTimedOut:
        worker.kill()
        raise
    except (EOFError, OSError, pickle.UnpicklingError) as exc:
        try:  # the pipe closes a moment before the process is reaped
            code: int | None = worker.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        worker.kill()
        name = getattr(fn, "__name__", "call")
        detail = f"killed by signal {-code}" if code is not None and code < 0 else str(exc)
        raise CallCrashed(name, detail) from None
    except BaseException:
        worker.kill()
        raise
    if not ok and isinstance(value, MemoryError):
        worker.kill()  # what it holds after a MemoryError is not worth keeping
        raise CallOutOfMemory(MEMORY_MB) from None
    worker.calls += 1
    _give_back(worker)
    if not ok:
        raise value
    return value


def run_bounded(fn: Callable[..., T], /, *args: Any, timeout_s: float, **kwargs: Any) -> T:
    """fn(*args, **kwargs) in a worker process; CallTimedOut (the worker killed) once
    timeout_s has passed. fn, its arguments, result and exceptions must pickle."""
    payload = pickle.dumps((fn, args, kwargs))
    worker = _take()
    return _settle(worker, fn, lambda: worker.call(payload, timeout_s))


async def call_bounded(fn: Callable[..., T], /, *args: Any, timeout_s: float, **kwargs: Any) -> T:
    """run_bounded for a coroutine; a cancelled caller kills the worker at once."""
    payload = pickle.dumps((fn, args, kwargs))
    worker = await asyncio.to_thread(_take)
    pending = asyncio.ensure_future(asyncio.to_thread(worker.call, payload, timeout_s))
    try:
        await asyncio.wait({pending})
    except asyncio.CancelledError:
        worker.kill()  # the thread's wait ends with the process
        raise
    return _settle(worker, fn, pending.result)


def _serve() -> None:
    """Worker loop: a length-prefixed pickle of (fn, args, kwargs) in on stdin, one of
    (ok, result or exception) out. Whatever the work prints goes to stderr."""
    limit = MEMORY_MB * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for name in PRELOAD:
        importlib.import_module(name)
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    source = sys.stdin.buffer
    while header := source.read(_HEADER):
        request = source.read(int.from_bytes(header, "big"))
        try:
            fn, args, kwargs = pickle.loads(request)
            outcome: tuple[bool, Any] = (True, fn(*args, **kwargs))
        except Exception as exc:  # handed back to the caller, who re-raises it
            outcome = (False, exc)
        try:
            data = pickle.dumps(outcome)
        except Exception as exc:
            data = pickle.dumps((False, RuntimeError(f"result does not pickle: {exc}")))
        channel.write(len(data).to_bytes(_HEADER, "big") + data)
        channel.flush()


if __name__ == "__main__":
    _serve()
