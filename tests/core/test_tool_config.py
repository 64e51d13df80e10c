"""Tool configuration in one validated place: an override from the environment reaches the
tool the server runs and what server_info reports; a bad value stops the server at start-up
with the variable named."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from silicon_agent.servers.core.config import ConfigError, load_tool_config
from tests.conftest import EXAMPLES, REPO

pytestmark = pytest.mark.anyio
REAL_IVERILOG = "/usr/bin/iverilog"


def wrapper(tmp_path: Path, version: str) -> Path:
    """An iverilog that reports its own version and otherwise runs the real one."""
    script = tmp_path / "iverilog-wrapper"
    script.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "-V" ]; then echo "Icarus Verilog version {version} (wrapped)"; exit 0; fi\n'
        f'exec {REAL_IVERILOG} "$@"\n'
    )
    script.chmod(0o755)
    return script


def server_params(workspace: Path, env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "silicon_agent.servers.iverilog.server", "--workspace", str(workspace)],
        env={"PATH": os.environ["PATH"], **env},
        cwd=str(REPO),
    )


async def test_server_info_follows_iverilog_path(tmp_path: Path) -> None:
    if not Path(REAL_IVERILOG).exists():
        pytest.fail("iverilog is missing: run make setup")
    script = wrapper(tmp_path, "77.5")
    workspace = tmp_path / "ws"
    (workspace / "examples").mkdir(parents=True)
    for name in ("counter.sv", "tb_counter.sv"):
        (workspace / "examples" / name).write_text((EXAMPLES / "counter" / name).read_text())
    with anyio.fail_after(120):
        async with Client(server_params(workspace, {"IVERILOG_PATH": str(script)})) as client:
            info = (await client.call_tool("server_info", {})).structured_content
            resource = await client.read_resource("info://server")
            ran = await client.call_tool(
                "compile",
                {"sources": ["examples/counter.sv", "examples/tb_counter.sv"], "top": "tb_counter"},
            )
    iverilog = next(t for t in info["tools"] if t["name"] == "iverilog")
    assert iverilog == {
        "name": "iverilog",
        "path": str(script),
        "version": "77.5",
        "origin": "IVERILOG_PATH",
    }
    assert info["settings"] == {"IVERILOG_PATH": "env"}
    assert info["workspace"] == str(workspace)
    assert json.loads(resource.contents[0].text)["tools"] == info["tools"]
    body = ran.structured_content
    assert body["status"] == "PASS" and body["tool_version"] == "77.5"


def test_a_bad_value_stops_the_server_naming_the_variable(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "silicon_agent.servers.iverilog.server",
            "--workspace",
            str(tmp_path),
        ],
        env={"PATH": os.environ["PATH"], "IVERILOG_PATH": str(tmp_path / "no-such-iverilog")},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "IVERILOG_PATH" in done.stderr and "not an executable file" in done.stderr


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"VERILATOR_ROOT": "/usr"}, "VERILATOR_ROOT"),
        ({"LIBERTY_FILE": "relative.lib"}, "LIBERTY_FILE"),
        ({"SILICON_AGENT_MAX_TIMEOUT_S": "-1"}, "SILICON_AGENT_MAX_TIMEOUT_S"),
        ({"SILICON_AGENT_MAX_SOURCE_MIB": "lots"}, "SILICON_AGENT_MAX_SOURCE_MIB"),
    ],
)
def test_each_bad_value_names_its_variable(env: dict[str, str], variable: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_tool_config(env)
    assert caught.value.variable == variable


def test_config_file_and_environment(tmp_path: Path) -> None:
    script = wrapper(tmp_path, "1.0")
    config = tmp_path / "tools.toml"
    config.write_text(f'[tools]\niverilog_path = "{script}"\nsilicon_agent_max_timeout_s = 90\n')
    loaded = load_tool_config({"SILICON_AGENT_CONFIG": str(config)})
    assert loaded.iverilog_path == str(script) and loaded.max_timeout_s == 90
    assert loaded.sources == {
        "IVERILOG_PATH": str(config),
        "SILICON_AGENT_MAX_TIMEOUT_S": str(config),
    }
    env_wins = load_tool_config(
        {"SILICON_AGENT_CONFIG": str(config), "SILICON_AGENT_MAX_TIMEOUT_S": "30"}
    )
    assert env_wins.max_timeout_s == 30 and env_wins.sources["SILICON_AGENT_MAX_TIMEOUT_S"] == "env"
    config.write_text('yosys = "/usr/bin/yosys"\n')
    with pytest.raises(ConfigError, match="unknown setting"):
        load_tool_config({"SILICON_AGENT_CONFIG": str(config)})
