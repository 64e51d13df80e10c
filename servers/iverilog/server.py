"""MCP server `mcp-iverilog`: the tools of `tools.REGISTRY` over servers.iverilog.api."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from servers.core.mcp_app import make_server, serve
from servers.core.workspace import Workspace
from servers.iverilog.api import Icarus
from servers.iverilog.tools import REGISTRY


def build(workspace: Workspace) -> MCPServer:
    return make_server(REGISTRY, Icarus(workspace), workspace)


def main() -> None:
    serve(build, REGISTRY.server)


if __name__ == "__main__":
    main()
