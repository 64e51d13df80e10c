"""The suite from a user's own folder, outside the checkout, as Claude Code and Claude Desktop
start it: a `.mcp.json` naming the installed console scripts, the servers started there by a
real stdio client; `agent-host plan` and `agent-host run` in a fresh folder (scripted model,
real simulators); relative commands of an mcp.json taken from that file's folder wherever
the host runs; a refusal is an MCP error result that keeps its structured content; a tool
the host cannot reach says which server did not start and why."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
import yaml
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from silicon_agent.host.mcp_client import ServerPool, ToolCallFailed, load_mcp_config
from tests.conftest import EXAMPLES, REPO, make_tree_readable, make_world_readable_dir
from tests.host.scenario import make_workspace
from tests.host.scenario import write_config as write_host_config
from tests.planning.scenario import COUNTER_ANSWERS, COUNTER_PROMPT, counter_rules, write_config

pytestmark = pytest.mark.anyio
BIN = Path(sys.executable).parent
# The worktree's code in the servers a client starts (a user's mcp.json has no need of it).
CODE = {"PYTHONPATH": str(REPO)}


@pytest.fixture
def project() -> Iterator[Path]:
    """A fresh folder outside the checkout, readable by the sandboxed tool uid."""
    root = make_world_readable_dir("sa-user-")
    assert REPO not in root.parents
    yield root
    shutil.rmtree(root, ignore_errors=True)


def claude_code_json(project: Path, servers: dict[str, list[str]]) -> Path:
    """A Claude Code project's .mcp.json: each server by the installed console script."""
    entries = {
        name: {"command": str(BIN / argv[0]), "args": argv[1:], "env": dict(CODE)}
        for name, argv in servers.items()
    }
    path = project / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": entries}, indent=1))
    return path


def started_as_claude_code(project: Path, name: str) -> StdioServerParameters:
    """The server as Claude Code starts it: the entry's command, args and env, in the
    project's folder."""
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"][name]
    return StdioServerParameters(
        command=entry["command"], args=entry["args"], env=entry["env"], cwd=str(project)
    )


async def test_modem_server_from_a_users_folder(project: Path) -> None:
    """`agent-host serve` started in the user's folder reaches its own tool servers (their
    relative commands in the suite's mcp.json are the suite's, not the user's folder's)."""
    claude_code_json(project, {"modem": ["agent-host", "serve"]})
    shutil.copy(REPO / "hdl" / "rtl" / "crc_checker.sv", project / "crc_checker.sv")
    (project / "crc_checker.sv").chmod(0o644)
    with anyio.fail_after(600):
        async with Client(started_as_claude_code(project, "modem")) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"list_blocks", "block_brief", "verify_block"} <= names
            verdict = await client.call_tool(
                "verify_block",
                {"block": "crc_checker", "rtl_files": ["crc_checker.sv"], "simulator": "iverilog"},
            )
            body = verdict.structured_content
            assert body["status"] == "PASS", body["summary"]
            assert not verdict.is_error


async def test_a_refusal_is_an_error_result_with_its_structure(project: Path) -> None:
    claude_code_json(project, {"iverilog": ["mcp-iverilog"], "vcd": ["mcp-vcd"]})
    shutil.copytree(EXAMPLES / "counter", project / "counter")
    for path in (project / "counter", *(project / "counter").iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    with anyio.fail_after(300):
        async with Client(started_as_claude_code(project, "iverilog")) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert "run_testbench" in names
            verdict = await client.call_tool(
                "run_testbench",
                {"design": ["counter/counter.sv"], "testbench": ["counter/tb_counter.sv"]},
            )
            assert verdict.structured_content["status"] == "PASS"
            assert not verdict.is_error
            refused = await client.call_tool("compile", {"sources": ["../outside.sv"]})
            assert refused.is_error
            body = refused.structured_content
            assert body["status"] == "INVALID_INPUT"
            assert body["diagnostics"][0]["code"] == "sources"
            assert json.loads(refused.content[0].text)["status"] == "INVALID_INPUT"
        async with Client(started_as_claude_code(project, "vcd")) as client:
            refused = await client.call_tool("list_signals", {"file": "missing.vcd"})
            assert refused.is_error and refused.structured_content["ok"] is False
            assert refused.structured_content["error"]["message"]


async def test_relative_commands_come_from_the_files_folder(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An mcp.json whose command is relative to its own folder works from any working
    folder; the host still reads a refusal's structure; a server that cannot start is named
    with its reason in the call's error."""
    config = project / "config" / "mcp.json"
    config.parent.mkdir()
    relative = os.path.relpath(BIN / "mcp-iverilog", config.parent)
    entries = {
        "iverilog": {"command": relative, "args": [], "env": dict(CODE)},
        "verilator": {"command": "./not-installed/mcp-verilator", "args": []},
    }
    config.write_text(json.dumps({"mcpServers": entries}))
    elsewhere = tmp_path / "a" / "b"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    with anyio.fail_after(300):
        async with ServerPool(load_mcp_config(config), workspace=project) as pool:
            assert pool.has("iverilog", "compile"), pool.failed
            refused = await pool.call("iverilog", "compile", {"sources": ["../outside.sv"]})
            assert refused["status"] == "INVALID_INPUT"
            with pytest.raises(ToolCallFailed) as failed:
                await pool.call("verilator", "lint", {"sources": ["x.sv"]})
    message = str(failed.value)
    assert "verilator" in message and "did not start" in message
    assert "not-installed/mcp-verilator" in message


def test_agent_host_plan_in_a_fresh_folder(project: Path) -> None:
    """`agent-host plan` from the user's folder: the planner's testbenches compile through
    the iverilog server of the suite (a scripted model, real iverilog over MCP)."""
    write_config(project, counter_rules())
    (project / "answers.yaml").write_text(yaml.safe_dump(COUNTER_ANSWERS))
    done = subprocess.run(
        [str(BIN / "agent-host"), "plan", COUNTER_PROMPT, "--answers", "answers.yaml",
         "--out", "plan", "--config", "host.yaml"],
        cwd=project, env={**os.environ, **CODE}, capture_output=True, text=True, timeout=600,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "plan written" in done.stdout
    assert (project / "plan" / "design.yaml").is_file()


def test_agent_host_run_in_a_fresh_folder(project: Path) -> None:
    """`agent-host run` of a design in the user's folder, with no mcp.json of its own: the
    suite's servers start wherever the host runs (a scripted team, real simulators)."""
    design = make_workspace(project, ["counter"])
    loaded = yaml.safe_load(design.read_text())
    loaded["blocks"][0].pop("synth", None)  # the simulators are what this is about
    design.write_text(yaml.safe_dump(loaded, sort_keys=False))
    write_host_config(project, ["counter"])
    make_tree_readable(project)
    done = subprocess.run(
        [str(BIN / "agent-host"), "--runs-dir", "runs", "run", "design.yaml",
         "--config", "host.yaml", "--run-id", "here"],
        cwd=project, env={**os.environ, **CODE}, capture_output=True, text=True, timeout=600,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    table = next(line for line in done.stdout.splitlines() if line.strip().startswith("counter"))
    assert "PASSED" in table, done.stdout
