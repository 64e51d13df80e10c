"""What every MCP server shares: construction, job tools, progress bridging, the CLI entry."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from mcp.server.mcpserver import MCPServer

from silicon_agent.suite.lifetime import serve_stdio
from silicon_agent.suite.roles import register_role_prompts
from silicon_agent.suite.servers import server as suite_server

from .config import ConfigError, tool_config
from .http import HttpRefused, http_plan, serve_http
from .registry import Registry, register_tools
from .server_info import add_server_info
from .workspace import WORKSPACE_ENV, InvalidInput, Workspace


def make_server(
    registry: Registry, api: object, workspace: Workspace, lifespan: Any = None
) -> MCPServer:
    """An MCP server with the registry's tools (and job tools) over a plain-API object,
    server_info and the role prompts; `lifespan` holds what the API opens while it serves."""
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
