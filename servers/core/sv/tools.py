"""Registry entries both simulator servers share, with one contract."""

from __future__ import annotations

from ..registry import BUILDS, Tool
from .inputs import MAX_SOURCE_BYTES, MAX_TIMEOUT_S

SOURCE_LIMIT = f"source files <= {MAX_SOURCE_BYTES >> 20} MiB each, inside the workspace"
TIMEOUT_LIMIT = f"0 < timeout_s <= {MAX_TIMEOUT_S:.0f}"


def run_testbench(description: str) -> Tool:
    return Tool(
        name="run_testbench",
        method="run_testbench",
        title="Run a testbench",
        description=description,
        hints=BUILDS,
        job=True,
        limits={"sources": SOURCE_LIMIT, "timeout": TIMEOUT_LIMIT},
    )
