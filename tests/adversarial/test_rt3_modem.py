"""Third red team: the design-loop server, `agent-host serve`, called as an outside client
would, over real stdio (the console script) and loopback HTTP. By class:

1. a client chooses no host command: no configuration, mcp.json, runs folder or checkpoint
   path is taken from a call;
2. the answer keys (staged hidden workspace, reference RTL of the other blocks, vectors)
   stay in the server's own state folder, outside the workspace, 0700;
3. a candidate is opened once beneath the workspace without following links: swapping it
   for a link mid-call never reads the link's target;
4. HTTP takes the suite's one transport, with the token and Host/Origin checks;
6. a kit server: every tool annotated with described parameters; a diagnostic located in a
   hidden file is counted, never shown; every TOOL_ERROR carries its reason.

The server's state folder and host configuration are given through the environment
(`SILICON_AGENT_MODEM_STATE`, `AGENT_HOST_CONFIG`), as a client's launcher would."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp import Client, StdioServerParameters

from silicon_agent.hdl.registry import REPO, load_registry
from silicon_agent.host.run_setup import create_run
from tests.host.modem_scenario import BLOCKS_YAML, hidden_markers, reference
from tests.host.scenario import write_mcp_json

from .test_rt_http_and_ingest import INIT, TOKEN, free_port, refused_to_start, stop

pytestmark = pytest.mark.anyio
AGENT_HOST = Path(sys.executable).with_name("agent-host")
SECRET = "SECRET_6f1d_line_of_a_file_outside"


def env(state: Path, config: Path | None = None, **more: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SILICON_AGENT_HTTP")}
    extra = {"AGENT_HOST_CONFIG": str(config)} if config else {}
    return {
        **base,
        "PYTHONPATH": str(REPO),
        "SILICON_AGENT_MODEM_STATE": str(state),
        **extra,
        **more,
    }


def quick_config(root: Path) -> Path:
    """A host configuration whose scripted model answers nothing: a run ends at once."""
    script = root / "script.yaml"
    script.write_text(yaml.safe_dump({"rules": []}))
    config = {
        "providers": {"scripted": {"kind": "scripted", "script": str(script)}},
        "roles": {"default": {"model": {"provider": "scripted", "model": "s"}}},
        "limits": {"smoke_testbench": False},
        "retry": {"attempts": 1, "base_delay_s": 0.01, "max_delay_s": 0.05},
    }
    path = root / "host.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def serve(workspace: Path, state: Path, mcp: Path, config: Path | None = None) -> Any:
    return StdioServerParameters(
        command=str(AGENT_HOST),
        args=["serve", "--workspace", str(workspace), "--mcp-config", str(mcp)],
        env=env(state, config),
        cwd=str(workspace),
    )


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    """(is_error, the structured body or the text)."""
    reply = await client.call_tool(tool, arguments, read_timeout_seconds=600)
    body = reply.structured_content
    if body is None:
        return reply.is_error, "\n".join(getattr(b, "text", "") for b in reply.content)
    return reply.is_error, body.get("result", body) if set(body) == {"result"} else body


def refused(answer: tuple[bool, Any]) -> bool:
    is_error, body = answer
    return is_error or (isinstance(body, dict) and body.get("state") == "INVALID_INPUT")


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Path, Path, Path]]:
    """(workspace, state folder, mcp.json of the tool servers), the state outside."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    mcp = write_mcp_json(tmp_path, ["iverilog", "vcd"])
    yield workspace, tmp_path / "state", mcp


async def wait_ended(client: Client, run: str) -> dict[str, Any]:
    with anyio.fail_after(300):
        while True:
            _, view = await call(client, "design_status", {"run": run})
            if not isinstance(view, dict) or view.get("state") != "running":
                return view  # type: ignore[return-value]
            await anyio.sleep(1)


# --- 1. a client chooses no host command --------------------------------------------------
async def test_no_host_command_from_a_call(world: tuple[Path, Path, Path], tmp_path: Path) -> None:
    workspace, state, mcp = world
    marker = tmp_path / "pwned"
    evil_mcp = workspace / "evil.json"
    evil_mcp.write_text(
        json.dumps(
            {"mcpServers": {"iverilog": {"command": "/bin/sh", "args": ["-c", f"touch {marker}"]}}}
        )
    )
    evil_config = workspace / "evil.yaml"
    evil_config.write_text(yaml.safe_dump({"mcp_config": str(evil_mcp)}))
    # A checkpoint folder the client wrote in its workspace, naming the same command.
    mine = workspace / "mine"
    create_run(BLOCKS_YAML, mine, str(quick_config(tmp_path)), str(evil_mcp), ["crc_checker"], "x")
    async with Client(serve(workspace, state, mcp, quick_config(tmp_path))) as client:
        resumed = await call(client, "resume_run", {"run": str(mine / "x")})
        assert refused(resumed), resumed
        read = await call(client, "design_status", {"run": str(mine / "x")})
        assert refused(read), read
        started = await call(
            client, "run_design", {"blocks": ["crc_checker"], "config": str(evil_config)}
        )
        if not refused(started):
            await wait_ended(client, started[1]["run"])
    assert not marker.exists(), "a command named by the client ran"
    assert not (workspace / "runs").exists()


