"""The host's MCP client: starts the servers listed in mcp.json (Claude Desktop's
`mcpServers` format) over stdio, or connects over HTTP, discovers their tools and calls them."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

import silicon_agent
from silicon_agent.suite.servers import SERVER_NAMES, WORKSPACE_ENV, server

from .llm.types import ToolSpec

KNOWN_SERVERS: tuple[str, ...] = SERVER_NAMES
REPO_ROOT = Path(__file__).resolve().parent.parent


class ServerEntry(BaseModel):
    model_config = ConfigDict(extra="allow")

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    url: str | None = Field(None, description="Streamable-HTTP endpoint instead of a command")
    headers: dict[str, str] = Field(
        default_factory=dict,
        description="HTTP headers for `url`; ${VAR} is taken from the environment, so a "
        "bearer token need not be written into the file",
    )


class McpConfig(BaseModel):
    model_config = ConfigDict(extra="allow")

    mcpServers: dict[str, ServerEntry]
    # The folder of the file it was read from: relative commands resolve against it, and the
    # servers start there (as Claude Code starts a project's servers in the project).
    _folder: Path | None = PrivateAttr(None)

    @property
    def folder(self) -> Path | None:
        return self._folder


class ToolCallFailed(Exception):
    def __init__(self, server: str, tool: str, message: str) -> None:
        super().__init__(f"{server}.{tool}: {message}")
        self.server = server
        self.tool = tool


def default_mcp_config() -> Path:
    return REPO_ROOT / "mcp.json"


def load_mcp_config(path: str | Path | None) -> McpConfig:
    """An mcp.json; its relative commands are taken from its own folder, wherever the host
    runs."""
    file = Path(path or default_mcp_config()).resolve()
    config = McpConfig.model_validate(json.loads(file.read_text()))
    config._folder = file.parent
    return config


def local_mcp_config(servers: list[str] | tuple[str, ...] = KNOWN_SERVERS) -> McpConfig:
    """The suite's servers launched with this interpreter and this code (used when there is
    no mcp.json): the package's own folder leads their import path."""
    package_root = str(Path(silicon_agent.__file__).resolve().parent.parent)
    return McpConfig(
        mcpServers={
            name: ServerEntry(
                command=sys.executable,
                args=["-m", server(name).module],
                env={"PYTHONPATH": package_root, **server(name).env},
            )
            for name in servers
        }
    )


def resolve_command(command: str | None, folder: Path | None) -> str:
    """An mcp.json command as a path to run: a relative path from the file's folder, a bare
    name from PATH or next to this interpreter (the venv's bin, so an mcp.json naming
    `mcp-iverilog` works without an activated environment)."""
    if not command:
        raise FileNotFoundError("no command given")
    if os.sep in command:
        path = Path(command).expanduser()
        if not path.is_absolute():
            path = (folder or Path.cwd()) / path
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
        raise FileNotFoundError(f"command not found: {path} (from {command!r})")
    found = shutil.which(command) or shutil.which(command, path=str(Path(sys.executable).parent))
    if not found:
        raise FileNotFoundError(
            f"command not found: {command} (not on PATH nor in {Path(sys.executable).parent})"
        )
    return found


def suite_mcp_config() -> McpConfig:
    """The checkout's mcp.json where there is one, else the suite launched with this
    interpreter (an installed distribution has no mcp.json of its own)."""
    path = default_mcp_config()
    return load_mcp_config(path) if path.exists() else local_mcp_config()


def reason(exc: BaseException) -> str:
    """What went wrong, the innermost error of a task group's exception group."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"[:300]


class ServerPool:
    """The connected servers; one that fails to start is recorded, not fatal: the loop runs
    with what responds (iverilog and verilator are the minimum)."""

    def __init__(
        self,
        config: McpConfig | None = None,
        workspace: Path | None = None,
        in_process: dict[str, Any] | None = None,
        only: list[str] | None = None,
        workspaces: dict[str, Path] | None = None,
    ) -> None:
        self.config = config or McpConfig(mcpServers={})
        self.workspace = workspace
        # A server that reads elsewhere than the run's workspace (a staged run's spec store).
        self.workspaces = dict(workspaces or {})
        self.in_process = dict(in_process or {})
        self.only = only
        self.clients: dict[str, Client] = {}
        self.tools: dict[str, dict[str, ToolSpec]] = {}
        self.failed: dict[str, str] = {}
        self._stack = contextlib.AsyncExitStack()

    def _target(self, name: str, entry: ServerEntry) -> Any:
        if entry.url and entry.headers:
            headers = {k: os.path.expandvars(v) for k, v in entry.headers.items()}
            return streamable_http_client(
                entry.url, http_client=create_mcp_http_client(headers=headers)
            )
        if entry.url:
            return entry.url
        command = resolve_command(entry.command, self.config.folder)
        env = dict(entry.env)
        workspace = self.workspaces.get(name, self.workspace)
        if workspace is not None and "--workspace" not in entry.args:
            env[WORKSPACE_ENV] = str(Path(workspace).resolve())
        folder = self.config.folder
        return StdioServerParameters(
            command=command, args=list(entry.args), env=env, cwd=str(folder) if folder else None
        )

    async def __aenter__(self) -> ServerPool:
        targets: dict[str, Any] = dict(self.in_process)
        for name, entry in self.config.mcpServers.items():
            if name in targets or (self.only is not None and name not in self.only):
                continue
            try:
                targets[name] = self._target(name, entry)
            except FileNotFoundError as exc:
                self.failed[name] = str(exc)
        for name, target in targets.items():
            try:
                # No cancel scope around the enter: the client's task group outlives it.
                client = Client(target)
                await self._stack.enter_async_context(client)
                with anyio.fail_after(60):
                    listed = await client.list_tools()
            except Exception as exc:  # a server that does not come up is reported, not fatal
                self.failed[name] = reason(exc)
                continue
            self.clients[name] = client
            self.tools[name] = {
                tool.name: ToolSpec(
                    name=tool.name,
                    description=tool.description or "",
                    input_schema=dict(tool.input_schema or {"type": "object"}),
                )
                for tool in listed.tools
            }
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._stack.aclose()

    def has(self, server: str, tool: str) -> bool:
        return tool in self.tools.get(server, {})

    def missing(self, server: str, tool: str) -> str:
        """Why server.tool cannot be called: the server did not start (and why), is not
        configured, or has no such tool."""
        if server in self.failed:
            return f"server '{server}' did not start: {self.failed[server]}"
        if server not in self.clients:
            known = ", ".join(sorted(self.clients)) or "none"
            return f"no server '{server}' is connected (connected: {known})"
        tools = ", ".join(self.tools[server])
        return f"server '{server}' has no tool '{tool}' (its tools: {tools})"

    def spec(self, server: str, tool: str) -> ToolSpec:
        return self.tools[server][tool]

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], timeout_s: float = 300.0
    ) -> dict[str, Any]:
        """The tool's structured result; a refusal (an error result that carries its structured
        content, e.g. INVALID_INPUT) comes back as that content; any other tool error becomes
        ToolCallFailed."""
        if not self.has(server, tool):
            raise ToolCallFailed(server, tool, self.missing(server, tool))
        result = await self.clients[server].call_tool(
            tool, arguments, read_timeout_seconds=timeout_s
        )
        text = "\n".join(getattr(block, "text", "") for block in result.content or [])
        if result.is_error and result.structured_content is None:
            raise ToolCallFailed(server, tool, text[:1000] or "tool error")
        if result.structured_content is not None:
            return dict(result.structured_content)
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            return {"text": text}
        return value if isinstance(value, dict) else {"result": value}
