"""MCP server `mcp-verilator`: the tools of `tools.REGISTRY` over servers.verilator.api."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from servers.core.mcp_app import make_server, serve
from servers.core.workspace import Workspace
from servers.verilator.api import Verilator
from servers.verilator.tools import REGISTRY


def build(workspace: Workspace) -> MCPServer:
    return make_server(REGISTRY, Verilator(workspace), workspace)


def main() -> None:
    serve(build, REGISTRY.server)


if __name__ == "__main__":
    main()
