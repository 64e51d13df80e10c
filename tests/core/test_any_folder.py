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


@pytest.mark.slow
async def test_the_design_loop_end_to_end_from_a_users_folder(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user's project holding only a Claude Code `.mcp.json` naming the installed
    `agent-host serve`: the blocks, a brief, the reference crc_checker PASS on both simulators,
    a one-digit polynomial mutant SIM_FAIL with a first mismatch and no hidden text, a run
    started and resumed by its id and read with design_status; then the same server over
    HTTP, served with the token and refused without it."""
    from silicon_agent.host.mcp_client import McpConfig, ServerEntry
    from tests.host.modem_scenario import MUTANT, hidden_markers, reference, write_rules
    from tests.host.modem_scenario import write_config as write_modem_config
    from tests.host.test_mcp_http import free_port, wait_for

    config = write_modem_config(tmp_path, write_rules(["crc_checker"]))
    claude_code_json(project, {"modem": ["agent-host", "serve", "--config", str(config)]})
    entry = json.loads((project / ".mcp.json").read_text())
    # The server's private state goes where the user's XDG state folder is.
    entry["mcpServers"]["modem"]["env"]["XDG_STATE_HOME"] = str(tmp_path / "xdg")
    (project / ".mcp.json").write_text(json.dumps(entry))
    (project / "crc_checker.sv").write_text(reference("crc_checker"))
    (project / "crc_mutant.sv").write_text(MUTANT)
    for path in project.iterdir():
        path.chmod(0o644)
    markers = hidden_markers(["crc_checker"])
    with anyio.fail_after(1500):
        async with Client(started_as_claude_code(project, "modem")) as client:

            async def call(tool: str, arguments: dict) -> dict:
                reply = await client.call_tool(tool, arguments, read_timeout_seconds=900)
                body = reply.structured_content or {}
                return body.get("result", body) if set(body) == {"result"} else body

            blocks = (await client.call_tool("list_blocks", {})).structured_content["result"]
            assert blocks[0]["name"] == "crc_checker"
            brief = await call("block_brief", {"block": "crc_checker"})
            assert brief["interface"].startswith("module crc_checker")
            for simulator in ("iverilog", "verilator"):
                good = await call(
                    "verify_block",
                    {"block": "crc_checker", "rtl_files": ["crc_checker.sv"],
                     "simulator": simulator},
                )  # fmt: skip
                assert good["status"] == "PASS", (simulator, good["summary"])
            bad = await call(
                "verify_block",
                {"block": "crc_checker", "rtl_files": ["crc_mutant.sv"], "simulator": "iverilog"},
            )
            assert bad["status"] == "SIM_FAIL" and bad["first_mismatch"], bad["summary"]
            assert [m for m in markers if m in json.dumps(bad)] == []
            run = await call("run_design", {"blocks": ["crc_checker"]})
            assert run["state"] == "running" and "/" not in run["run"], run
            while run["state"] == "running":
                await anyio.sleep(2)
                run = await call("design_status", {"run": run["run"]})
            assert run["state"] == "done", run
            again = await call("resume_run", {"run": run["run"]})
            assert again["run"] == run["run"] and again["state"] in ("running", "done"), again
            while again["state"] == "running":
                await anyio.sleep(2)
                again = await call("design_status", {"run": run["run"]})
            assert "crc_checker" in again["status"] and "PASSED" in again["status"]
        assert not list(project.glob("runs")), "a run folder in the user's project"

        token = "user-folder-" + "k" * 24
        monkeypatch.setenv("USER_FOLDER_TOKEN", token)
        port = free_port()
        modem = entry["mcpServers"]["modem"]
        server = subprocess.Popen(
            [modem["command"], *modem["args"], "--transport", "streamable-http"]
            + ["--port", str(port)],
            cwd=project,
            env={**os.environ, **modem["env"], "SILICON_AGENT_HTTP_TOKEN": token},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for(port)
            url = f"http://127.0.0.1:{port}/mcp"
            with_token = ServerEntry(
                url=url, headers={"Authorization": "Bearer ${USER_FOLDER_TOKEN}"}
            )
            async with ServerPool(McpConfig(mcpServers={"modem": with_token})) as pool:
                assert pool.failed == {}
                good = await pool.call(
                    "modem",
                    "verify_block",
                    {"block": "crc_checker", "rtl_files": ["crc_checker.sv"],
                     "simulator": "iverilog"},
                )  # fmt: skip
                assert good["status"] == "PASS", good["summary"]
            async with ServerPool(McpConfig(mcpServers={"modem": ServerEntry(url=url)})) as pool:
                assert "modem" in pool.failed, "served without the token"
        finally:
            server.terminate()
            server.wait(20)
