"""What every MCP server shares: construction, job tools, progress bridging, the CLI entry."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from silicon_agent.suite.lifetime import serve_stdio
from silicon_agent.suite.roles import register_role_prompts
from silicon_agent.suite.servers import server as suite_server

from .config import ConfigError, tool_config
from .http import HttpRefused, http_plan, serve_http
from .jobs import JobInfo, JobManager
from .progress import Progress, no_progress
from .registry import Registry, register_tools
from .workspace import WORKSPACE_ENV, InvalidInput, Workspace

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


def make_server(
    registry: Registry, api: object, workspace: Workspace, lifespan: Any = None
) -> MCPServer:
    """An MCP server with the registry's tools (and job tools) over a plain-API object,
    server_info and the role prompts; `lifespan` holds what the API opens while it serves."""
    from .server_info import add_server_info

    server = MCPServer(
        f"silicon-agent-{registry.server.replace('_', '-')}",
        instructions=registry.instructions,
        **({"lifespan": lifespan} if lifespan is not None else {}),
    )
    register_tools(server, registry, api)
    add_server_info(server, registry, workspace)
    register_role_prompts(server)
    return server


def serve(
    build: Callable[[Workspace], MCPServer],
    name: str,
    argv: Sequence[str] | None = None,
) -> None:
    """The console-script entry of the suite's server `name`:
    `SCRIPT [--workspace DIR] [--transport ...]`."""
    prog = suite_server(name).script
    parser = argparse.ArgumentParser(prog=prog, description=f"{prog} MCP server")
    parser.add_argument(
        "--workspace",
        help=f"workspace root (default: ${WORKSPACE_ENV} or the working directory)",
    )
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        help="another Host header value to accept over HTTP (name:port, or name:* for any port)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        help="another Origin to accept over HTTP (http://name:port or http://name:*)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=os.environ.get("SILICON_AGENT_LOG", "WARNING"), stream=sys.stderr)
    try:
        tool_config()
    except ConfigError as exc:
        parser.exit(2, f"{prog}: configuration error: {exc}\n")
    plan = None
    if args.transport == "streamable-http":
        try:
            plan = http_plan(args.host, args.port, os.environ, args.allow_host, args.allow_origin)
        except HttpRefused as exc:
            parser.exit(2, f"{prog}: refusing to serve HTTP: {exc}\n")
    try:
        workspace = Workspace.open(args.workspace)
    except InvalidInput as exc:
        parser.exit(2, f"{prog}: {exc}\n")
    server = build(workspace)
    if plan is None:
        serve_stdio(server)
    else:
        serve_http(server, plan)
