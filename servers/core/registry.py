"""The declarative tool registry of a server: for every tool its name, the plain-API method it
calls, whether it also runs as a background job, its MCP annotations and its limits.

The MCP tools, the job tools, the golden manifest, the README's tool table and `server.json`
all come from it. A tool's parameters are written once, in the plain-API method's signature
(types, defaults, `Annotated` metadata): the MCP tool and the job's argument check are built
from that signature here.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from .config import ToolInfo
from .jobs import JobManager
from .mcp_tools import add_job_tools, mcp_progress
from .progress import Progress

PROGRESS = "progress"


@dataclass(frozen=True)
class Hints:
    """The four MCP tool annotations, all stated (clients decide what to confirm from them)."""

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool = False

    def annotations(self, title: str) -> ToolAnnotations:
        return ToolAnnotations(
            title=title,
            read_only_hint=self.read_only,
            destructive_hint=self.destructive,
            idempotent_hint=self.idempotent,
            open_world_hint=self.open_world,
        )


# The kinds of tool this suite has.
READS = Hints(read_only=True, destructive=False, idempotent=True)
BUILDS = Hints(read_only=False, destructive=False, idempotent=True)  # writes only its own scratch
WRITES = Hints(read_only=False, destructive=False, idempotent=False)
REPLACES = Hints(read_only=False, destructive=True, idempotent=True)


@dataclass(frozen=True)
class Tool:
    name: str
    method: str  # attribute path on the server's plain-API object, e.g. "synth.synthesize"
    title: str
    description: str
    hints: Hints
    job: bool = False  # also startable with job_start(operation=name)
    limits: Mapping[str, str] = field(default_factory=dict)  # what bounds the call, in words
    internal: tuple[str, ...] = ()  # API parameters that are not part of the MCP contract
    present: Callable[..., Any] | None = None  # turns the API result into the MCP result


@dataclass(frozen=True)
class Registry:
    server: str  # the suite name (suite.servers)
    title: str
    instructions: str
    tools: tuple[Tool, ...]
    toolchain: Callable[[], list[ToolInfo]] | None = None  # what server_info reports
    settings: tuple[str, ...] = ()  # the config.VARIABLES this server's tools read

    def tool(self, name: str) -> Tool:
        for entry in self.tools:
            if entry.name == name:
                return entry
        raise KeyError(name)

    @property
    def jobs(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tools if t.job)


def resolve(api: object, path: str) -> Callable[..., Any]:
    target: Any = api
    for part in path.split("."):
        target = getattr(target, part)
    return typing.cast(Callable[..., Any], target)


def contract(method: Callable[..., Any], internal: tuple[str, ...] = ()) -> list[inspect.Parameter]:
    """The parameters of a tool: the method's own, with their annotations resolved, less the
    progress callback and the internal ones."""
    hints = typing.get_type_hints(method, include_extras=True)
    params = []
    for p in inspect.signature(method).parameters.values():
        if p.name == PROGRESS or p.name in internal:
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TypeError(f"{method.__qualname__}: a tool's parameters must be named")
        params.append(
            p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints.get(p.name, Any))
        )
    return params


def arguments_model(name: str, params: list[inspect.Parameter]) -> type[BaseModel]:
    fields: dict[str, Any] = {
        p.name: (p.annotation, ... if p.default is inspect.Parameter.empty else p.default)
        for p in params
    }
    return create_model(  # type: ignore[call-overload, no-any-return]
        f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields
    )


def is_refusal(result: object) -> bool:
    """A result that refuses the call's arguments: status (or state, the modem's runs)
    INVALID_INPUT (the verdict models, the spec store's `invalid_input`) or a waveform result
    with ok=false."""
    for name in ("status", "state"):
        value = getattr(result, name, None)
        if isinstance(value, str) and value.upper() == "INVALID_INPUT":
            return True
    return getattr(result, "ok", None) is False


def as_error_result(result: BaseModel) -> CallToolResult:
    """A refusal as an MCP error result (isError=true) that keeps its structured content, so
    a client reads the argument named and the hint as from any other result."""
    return CallToolResult(
        content=[TextContent(type="text", text=result.model_dump_json(indent=2))],
        structured_content=result.model_dump(mode="json", by_alias=True),
        is_error=True,
    )


def _mcp_function(entry: Tool, method: Callable[..., Any]) -> Callable[..., Any]:
    params = contract(method, entry.internal)
    takes_progress = PROGRESS in inspect.signature(method).parameters
    hints = typing.get_type_hints(method, include_extras=True)
    returns: Any = hints.get("return", Any)
    if entry.present is not None:
        returns = typing.get_type_hints(entry.present).get("return", Any)

    async def tool(ctx: Context | None = None, **kwargs: Any) -> Any:
        if takes_progress:
            kwargs[PROGRESS] = mcp_progress(ctx)
        result = method(**kwargs)
        if inspect.isawaitable(result):
            result = await result
        result = entry.present(result) if entry.present is not None else result
        if isinstance(result, BaseModel) and is_refusal(result):
            return as_error_result(result)
        return result

    ctx_param = inspect.Parameter(
        "ctx", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Context | None
    )
    tool.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*params, ctx_param], return_annotation=returns
    )
    tool.__annotations__ = {
        **{p.name: p.annotation for p in params},
        "ctx": Context | None,
        "return": returns,
    }
    tool.__name__ = entry.name
    tool.__doc__ = entry.description
    return tool


def _job_function(entry: Tool, method: Callable[..., Any]) -> Any:
    model = arguments_model(entry.name, contract(method, entry.internal))
    takes_progress = PROGRESS in inspect.signature(method).parameters

    async def run(args: dict[str, Any], progress: Progress) -> Any:
        try:
            checked = model.model_validate(args)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "arguments"
            raise ValueError(f"{entry.name}: argument {where}: {first['msg']}") from None
        kwargs = {name: getattr(checked, name) for name in type(checked).model_fields}
        if takes_progress:
            kwargs[PROGRESS] = progress
        result = method(**kwargs)
        return await result if inspect.isawaitable(result) else result

    return run


def register_tools(server: MCPServer, registry: Registry, api: object) -> None:
    """Add every tool of the registry (and the job tools, when any tool is a job)."""

    for entry in registry.tools:
        method = resolve(api, entry.method)
        server.add_tool(
            _mcp_function(entry, method),
            name=entry.name,
            title=entry.title,
            description=entry.description,
            annotations=entry.hints.annotations(entry.title),
        )
    if registry.jobs:
        jobs = JobManager(
            {e.name: _job_function(e, resolve(api, e.method)) for e in registry.tools if e.job}
        )
        add_job_tools(server, jobs)


def tool_table(registry: Registry) -> list[str]:
    """The README's rows for one server: tool, what it does, job, hints, limits."""
    rows = []
    for t in registry.tools:
        first = " ".join(t.description.split()).split(". ")[0].rstrip(".")
        hints = [
            name
            for name, on in (
                ("read-only", t.hints.read_only),
                ("destructive", t.hints.destructive),
                ("idempotent", t.hints.idempotent),
                ("open-world", t.hints.open_world),
            )
            if on
        ]
        limits = "; ".join(f"{k}: {v}" for k, v in t.limits.items()) or "-"
        job = "yes" if t.job else "-"
        cells = [f"`{registry.server}`", f"`{t.name}`", first, job, ", ".join(hints), limits]
        rows.append("| " + " | ".join(cells) + " |")
    return rows
