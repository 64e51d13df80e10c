"""The MCP side of a registry's tools: progress forwarded as MCP notifications, and the four
job tools over a server's long operations. Apart from `mcp_app` so that the registry, which
registers tools, and the app, which builds servers, import it and not each other."""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from .jobs import JobInfo, JobManager
from .progress import Progress, no_progress

MAX_RESULT_WAIT_S = 50.0


def mcp_progress(ctx: Context | None) -> Progress:
    """Forward progress to the client as MCP notifications when it asked for them."""
    if ctx is None:
        return no_progress
    step = {"n": 0}

    async def report(fraction: float | None, message: str) -> None:
        step["n"] += 1
        # A client that sent no progress token simply gets nothing.
        try:
            if fraction is None:
                await ctx.report_progress(step["n"], None, message)
            else:
                await ctx.report_progress(round(fraction * 100, 1), 100, message)
        except Exception:
            logging.getLogger(__name__).debug("progress notification dropped", exc_info=True)

    return report


JOB_HINTS = {
    "job_start": ToolAnnotations(
        title="Start a job",
        read_only_hint=False,
        destructive_hint=False,
        idempotent_hint=False,
        open_world_hint=False,
    ),
    "job_status": ToolAnnotations(
        title="Job status",
        read_only_hint=True,
        destructive_hint=False,
        idempotent_hint=True,
        open_world_hint=False,
    ),
    "job_result": ToolAnnotations(
        title="Job result",
        read_only_hint=True,
        destructive_hint=False,
        idempotent_hint=True,
        open_world_hint=False,
    ),
    "job_cancel": ToolAnnotations(
        title="Cancel a job",
        read_only_hint=False,
        destructive_hint=True,
        idempotent_hint=True,
        open_world_hint=False,
    ),
}


def add_job_tools(server: MCPServer, jobs: JobManager) -> None:
    """job_start / job_status / job_result / job_cancel over the server's long operations."""

    @server.tool(name="job_start", annotations=JOB_HINTS["job_start"])
    async def job_start(operation: str, arguments: dict[str, Any] | None = None) -> JobInfo:
        """Start a long operation of this server in the background; poll it with job_status.

        `operation` is a tool name of this server (see the job_start description in the
        server instructions); `arguments` are that tool's arguments.
        """
        try:
            return jobs.start(operation, dict(arguments or {}))
        except KeyError as exc:
            raise ToolError(str(exc.args[0])) from exc

    @server.tool(name="job_status", annotations=JOB_HINTS["job_status"])
    async def job_status(job_id: str) -> JobInfo:
        """State and progress of a job (no result payload)."""
        try:
            return jobs.status(job_id)
        except KeyError as exc:
            raise ToolError(str(exc.args[0])) from exc

    @server.tool(name="job_result", annotations=JOB_HINTS["job_result"])
    async def job_result(job_id: str, wait_s: float = 0.0) -> JobInfo:
        """The job with its result once done; waits up to wait_s seconds (at most 50)."""
        try:
            return await jobs.result(job_id, max(0.0, min(wait_s, MAX_RESULT_WAIT_S)))
        except KeyError as exc:
            raise ToolError(str(exc.args[0])) from exc

    @server.tool(name="job_cancel", annotations=JOB_HINTS["job_cancel"])
    async def job_cancel(job_id: str) -> JobInfo:
        """Cancel a job; its tool processes are killed as a whole group."""
        try:
            return await jobs.cancel(job_id)
        except KeyError as exc:
            raise ToolError(str(exc.args[0])) from exc
