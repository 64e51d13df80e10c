"""The team a run's block steps share: the design, the configuration, the gateway, the
server pool and the run folder, with the one way a step calls a server tool (the call and its
result joined to the step's ledger) and the hidden runs that judge a block."""

from __future__ import annotations

import json
import time
from typing import Any

from silicon_agent.host.design_file import LoadedDesign
from silicon_agent.suite.design import Block, hidden_paths, testbench_side

from .config import HostConfig
from .llm.gateway import Gateway, Ledger
from .mcp_client import ServerPool, ToolCallFailed
from .memory.memory import TaskMemory
from .modem import Staging, testbench_arguments
from .roles.prompts import HOST_TOOLS
from .runfolder import RunFolder


class Team:
    """Everything a block's steps use: the design, the gateway, the servers, the run folder."""

    def __init__(
        self,
        loaded: LoadedDesign,
        config: HostConfig,
        gateway: Gateway,
        pool: ServerPool,
        folder: RunFolder,
        error_log: Any = None,
        staging: Staging | None = None,
        memory: TaskMemory | None = None,
    ) -> None:
        self.loaded = loaded
        self.memory = memory
        self.design = loaded.design
        self.workspace = loaded.workspace
        self.config = config
        self.gateway = gateway
        self.pool = pool
        self.folder = folder
        self.staging = staging
        self.hidden = set(hidden_paths(self.design)) | set(staging.hidden if staging else [])
        # mcp.json spells the spec store `spec-rag`, the host `spec_rag`: either is the same.
        self.spec_server = self.server_of("spec_rag")
        # A planned design: roles may ask instead of guessing, passing blocks freeze.
        self.planned = self.design.plan is not None
        self.error_log = error_log or (lambda block: [])

    async def tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        ledger: Ledger | None = None,
        correlation_id: str = "",
        timeout_s: float | None = None,
    ) -> dict[str, Any]:
        """Call a server tool; with a ledger the call and its result join the run's record."""
        started = time.monotonic()
        try:
            result = await self.pool.call(
                server, tool, arguments, timeout_s=timeout_s or self.config.limits.tool_timeout_s
            )
        except ToolCallFailed as exc:
            result = {"status": "TOOL_ERROR", "summary": str(exc), "diagnostics": []}
        except Exception as exc:  # a transport failure is a verdict of its own, not a crash
            summary = f"{server}.{tool}: {type(exc).__name__}: {exc}"[:500]
            result = {"status": "TOOL_ERROR", "summary": summary, "diagnostics": []}
        if ledger is not None:
            ledger.tool_calls.append(
                {
                    "role": "host",
                    "correlation_id": correlation_id,
                    "tool": f"{server}.{tool}",
                    "arguments": arguments,
                    "result": json.dumps(result)[:4000],
                    "duration_s": round(time.monotonic() - started, 3),
                }
            )
        return result

    def server_of(self, name: str) -> str | None:
        """The pool's name for a suite server (`spec-rag` or `spec_rag`), None when absent."""
        return next((n for n in self.pool.tools if n.replace("-", "_") == name), None)

    def resolve(self, use: str) -> tuple[str, str] | None:
        """(server, tool) in this pool for one of the host's uses (roles/prompts.py's
        HOST_TOOLS), None when the pool lacks it."""
        server, tool = HOST_TOOLS[use].split(".", 1)
        name = self.server_of(server)
        return (name, tool) if name is not None and self.pool.has(name, tool) else None

    def has(self, use: str) -> bool:
        return self.resolve(use) is not None

    async def use(
        self,
        use: str,
        arguments: dict[str, Any],
        ledger: Ledger | None = None,
        correlation_id: str = "",
        timeout_s: float | None = None,
    ) -> dict[str, Any]:
        """One of the host's uses of a tool; an absent one is a TOOL_ERROR like any failure."""
        found = self.resolve(use)
        if found is None:
            summary = f"no {HOST_TOOLS[use]} in this run's servers"
            return {"status": "TOOL_ERROR", "summary": summary, "diagnostics": []}
        return await self.tool(*found, arguments, ledger, correlation_id, timeout_s)

    def sources(self, block: Block) -> list[str]:
        return self.design.sources(block.name)

    def judge_calls(self, block: Block) -> list[tuple[str, str, dict[str, Any]]]:
        """(label, simulator, run_testbench arguments) of every hidden run of the block."""
        v = block.verification
        assert v is not None
        runs = self.staging.runs.get(block.name, []) if self.staging else []
        if runs and self.staging is not None:
            seed = self.staging.seed
            return [
                (
                    f"{r.case}@{r.simulator}",
                    r.simulator,
                    testbench_arguments(
                        block, r, seed, self.sources(block), package=self.design.package
                    ),
                )
                for r in runs
            ]
        design, shared = testbench_side(self.sources(block), self.design.package)
        arguments = {
            "design": design,
            "testbench": [*shared, *v.testbench],
            "top": v.top,
            "timeout_s": v.timeout_s,
            "waves": "vcd",
        }
        if v.include_dirs:
            arguments["include_dirs"] = v.include_dirs
        return [(v.simulator, v.simulator, arguments)]
