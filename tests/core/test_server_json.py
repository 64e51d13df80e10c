"""Each server's MCP registry metadata (server.json): current with the suite list, the tool
registry and the configuration, and within the rules of the registry's schema (2025-12-11:
reverse-DNS name with one slash, description of at most 100 characters, exact versions, only
the package fields the schema allows). No official validator is installable from PyPI or
npm (the registry's own is a Go binary), so the schema's rules are checked here."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from silicon_agent.servers.core.config import CONFIG_ENV, VARIABLES
from silicon_agent.servers.core.http import TOKEN_ENV
from silicon_agent.servers.core.manifest import registry
from silicon_agent.servers.core.registry_meta import SCHEMA, render_server_json
from silicon_agent.suite.servers import SERVERS, WORKSPACE_ENV, SuiteServer
from tests.conftest import REPO

NAME = re.compile(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")
PACKAGE_FIELDS = {
    "registryType", "registryBaseUrl", "identifier", "version", "fileSha256", "runtimeHint",
    "transport", "runtimeArguments", "packageArguments", "environmentVariables",
}  # fmt: skip
RANGE = re.compile(r"[\^~<>=*x]|latest")


@pytest.mark.parametrize("entry", SERVERS, ids=lambda s: s.name)
def test_server_json_is_current_and_well_formed(entry: SuiteServer) -> None:
    path = REPO / "servers" / entry.name / "server.json"
    assert path.read_text() == render_server_json(entry, registry(entry.name)), (
        f"{path} is stale: run python -m silicon_agent.servers.core.manifest {entry.name} --write"
    )
    meta = json.loads(path.read_text())
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert meta["$schema"] == SCHEMA
    assert NAME.match(meta["name"]) and meta["name"].count("/") == 1
    assert 1 <= len(meta["description"]) <= 100
    assert meta["version"] == version and not RANGE.search(meta["version"])
    (package,) = meta["packages"]
    assert set(package) <= PACKAGE_FIELDS
    assert package["registryType"] == "pypi" and package["version"] == version
    assert package["transport"] == {"type": "stdio"}
    arguments = package["runtimeArguments"]
    assert all(a["type"] in ("named", "positional") for a in arguments)
    assert all("value" in a or "valueHint" in a for a in arguments if a["type"] == "positional")
    assert f"[{entry.extra}]=={version}" in arguments[0]["value"]
    assert arguments[-1]["value"] == entry.script
    names = [v["name"] for v in package["environmentVariables"]]
    allowed = {WORKSPACE_ENV, CONFIG_ENV, TOKEN_ENV, *VARIABLES, *entry.env}
    assert set(names) <= allowed and len(names) == len(set(names))
    assert set(registry(entry.name).settings) <= set(names)
