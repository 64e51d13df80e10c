"""Registry entries both simulator servers share, with one contract."""

from __future__ import annotations

from ..config import ToolConfig
from ..registry import BUILDS, Tool

DEFAULTS = ToolConfig()
SOURCE_LIMIT = (
    f"source files <= {DEFAULTS.max_source_bytes >> 20} MiB each (SILICON_AGENT_MAX_SOURCE_MIB),"
    " inside the workspace"
)
TIMEOUT_LIMIT = f"0 < timeout_s <= {DEFAULTS.max_timeout_s:.0f} (SILICON_AGENT_MAX_TIMEOUT_S)"


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
