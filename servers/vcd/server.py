"""MCP server `mcp-vcd`: the tools of `tools.REGISTRY` over servers.vcd.api."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from silicon_agent.servers.core.mcp_app import make_server, serve
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.vcd.api import Waves
from silicon_agent.servers.vcd.tools import REGISTRY


def build(workspace: Workspace) -> MCPServer:
    return make_server(REGISTRY, Waves(workspace), workspace)


def main() -> None:
    serve(build, REGISTRY.server)


if __name__ == "__main__":
    main()
