"""The suite's MCP servers, listed once. `mcp.json`, the console scripts in `pyproject.toml`,
the host's known servers and each server's registry metadata are derived from this list (and
tests check the checked-in files against it)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass(frozen=True)
class SuiteServer:
    name: str  # the key in mcp.json and in the host's `server.tool` names
    script: str  # the console script
    module: str  # the module whose `main` the script runs (`python -m MODULE` works too)
    extra: str  # the pyproject extra that installs what the server needs beyond the core
    title: str
    env: dict[str, str] = field(default_factory=dict)  # added to mcp.json's entry
    args: tuple[str, ...] = ()  # the console script's arguments in mcp.json

    @property
    def entry_point(self) -> str:
        return f"{self.module}:main"


SERVERS: tuple[SuiteServer, ...] = (
    SuiteServer(
        "iverilog",
        "mcp-iverilog",
        "silicon_agent.servers.iverilog.server",
        "iverilog",
        "Icarus Verilog",
    ),
    SuiteServer(
        "verilator",
        "mcp-verilator",
        "silicon_agent.servers.verilator.server",
        "verilator",
        "Verilator",
    ),
    SuiteServer("vcd", "mcp-vcd", "silicon_agent.servers.vcd.server", "vcd", "Waveforms"),
    SuiteServer(
        "openlane", "mcp-openlane", "silicon_agent.servers.openlane.server", "synth", "OpenLane"
    ),
    SuiteServer(
        "spec_rag",
        "mcp-spec-rag",
        "silicon_agent.servers.spec_rag.server",
        "rag",
        "Spec Librarian",
        {"HF_HUB_OFFLINE": "1"},
    ),
)
SERVER_NAMES: tuple[str, ...] = tuple(s.name for s in SERVERS)
# The modem design loop over MCP: the host serving its block registry to any client. It is in
# mcp.json beside the tool servers, but host runs never start it (it is the host itself).
MODEM = SuiteServer(
    "modem", "agent-host", "silicon_agent.host.cli", "host", "Modem design loop", args=("serve",)
)
CLIENT_SERVERS: tuple[SuiteServer, ...] = (*SERVERS, MODEM)
WORKSPACE_ENV = "SILICON_AGENT_WORKSPACE"


def server(name: str) -> SuiteServer:
    for entry in SERVERS:
        if entry.name == name:
            return entry
    raise KeyError(f"no server '{name}' in the suite ({', '.join(SERVER_NAMES)})")


def mcp_json(
    command_dir: str = ".venv/bin", servers: tuple[SuiteServer, ...] = CLIENT_SERVERS
) -> dict[str, object]:
    """The `mcpServers` file for a checkout whose console scripts are in command_dir."""
    return {
        "mcpServers": {
            s.name: {
                "command": f"{command_dir}/{s.script}",
                "args": list(s.args),
                "env": {WORKSPACE_ENV: ".", **s.env},
            }
            for s in servers
        }
    }


def render_mcp_json() -> str:
    """The checked-in mcp.json (`python -m silicon_agent.suite.servers > mcp.json` rewrites it)."""
    return json.dumps(mcp_json(), indent=2) + "\n"


if __name__ == "__main__":
    print(render_mcp_json(), end="")
