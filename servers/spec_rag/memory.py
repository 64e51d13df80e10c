"""Giving memory back after an ingest.

Parsing a large DOCX and embedding it leaves many small freed blocks in glibc's arenas; the
process keeps them (RSS stays at the peak) until `malloc_trim` returns the free pages.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import resource
from pathlib import Path


def release_memory() -> None:
    gc.collect()
    name = ctypes.util.find_library("c")
    if name is None:
        return
    try:
        ctypes.CDLL(name).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        return


def rss_mb() -> float:
    """The resident set size of this process now (Linux), else its peak."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
