"""The suite's tool configuration, in one validated place: where iverilog, vvp, Verilator,
Yosys, OpenSTA and the Liberty file are, and the limits every call obeys.

Each value comes from its environment variable, else from the TOML file named by
`SILICON_AGENT_CONFIG` (the same names, lower case, at the top level or under `[tools]`),
else the default (found on PATH, or the bundled wheel). Values are checked when a server
starts; a bad one is a `ConfigError` naming the variable.
"""

from __future__ import annotations

import os
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

CONFIG_ENV = "SILICON_AGENT_CONFIG"

# Variable -> (kind, default); a path kind is checked for what it must be.
VARIABLES: dict[str, tuple[str, Any]] = {
    "IVERILOG_PATH": ("executable", None),
    "VVP_PATH": ("executable", None),
    "VERILATOR_ROOT": ("verilator_root", None),
    "YOSYS_PATH": ("executable", None),
    "STA_PATH": ("executable", None),
    "LIBERTY_FILE": ("file", None),
    "SILICON_AGENT_MAX_TIMEOUT_S": ("positive", 3600.0),
    "SILICON_AGENT_MAX_SOURCE_MIB": ("positive", 16.0),
}


class ConfigError(ValueError):
    def __init__(self, variable: str, message: str) -> None:
        super().__init__(f"{variable}: {message}")
        self.variable = variable


class ToolConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    iverilog_path: str | None = None
    vvp_path: str | None = None
    verilator_root: str | None = None
    yosys_path: str | None = None
    sta_path: str | None = None
    liberty_file: str | None = None
    max_timeout_s: float = 3600.0
    max_source_bytes: int = 16 << 20
    sources: dict[str, str] = Field(
        default_factory=dict, description="Where each set value came from: env or the file"
    )


def _file_values(path: str) -> dict[str, Any]:
    try:
        data = tomllib.loads(Path(path).read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(CONFIG_ENV, f"{path}: cannot be read as TOML ({exc})") from None
    tools = data.get("tools", {})
    merged = {**{k: v for k, v in data.items() if k != "tools"}, **tools}
    unknown = sorted(set(k.upper() for k in merged) - set(VARIABLES))
    if unknown:
        raise ConfigError(CONFIG_ENV, f"{path}: unknown setting(s) {', '.join(unknown)}")
    return {k.upper(): v for k, v in merged.items()}


def _check(variable: str, kind: str, raw: Any) -> Any:
    text = str(raw).strip()
    if kind == "positive":
        try:
            value = float(text)
        except ValueError:
            raise ConfigError(variable, f"'{text}' is not a number") from None
        if not value > 0:
            raise ConfigError(variable, f"{text} must be greater than 0")
        return value
    path = Path(text).expanduser()
    if not path.is_absolute():
        raise ConfigError(variable, f"'{text}' must be an absolute path")
    if kind == "executable" and not (path.is_file() and os.access(path, os.X_OK)):
        raise ConfigError(variable, f"'{text}' is not an executable file")
    if kind == "file" and not (path.is_file() and os.access(path, os.R_OK)):
        raise ConfigError(variable, f"'{text}' is not a readable file")
    if kind == "verilator_root" and not (path / "bin" / "verilator").is_file():
        raise ConfigError(variable, f"'{text}' has no bin/verilator")
    return str(path)


def load_tool_config(environ: dict[str, str] | None = None) -> ToolConfig:
    env = dict(os.environ if environ is None else environ)
    from_file = _file_values(env[CONFIG_ENV]) if env.get(CONFIG_ENV) else {}
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for variable, (kind, _default) in VARIABLES.items():
        if env.get(variable):
            raw, origin = env[variable], "env"
        elif variable in from_file:
            raw, origin = from_file[variable], env[CONFIG_ENV]
        else:
            continue
        values[variable] = _check(variable, kind, raw)
        sources[variable] = origin
    return ToolConfig(
        iverilog_path=values.get("IVERILOG_PATH"),
        vvp_path=values.get("VVP_PATH"),
        verilator_root=values.get("VERILATOR_ROOT"),
        yosys_path=values.get("YOSYS_PATH"),
        sta_path=values.get("STA_PATH"),
        liberty_file=values.get("LIBERTY_FILE"),
        max_timeout_s=values.get("SILICON_AGENT_MAX_TIMEOUT_S", 3600.0),
        max_source_bytes=int(values.get("SILICON_AGENT_MAX_SOURCE_MIB", 16.0) * (1 << 20)),
        sources=sources,
    )


@cache
def tool_config() -> ToolConfig:
    """The process's configuration, read once (a server checks it at start-up)."""
    return load_tool_config()


class ToolInfo(BaseModel):
    name: str
    path: str | None
    version: str | None
    origin: str = Field(description="where it was found: the variable that set it, PATH, a wheel")


class ServerInfo(BaseModel):
    server: str
    package_version: str
    workspace: str
    sandbox: str = Field(description="how each tool process is confined on this machine")
    tools: list[ToolInfo]
    limits: dict[str, str]
    settings: dict[str, str] = Field(description="each configured variable and where it came from")
