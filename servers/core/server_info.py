"""`server_info`: what a server uses on this machine (tool paths and versions, where each
setting came from), how its tool runs are confined, its workspace and its limits. Served by
every server as a tool and as the resource `info://server`."""

from __future__ import annotations

from importlib import metadata

from mcp.server.mcpserver import MCPServer

from .config import ServerInfo, ToolInfo, tool_config
from .registry import READS, Registry
from .sandbox import plan_sandbox
from .toolchain import Tool
from .workspace import Workspace

URI = "info://server"


def tool_info(tool: Tool) -> ToolInfo:
    return ToolInfo(name=tool.name, path=tool.path, version=tool.version, origin=tool.origin)


def wheel_info(distribution: str) -> ToolInfo:
    """A library the server runs in process, by its installed distribution's version."""
    try:
        version: str | None = metadata.version(distribution)
    except metadata.PackageNotFoundError:
        version = None
    return ToolInfo(name=distribution, path=None, version=version, origin="python package")


def package_version() -> str:
    try:
        return metadata.version("silicon-agent")
    except metadata.PackageNotFoundError:
        return "unknown"


def server_info(registry: Registry, workspace: Workspace) -> ServerInfo:
    config = tool_config()
    limits = {
        "max_timeout_s": f"{config.max_timeout_s:g}",
        "max_source_bytes": str(config.max_source_bytes),
    }
    for tool in registry.tools:
        limits.update({f"{tool.name}.{k}": v for k, v in tool.limits.items()})
    return ServerInfo(
        server=registry.server,
        package_version=package_version(),
        workspace=str(workspace.root),
        sandbox=plan_sandbox([], [workspace.root]).description,
        tools=registry.toolchain() if registry.toolchain else [],
        limits=limits,
        settings=dict(config.sources),
    )


def add_server_info(server: MCPServer, registry: Registry, workspace: Workspace) -> None:
    async def info() -> ServerInfo:
        return server_info(registry, workspace)

    server.add_tool(
        info,
        name="server_info",
        title="Server information",
        description="Tool paths and versions, where each setting came from, the sandbox level, "
        "the workspace and the limits of this server.",
        annotations=READS.annotations("Server information"),
    )

    @server.resource(URI, mime_type="application/json")
    async def info_resource() -> str:
        """The same as the server_info tool."""
        return server_info(registry, workspace).model_dump_json(indent=1)
