"""Red team rt3v, the socket filter: a sandboxed run that asks for a socket through the raw
syscall entry points the filter must also cover (the x32 ABI numbers on x86_64, io_uring, the
plain numbers without libc's wrapper) is denied each time (defended)."""

from __future__ import annotations

import asyncio
import platform
import sys
from pathlib import Path

import pytest

from silicon_agent.servers.core.runner import run_process
from silicon_agent.servers.core.sandbox import plan_sandbox
from silicon_agent.servers.core.workspace import Workspace

PROBE = r"""
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
X32 = 0x40000000
calls = {
    "socket": (41, 1, 1, 0),               # AF_UNIX, SOCK_STREAM
    "socket_inet": (41, 2, 2, 0),           # AF_INET, SOCK_DGRAM
    "socketpair": (53, 1, 1, 0, ctypes.byref((ctypes.c_int * 2)())),
    "x32_socket": (X32 | 41, 1, 1, 0),
    "x32_socketpair": (X32 | 53, 1, 1, 0, ctypes.byref((ctypes.c_int * 2)())),
    "x32_io_uring_setup": (X32 | 425, 4, ctypes.byref((ctypes.c_char * 120)())),
    "io_uring_setup": (425, 4, ctypes.byref((ctypes.c_char * 120)())),
}
for name, args in calls.items():
    got = libc.syscall(*args)
    print(name, "opened" if got >= 0 else errno.errorcode.get(ctypes.get_errno(), "?"))
"""


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86_64 syscall numbers")
@pytest.mark.skipif(
    "bwrap" not in plan_sandbox([Path("/tmp")], []).description,
    reason="bubblewrap is not usable here",
)
def test_raw_socket_syscalls_of_every_abi_are_denied(adv_root) -> None:
    scratch = Workspace.open(adv_root).new_scratch("rt3v-abi")
    outcome = asyncio.run(
        run_process(
            [sys.executable, "-c", PROBE],
            cwd=scratch,
            scratch=scratch,
            readable=[adv_root],
            timeout_s=60,
        )
    )
    results = dict(line.split() for line in outcome.stdout.splitlines() if line.strip())
    assert len(results) == 7, (outcome.stdout, outcome.stderr)
    # Denied by the filter (EPERM), never opened and never left to the kernel (ENOSYS would
    # mean the filter let an x32 call through to a kernel that happens to lack x32).
    assert all(v == "EPERM" for v in results.values()), results
