"""A private network namespace with only a loopback interface, for the calling thread and every
process and thread it starts, and back to the original namespace on exit.

Ray advertises the machine's own interface address and probes cloud metadata addresses even
when told 127.0.0.1; inside this namespace neither exists, so every packet a test cluster sends
stays on loopback."""

from __future__ import annotations

import ctypes
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

CLONE_NEWNET = 0x40000000


class NoPrivateNetwork(RuntimeError):
    """The namespace could not be made here (it needs CAP_SYS_ADMIN, e.g. root)."""


@contextmanager
def private_loopback_network() -> Iterator[None]:
    libc = ctypes.CDLL(None, use_errno=True)
    original = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        if libc.unshare(CLONE_NEWNET) != 0:
            raise NoPrivateNetwork(f"unshare(CLONE_NEWNET): {os.strerror(ctypes.get_errno())}")
        try:
            subprocess.run(["ip", "link", "set", "lo", "up"], check=True, capture_output=True)
            yield
        finally:
            if libc.setns(original, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns back to the original network")
    finally:
        os.close(original)


def interface_addresses() -> set[str]:
    """IPv4 and IPv6 addresses of the interfaces the calling thread sees."""
    shown = subprocess.run(["ip", "-o", "addr"], capture_output=True, text=True, check=True)
    return {line.split()[3].split("/")[0] for line in shown.stdout.splitlines()}