# --- 2. answer keys out of the client's reach ---------------------------------------------
async def test_answer_keys_stay_in_the_private_state(
    world: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    workspace, state, mcp = world
    staged = load_registry().block("descrambler").rtl_file
    async with Client(serve(workspace, state, mcp, quick_config(tmp_path))) as client:
        is_error, run = await call(client, "run_design", {"blocks": ["crc_checker"]})
        assert not is_error and run["run"] and "/" not in json.dumps(run["run"]), run
        # The staged reference RTL of a verified dependency, reached through a link.
        source = state / "runs" / run["run"] / "hidden" / "workspace" / staged
        (workspace / "ref.sv").symlink_to(source)
        verdict = await call(
            client,
            "verify_block",
            {"block": "descrambler", "rtl_files": ["ref.sv"], "simulator": "iverilog"},
        )
        await wait_ended(client, run["run"])
    assert source.is_file()
    assert verdict[1]["status"] == "INVALID_INPUT", verdict
    markers = {**hidden_markers(["crc_checker"]), **hidden_markers(["descrambler"])}
    found = [
        (str(p.relative_to(workspace)), what)
        for p in workspace.rglob("*")
        if p.is_file() and not p.is_symlink()
        for m, what in markers.items()
        if m in p.read_text(errors="replace")
    ]
    assert found == []
    assert stat.S_IMODE(state.stat().st_mode) == 0o700


# --- 3. check, then use: one handle --------------------------------------------------------
def flipper(candidate: Path, secret: Path, stop_flag: threading.Event) -> None:
    """Swap the candidate between a regular file and a link to a file outside, atomically."""
    regular = "module crc_checker;\n  wire x = ;\nendmodule\n"
    n = 0
    while not stop_flag.is_set():
        n += 1
        tmp = candidate.with_name(f".swap{n}.sv")
        if n % 2:
            tmp.symlink_to(secret)
        else:
            tmp.write_text(regular)
        os.replace(tmp, candidate)


async def test_a_candidate_swapped_for_a_link_is_never_read(
    world: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    workspace, state, mcp = world
    secret = tmp_path / "outside.sv"
    secret.write_text(f"module crc_checker;\n  {SECRET} leak_here();\nendmodule\n")
    candidate = workspace / "cand.sv"
    candidate.write_text("module crc_checker;\nendmodule\n")
    stop_flag = threading.Event()
    thread = threading.Thread(target=flipper, args=(candidate, secret, stop_flag), daemon=True)
    answers = []
    async with Client(serve(workspace, state, mcp)) as client:
        thread.start()
        try:
            for _ in range(8):
                args = {"block": "crc_checker", "rtl_files": ["cand.sv"], "simulator": "iverilog"}
                answers.append(await call(client, "verify_block", args))
        finally:
            stop_flag.set()
            thread.join()
    assert [a for a in answers if SECRET in json.dumps(a)] == []
    assert {a[1]["status"] for a in answers} <= {"INVALID_INPUT", "COMPILE_FAIL"}


# --- 4. HTTP through the suite's one transport ----------------------------------------------
def start_http(workspace: Path, state: Path, mcp: Path, host: str, port: int, token: str | None):
    more = {"SILICON_AGENT_HTTP_TOKEN": token} if token else {}
    return subprocess.Popen(
        [str(AGENT_HOST), "serve", "--workspace", str(workspace), "--mcp-config", str(mcp),
         "--transport", "streamable-http", "--host", host, "--port", str(port)],
        cwd=workspace, env=env(state, **more),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def post(port: int, headers: dict[str, str]) -> int:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp",
        data=INIT,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_http_with_a_token_refuses_calls_without_it(world: tuple[Path, Path, Path]) -> None:
    workspace, state, mcp = world
    port = free_port()
    proc = start_http(workspace, state, mcp, "127.0.0.1", port, TOKEN)
    try:
        assert not refused_to_start(proc, port)
        assert post(port, {}) == 401
        assert post(port, {"Authorization": "Bearer wrong-token-of-some-length"}) == 401
        assert post(port, {"Host": f"attacker.example:{port}"}) in (401, 421, 400)
        assert post(port, {"Authorization": f"Bearer {TOKEN}"}) == 200
        origin = {"Authorization": f"Bearer {TOKEN}", "Origin": "http://attacker.example"}
        assert post(port, origin) == 403
    finally:
        stop(proc)


def test_http_off_loopback_without_a_token_does_not_start(world: tuple[Path, Path, Path]) -> None:
    workspace, state, mcp = world
    port = free_port()
    proc = start_http(workspace, state, mcp, "0.0.0.0", port, None)
    try:
        assert refused_to_start(proc, port)
    finally:
        stop(proc)


# --- 6. a kit server ------------------------------------------------------------------------
async def test_every_tool_annotated_and_every_parameter_described(
    world: tuple[Path, Path, Path],
) -> None:
    workspace, state, mcp = world
    async with Client(serve(workspace, state, mcp)) as client:
        tools = (await client.list_tools()).tools
    assert {"verify_block", "run_design", "job_start", "server_info"} <= {t.name for t in tools}
    unannotated = [t.name for t in tools if t.annotations is None]
    assert unannotated == []
    undescribed = [
        f"{t.name}.{name}"
        for t in tools
        for name, schema in (t.input_schema.get("properties") or {}).items()
        if not t.name.startswith("job_") and not schema.get("description")
    ]
    assert undescribed == []
    for tool in tools:
        assert all(
            "path" not in name and "config" not in name
            for name in (tool.input_schema.get("properties") or {})
        ), tool.name


async def test_diagnostics_in_hidden_files_are_counted_not_shown(
    world: tuple[Path, Path, Path],
) -> None:
    workspace, state, mcp = world
    # A port renamed: the hidden testbench's instance of it fails to elaborate, in its file.
    text = reference("crc_checker").replace("m_axis_tlast_o", "m_axis_last_o")
    (workspace / "renamed.sv").write_text(text)
    async with Client(serve(workspace, state, mcp)) as client:
        _, verdict = await call(
            client,
            "verify_block",
            {"block": "crc_checker", "rtl_files": ["renamed.sv"], "simulator": "iverilog"},
        )
    assert verdict["status"] == "COMPILE_FAIL", verdict
    assert verdict["hidden_diagnostics"] >= 1 and "hidden harness reported" in verdict["summary"]
    shown = json.dumps(verdict["diagnostics"])
    assert "hidden verification asset" not in shown and "tb_crc_checker" not in shown
    # Nor the text of the testbench's own message, in the summary or anywhere.
    assert "m_axis_tlast_o" not in json.dumps(verdict), verdict["summary"]
    assert all(d.get("file") in (None, "renamed.sv") for d in verdict["diagnostics"])
    tb = (REPO / "hdl" / "tb" / "tb_crc_checker.sv").read_text().splitlines()
    assert [line for line in tb if len(line.strip()) > 25 and line.strip() in shown] == []


async def test_a_tool_error_carries_its_reason(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "crc.sv").write_text(reference("crc_checker"))
    mcp = write_mcp_json(tmp_path, ["iverilog"])  # no Verilator server
    async with Client(serve(workspace, tmp_path / "state", mcp)) as client:
        _, verdict = await call(
            client,
            "verify_block",
            {"block": "crc_checker", "rtl_files": ["crc.sv"], "simulator": "verilator"},
        )
    assert verdict["status"] == "TOOL_ERROR", verdict
    assert verdict["error"] and verdict["error"]["message"], verdict
    assert "verilator" in verdict["error"]["message"] + verdict["error"]["argument"]


# --- 3, the helper itself -------------------------------------------------------------------
def test_open_beneath_refuses_every_way_out(tmp_path: Path) -> None:
    from silicon_agent.servers.core.workspace import InvalidInput, open_beneath

    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "ok.sv").write_text("module ok; endmodule\n")
    (tmp_path / "outside.sv").write_text(SECRET)
    (root / "out.sv").symlink_to(tmp_path / "outside.sv")
    (root / "in.sv").symlink_to(root / "sub" / "ok.sv")  # a link, even one that stays inside
    (root / "dirlink").symlink_to(root / "sub")
    (root / ".silicon-agent").mkdir()
    (root / ".silicon-agent" / "x.sv").write_text("state")
    os.mkfifo(root / "fifo.sv")
    assert open_beneath(root, "sub/ok.sv")[1] == b"module ok; endmodule\n"
    for bad in (
        "out.sv",
        "in.sv",
        "dirlink/ok.sv",
        "../outside.sv",
        "sub/../../outside.sv",
        str(tmp_path / "outside.sv"),
        ".silicon-agent/x.sv",
        "fifo.sv",
        "sub",
        "",
    ):
        with pytest.raises(InvalidInput):
            open_beneath(root, bad, argument="rtl_files")
    with pytest.raises(InvalidInput):
        open_beneath(root, "sub/ok.sv", max_bytes=4)


# --- 2, where the state folder is -----------------------------------------------------------
def test_a_state_folder_inside_the_workspace_is_refused_at_launch(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    done = subprocess.run(
        [str(AGENT_HOST), "serve", "--workspace", str(workspace)],
        env=env(workspace / "state"),
        cwd=workspace,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "outside the workspace" in done.stderr, done.stderr
    assert not (workspace / "state").exists()


def test_the_default_state_folder_is_private_and_per_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from silicon_agent.host.modem_server import STATE_ENV, state_folder

    monkeypatch.delenv(STATE_ENV, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    first, second = tmp_path / "a", tmp_path / "b"
    one, other = state_folder(first), state_folder(second)
    assert one != other and one.parent == tmp_path / "xdg" / "silicon-agent" / "modem"
    assert stat.S_IMODE(one.stat().st_mode) == 0o700 and state_folder(first) == one
