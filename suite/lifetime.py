"""A stdio server lives as long as its client: it ends when the client goes (its parent is
gone, or both ends of the stdio wire are closed) and ends its children with it (tool
processes, worker processes, the servers it started itself). A client that went away also
gets no traceback for the answer it can no longer read."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

POLL_S = 0.5  # how often the watchdog looks for its client
_bound = threading.Event()


def _parent_of(pid: str) -> tuple[int, str] | None:
    """(ppid, state) of a process from /proc, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read().decode(errors="replace")
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()
    return int(fields[1]), fields[0]


def descendants(root: int | None = None) -> list[int]:
    """Every live process below root (this process by default), read from /proc."""
    root = os.getpid() if root is None else root
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        found = _parent_of(name)
        if found is not None and found[1] != "Z":
            children.setdefault(found[0], []).append(int(name))
    below: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            below.append(child)
            todo.append(child)
    return below


def end_children() -> None:
    """Kill this process's whole tree below it; a child that forks while this runs is caught
    by the next pass."""
    if not os.path.isdir("/proc"):
        return
    for _ in range(5):
        pids = descendants()
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)


def _leave(code: int) -> None:
    end_children()
    os._exit(code)


def _wire_end(fd: int) -> int | None:
    """A duplicate of a standard descriptor when it is a pipe or socket (the stdio wire),
    so the wire can be watched while the transport has moved fd 0 and fd 1 elsewhere."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return None
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return None
    return os.dup(fd)


def _closed(fd: int) -> bool:
    """The other side of this wire end is gone: a pipe's last writer (or reader) closed, a
    socket's peer closed or shut its sending side."""
    poller = select.poll()
    poller.register(fd, getattr(select, "POLLRDHUP", 0))  # POLLHUP and POLLERR always count
    gone = select.POLLHUP | select.POLLERR | select.POLLNVAL | getattr(select, "POLLRDHUP", 0)
    return any(event & gone for _, event in poller.poll(0))


def client_gone_check() -> Callable[[], bool]:
    """The test the watchdog applies: the parent this process started with is gone, or the
    client closed both ends of the stdio wire (a killed client closes both at once; one that
    only closes stdin to end the session is left to the transport's own shutdown)."""
    parent = os.getppid()
    wire_in, wire_out = _wire_end(0), _wire_end(1)

    def gone() -> bool:
        if os.getppid() != parent:
            return True
        if wire_in is None or wire_out is None:
            return False
        return _closed(wire_in) and _closed(wire_out)

    return gone


def bind_to_client() -> None:
    """Start the watchdog once per process and end the tree on SIGTERM/SIGHUP as well."""
    if _bound.is_set():
        return
    _bound.set()
    gone = client_gone_check()

    def watch() -> None:
        while True:
            time.sleep(POLL_S)
            if gone():
                _leave(0)

    threading.Thread(target=watch, name="client-watchdog", daemon=True).start()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(ValueError):  # only the main thread may; the watchdog stays
            signal.signal(sig, lambda signum, _frame: _leave(128 + signum))


def _only_client_gone(exc: BaseException) -> bool:
    """A broken or reset stdio wire, possibly inside task-group exception groups."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_only_client_gone(inner) for inner in exc.exceptions)
    return isinstance(exc, BrokenPipeError | ConnectionResetError)


@contextlib.contextmanager
def client_lifetime() -> Iterator[None]:
    """Around a stdio server's run: bound to its client, quiet when the client went away
    mid-answer, and its children ended when it ends."""
    bind_to_client()
    try:
        yield
    except BaseException as exc:
        if not _only_client_gone(exc):
            raise
        with contextlib.suppress(Exception):
            sys.stdout = open(os.devnull, "w")  # nothing left to flush to
    finally:
        end_children()


def serve_stdio(server: Any) -> None:
    """`server.run("stdio")` for as long as its client is there."""
    with client_lifetime():
        server.run("stdio")
