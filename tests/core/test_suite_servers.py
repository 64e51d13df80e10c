"""One list of the suite's servers: mcp.json, the console scripts and the host's known servers
all derive from suite.servers, and the host's tool names use the same server names."""

from __future__ import annotations

import tomllib

from silicon_agent.host.mcp_client import KNOWN_SERVERS, default_mcp_config, load_mcp_config
from silicon_agent.host.roles.prompts import ROLE_TOOLS
from silicon_agent.suite.servers import MODEM, SERVER_NAMES, SERVERS, render_mcp_json
from tests.conftest import REPO


def test_mcp_json_is_generated_from_the_list() -> None:
    assert (REPO / "mcp.json").read_text() == render_mcp_json(), (
        "mcp.json is stale: run python -m silicon_agent.suite.servers > mcp.json"
    )


def test_console_scripts_match_the_list() -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    servers = {name: target for name, target in scripts.items() if name.startswith("mcp-")}
    assert servers == {s.script: s.entry_point for s in SERVERS}
    assert scripts[MODEM.script] == MODEM.entry_point


def test_extras_of_every_server_exist() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert {s.extra for s in SERVERS} <= set(extras)


def test_host_names_servers_as_mcp_json_does() -> None:
    configured = set(load_mcp_config(default_mcp_config()).mcpServers)
    # mcp.json also lists the modem server for clients; host runs never start it.
    assert configured == {*SERVER_NAMES, MODEM.name}
    assert set(KNOWN_SERVERS) == set(SERVER_NAMES)
    used = {tool.split(".", 1)[0] for tools in ROLE_TOOLS.values() for tool in tools}
    assert used <= configured, "a role names a server that mcp.json does not start"
