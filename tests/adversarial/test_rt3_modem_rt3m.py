"""Red team rt3m: the design-loop server `agent-host serve` as rebuilt on the server kit,
attacked as an outside client would, over real stdio and loopback HTTP (127.0.0.1 only).
New classes beside tests/adversarial/test_rt3_modem.py:

A. memory_search opens the workspace's project store through links: a planted link makes it
   read another store outside the workspace, and write (schema, WAL, ChromaDB files) into any
   SQLite file or folder outside it;
B. a hard link is a link too: a candidate hard-linked to a file outside the workspace (or to
   the staged reference RTL in the private state folder) is read as the client's own;
C. two servers on one workspace share the default state folder: the second one's start
   sweeps the first one's in-flight staging away;
D. ... and resume_run starts a second executor on a run the other server is executing;
E. staging a call's hidden vectors runs on the event loop: one verify_block (or
   synthesize_block) of a block with heavy vectors freezes every other call of every client;
F. HTTP edge cases of the kit's guard: Origin "null", Host without or with odd ports, the
   token case, spaces, duplicates and query string, a simple (text/plain) POST;
G. a client that leaves while a job runs: the server and its tool servers end with it;
H. run and job ids with path, URL-encoded and unicode characters.

Holes are marked xfail(strict=True): each test asserts the safe behaviour."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp import Client

from silicon_agent.hdl.registry import load_registry
from silicon_agent.host.memory.embedding import PackagedMiniLM
from silicon_agent.host.memory.guard import AnswerKeyGuard
from silicon_agent.host.memory.memory import PROJECT_DIR, TaskMemory
from silicon_agent.host.memory.notes import NoteDraft, Outcome, Signature
from silicon_agent.host.modem_server import build
from silicon_agent.servers.core.workspace import Workspace
from tests.host.modem_scenario import reference
from tests.host.scenario import write_mcp_json

from .test_rt3_modem import (
    AGENT_HOST,
    SECRET,
    call,
    env,
    quick_config,
    refused,
    serve,
    wait_ended,
)
from .test_rt_http_and_ingest import INIT, TOKEN, free_port, refused_to_start, stop

pytestmark = pytest.mark.anyio
STUB = Path(__file__).with_name("rt3m_stub_simulator.py")


def stub_mcp(root: Path, log: Path, delay_s: float) -> Path:
    """An mcp.json whose `iverilog` is the stub: it waits, then checks the staged sources."""
    path = root / "stub-mcp.json"
    entry = {"command": sys.executable, "args": [str(STUB), str(log), str(delay_s)], "env": {}}
    path.write_text(json.dumps({"mcpServers": {"iverilog": entry}}))
    return path


def events(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


# --- A. memory_search follows links out of the workspace ----------------------------------
def outside_store(folder: Path, text: str) -> None:
    memory = TaskMemory("r9", folder / "run", folder, AnswerKeyGuard([]), 3, PackagedMiniLM())
    memory.write(
        "blk",
        1,
        Signature(category="SIM_MISMATCH", signal="tready"),
        NoteDraft(hypothesis=f"{text} tready stalls", fix_summary="x", keywords=["tready"]),
        Outcome.FIXED,
    )
    memory.close()


async def search(workspace: Path, state: Path, mcp: Path) -> tuple[bool, Any]:
    server = build(Workspace.open(workspace), state=state, mcp_path=mcp)
    async with Client(server) as client:
        return await call(client, "memory_search", {"query": "tready stalls", "k": 3})


async def test_memory_search_writes_nothing_through_a_planted_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim.sqlite"  # any SQLite file of the server's user, outside
    with sqlite3.connect(victim) as db:
        db.execute("CREATE TABLE mine (x)")
    db.close()
    before = victim.read_bytes()
    folder = tmp_path / "outside-folder"
    folder.mkdir()
    workspace = tmp_path / "ws"
    store = workspace / PROJECT_DIR
    store.mkdir(parents=True)
    (store / "notes.sqlite").symlink_to(victim)
    (store / "chroma").symlink_to(folder)
    await search(workspace, tmp_path / "state", write_mcp_json(tmp_path, []))
    assert os.listdir(folder) == [], "files written into a folder outside the workspace"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("victim")) == [
        "victim.sqlite"
    ], "WAL files written beside a file outside the workspace"
    assert victim.read_bytes() == before, "a SQLite file outside the workspace was changed"


async def test_memory_search_reads_no_store_outside_the_workspace(tmp_path: Path) -> None:
    # E.g. another workspace's run store under $XDG_STATE_HOME/silicon-agent/modem/<hash>.
    outside = tmp_path / "elsewhere"
    outside_store(outside, "OUTSIDE_NOTE_7c1e")
    workspace = tmp_path / "ws"
    (workspace / PROJECT_DIR).parent.mkdir(parents=True)
    (workspace / PROJECT_DIR).symlink_to(outside)
    answer = await search(workspace, tmp_path / "state", write_mcp_json(tmp_path, []))
    assert "OUTSIDE_NOTE_7c1e" not in json.dumps(answer[1]), answer


async def test_memory_search_reads_the_workspaces_own_store(tmp_path: Path) -> None:
    """The control: a real store inside the workspace is read (the fix must keep this)."""
    workspace = tmp_path / "ws"
    outside_store(workspace / PROJECT_DIR, "OWN_NOTE_51aa")
    answer = await search(workspace, tmp_path / "state", write_mcp_json(tmp_path, []))
    assert "OWN_NOTE_51aa" in json.dumps(answer[1]), answer


# --- B. a hard link is a link -----------------------------------------------------------------
async def test_a_hard_linked_candidate_is_refused(tmp_path: Path) -> None:
    workspace, state = tmp_path / "ws", tmp_path / "state"
    workspace.mkdir()
    secret = tmp_path / "outside.sv"
    secret.write_text(f"module crc_checker;\n  {SECRET} leak_here();\nendmodule\n")
    os.link(secret, workspace / "cand.sv")
    mcp = write_mcp_json(tmp_path, ["iverilog"])
    staged = load_registry().block("descrambler").rtl_file
    async with Client(serve(workspace, state, mcp, quick_config(tmp_path))) as client:
        leak = await call(
            client,
            "verify_block",
            {"block": "crc_checker", "rtl_files": ["cand.sv"], "simulator": "iverilog"},
        )
        _, run = await call(client, "run_design", {"blocks": ["crc_checker"]})
        await wait_ended(client, run["run"])
        source = state / "runs" / run["run"] / "hidden" / "workspace" / staged
        os.link(source, workspace / "ref.sv")
        key = await call(
            client,
            "verify_block",
            {"block": "descrambler", "rtl_files": ["ref.sv"], "simulator": "iverilog"},
        )
    assert key[1]["status"] == "INVALID_INPUT", key[1]["summary"]
    assert SECRET not in json.dumps(leak), leak
    assert leak[1]["status"] == "INVALID_INPUT", leak


# --- C. a second server on the same workspace ---------------------------------------------------
async def test_a_second_server_leaves_the_first_ones_calls_alone(tmp_path: Path) -> None:
    workspace, state = tmp_path / "ws", tmp_path / "state"
    workspace.mkdir()
    (workspace / "crc.sv").write_text(reference("crc_checker"))
    log = tmp_path / "stub.log"
    mcp = stub_mcp(tmp_path, log, 15)
    async with Client(serve(workspace, state, mcp)) as first:
        args = {"block": "crc_checker", "rtl_files": ["crc.sv"], "simulator": "iverilog"}
        _, job = await call(first, "job_start", {"operation": "verify_block", "arguments": args})
        with anyio.fail_after(120):
            while not any(e["event"] == "start" for e in events(log)):
                await anyio.sleep(0.2)
        # Another client (a second Claude Code session, Claude Desktop) on the same folder.
        async with Client(serve(workspace, state, write_mcp_json(tmp_path, []))) as second:
            await call(second, "list_blocks", {})
        _, done = await call(first, "job_result", {"job_id": job["job_id"], "wait_s": 50})
    ends = [e for e in events(log) if e["event"] == "end"]
    assert ends and ends[0]["missing"] == 0, "the first server's staged call was removed"
    assert done["result"]["status"] == "PASS", done


# --- D. one run, two executors ----------------------------------------------------------------
def slow_config(root: Path) -> Path:
    """A host configuration whose scripted model takes 40 s for any reply."""
    script = root / "slow.yaml"
    script.write_text(yaml.safe_dump({"rules": [{"reply": {"text": "..."}, "delay_s": 40}]}))
    config = yaml.safe_load(quick_config(root).read_text())
    config["providers"]["scripted"]["script"] = str(script)
    path = root / "slow-host.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


async def test_a_run_another_server_executes_is_not_resumed(tmp_path: Path) -> None:
    workspace, state = tmp_path / "ws", tmp_path / "state"
    workspace.mkdir()
    config = slow_config(tmp_path)
    mcp = write_mcp_json(tmp_path, ["iverilog"])
    async with Client(serve(workspace, state, mcp, config)) as first:
        _, run = await call(first, "run_design", {"blocks": ["crc_checker"]})
        assert run["state"] == "running", run
        async with Client(serve(workspace, state, mcp, config)) as second:
            seen = await call(second, "design_status", {"run": run["run"]})
            resumed = await call(second, "resume_run", {"run": run["run"]})
        _, still = await call(first, "design_status", {"run": run["run"]})
    assert still["state"] == "running", still  # the first one was executing it all along
    assert refused(resumed), resumed
    assert seen[1]["state"] != "stopped", seen


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def server_pids(workspace: Path) -> list[int]:
    """The `agent-host serve --workspace <workspace>` processes."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0") if entry.name.isdigit() else []
        except OSError:
            continue
        if b"serve" in words and str(workspace).encode() in words:
            found.append(int(entry.name))
    return found


async def test_run_design_is_bounded(tmp_path: Path) -> None:
    workspace, state = tmp_path / "ws", tmp_path / "state"
    workspace.mkdir()
    config = slow_config(tmp_path)
    params = serve(workspace, state, write_mcp_json(tmp_path, ["iverilog", "vcd"]), config)
    async with Client(params) as client:
        answers = [await call(client, "run_design", {"blocks": ["crc_checker"]}) for _ in range(6)]
        await anyio.sleep(5)
        server = [pid for pid in server_pids(workspace)]
        processes = sum(len(descendants(pid)) for pid in server)
        views = [await call(client, "design_status", {"run": a[1]["run"]}) for a in answers
                 if not refused(a)]  # fmt: skip
    running = [v for v in views if v[1]["state"] == "running"]
    assert len(running) <= 2, f"{len(running)} runs at once, {processes} processes under the server"


async def test_the_runs_processes_end_with_the_client(tmp_path: Path) -> None:
    """A client that leaves while runs execute (their own tool servers, a model call in
    flight): nothing the server started outlives it."""
    workspace, state = tmp_path / "ws", tmp_path / "state"
    workspace.mkdir()
    config = slow_config(tmp_path)
    params = serve(workspace, state, write_mcp_json(tmp_path, ["iverilog", "vcd"]), config)
    async with Client(params) as client:
        for _ in range(2):
            assert not refused(await call(client, "run_design", {"blocks": ["crc_checker"]}))
        await anyio.sleep(5)
        started = [p for pid in server_pids(workspace) for p in [pid, *descendants(pid)]]
    assert len(started) >= 3, started
    deadline = time.monotonic() + 30
    while [p for p in started if alive(p)] and time.monotonic() < deadline:
        await anyio.sleep(0.5)
    left = [(p, Path(f"/proc/{p}/cmdline").read_bytes()[:120]) for p in started if alive(p)]
    assert left == [], left


# --- E. staging on the event loop -----------------------------------------------------------
async def test_a_burst_of_stagings_does_not_freeze_the_server(tmp_path: Path) -> None:
    workspace, state = tmp_path / "ws", tmp_path / "state"
    workspace.mkdir()
    (workspace / "t.sv").write_text("module nothing; endmodule\n")  # any file will do
    args = {"block": "equalizer", "rtl_files": ["t.sv"], "simulator": "iverilog"}
    start = {"operation": "verify_block", "arguments": args}
    async with Client(serve(workspace, state, write_mcp_json(tmp_path, []))) as client:
        await call(client, "list_blocks", {})
        async with anyio.create_task_group() as group:
            for _ in range(24):
                group.start_soon(call, client, "job_start", start)
            await anyio.sleep(0.5)
            began = time.monotonic()
            with anyio.move_on_after(60):
                await call(client, "list_blocks", {})
            waited = time.monotonic() - began
    # On the event loop the 24 stagings held it about 17 s here; off it, list_blocks answers
    # at once. The bound is loose on purpose: a loaded 2-core machine is slow, not blocked.
    assert waited < 8, f"list_blocks waited {waited:.1f} s behind other calls' staging"


# --- F. HTTP guard edge cases ------------------------------------------------------------------
def request(port: int, headers: dict[str, str], path: str = "/mcp", body: bytes = INIT) -> int:
    """The status of one POST, sent with exactly these headers (Host included)."""
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest("POST", path, skip_host=True, skip_accept_encoding=True)
        for name, value in headers:  # type: ignore[misc]
            connection.putheader(name, value)
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        return connection.getresponse().status
    finally:
        connection.close()


def test_http_guard_edge_cases(tmp_path: Path) -> None:
    workspace, state = tmp_path / "ws", tmp_path / "state"
    workspace.mkdir()
    port = free_port()
    proc = subprocess.Popen(
        [str(AGENT_HOST), "serve", "--workspace", str(workspace),
         "--mcp-config", str(write_mcp_json(tmp_path, [])),
         "--transport", "streamable-http", "--host", "127.0.0.1", "--port", str(port)],
        cwd=workspace, env=env(state, SILICON_AGENT_HTTP_TOKEN=TOKEN),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    json_type = [("Content-Type", "application/json")]
    accept = [("Accept", "application/json, text/event-stream")]
    host = [("Host", f"127.0.0.1:{port}")]
    good = [*host, *json_type, *accept, ("Authorization", f"Bearer {TOKEN}")]

    def status(*headers: tuple[str, str], path: str = "/mcp") -> int:
        return request(port, list(headers), path)  # type: ignore[arg-type]

    try:
        assert not refused_to_start(proc, port)
        assert status(*good) == 200  # the control
        bearer = [*host, *json_type, *accept]
        refusals = {
            "lower-case scheme": status(*bearer, ("Authorization", f"bearer {TOKEN}")),
            "trailing space": status(*bearer, ("Authorization", f"Bearer {TOKEN} ")),
            "token prefix": status(*bearer, ("Authorization", f"Bearer {TOKEN[:-1]}")),
            "token in the query": status(*bearer, path=f"/mcp?token={TOKEN}"),
            "right then wrong": status(
                *bearer,
                ("Authorization", f"Bearer {TOKEN}"),
                ("Authorization", "Bearer wrong-token-of-some-length"),
            ),
            "Origin null": status(*good, ("Origin", "null")),
            "Origin lookalike": status(*good, ("Origin", f"http://127.0.0.1.evil.example:{port}")),
            "Origin https other": status(*good, ("Origin", "https://evil.example")),
            "Host lookalike": status(
                ("Host", f"127.0.0.1.evil.example:{port}"), *json_type, *accept,
                ("Authorization", f"Bearer {TOKEN}"),
            ),
            "no Host": status(*json_type, *accept, ("Authorization", f"Bearer {TOKEN}")),
            "text/plain (a simple CORS request)": status(
                *host, ("Content-Type", "text/plain"), *accept,
                ("Authorization", f"Bearer {TOKEN}"),
            ),
        }  # fmt: skip
        let_in = {what: code for what, code in refusals.items() if code < 400}
        assert let_in == {}, let_in
    finally:
        stop(proc)


# --- G. the client leaves while a job runs -----------------------------------------------------
def rpc(proc: subprocess.Popen, message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat_line = Path(f"/proc/{pid}/stat").read_text() if Path(f"/proc/{pid}/stat").exists() else ""
    return " Z " not in stat_line


def test_a_client_gone_mid_job_ends_the_server_and_its_tools(tmp_path: Path) -> None:
    workspace, state = tmp_path / "ws", tmp_path / "state"
    workspace.mkdir()
    (workspace / "crc.sv").write_text(reference("crc_checker"))
    log = tmp_path / "stub.log"
    proc = subprocess.Popen(
        [str(AGENT_HOST), "serve", "--workspace", str(workspace),
         "--mcp-config", str(stub_mcp(tmp_path, log, 300))],
        cwd=workspace, env=env(state), stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        rpc(proc, json.loads(INIT))
        rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        args = {"block": "crc_checker", "rtl_files": ["crc.sv"], "simulator": "iverilog"}
        start = {"operation": "verify_block", "arguments": args}
        params = {"name": "job_start", "arguments": start}
        rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
        deadline = time.monotonic() + 120
        while not any(e["event"] == "start" for e in events(log)):
            assert time.monotonic() < deadline and proc.poll() is None, events(log)
            time.sleep(0.2)
        stub_pid = next(e["pid"] for e in events(log) if e["event"] == "start")
        assert proc.stdin is not None
        proc.stdin.close()  # the client is gone
        deadline = time.monotonic() + 20
        while (proc.poll() is None or alive(stub_pid)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert proc.poll() is not None, "the server outlived its client"
        assert not alive(stub_pid), "a tool server outlived the client"
        assert not any(p.name.startswith("call-") for p in (state / "desk").iterdir())
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# --- H. ids with path characters ------------------------------------------------------------------
async def test_run_and_job_ids_are_ids(tmp_path: Path) -> None:
    workspace, state = tmp_path / "ws", tmp_path / "state"
    workspace.mkdir()
    # A real run store outside the runs folder, and one a bad id could reach.
    outside_store(tmp_path / "runs-elsewhere" / "x" / "memory", "ESCAPED_RUN_NOTE")
    (tmp_path / "runs-elsewhere" / "x" / "state.sqlite").write_bytes(b"")
    server = build(Workspace.open(workspace), state=state, mcp_path=write_mcp_json(tmp_path, []))
    bad = [
        "../runs-elsewhere/x", "..", ".", "x/..", "%2e%2e", "x\n", "x\x00", "ｘ", "a" * 65,
        str(tmp_path / "runs-elsewhere" / "x"), "x/../../runs-elsewhere/x", "",
    ]  # fmt: skip
    async with Client(server) as client:
        for run in bad:
            for tool, extra in (
                ("design_status", {}),
                ("resume_run", {}),
                ("answer_question", {"text": "yes"}),
                ("memory_search", {"query": "tready stalls"}),
            ):
                answer = await call(client, tool, {"run": run, **extra})
                assert "ESCAPED_RUN_NOTE" not in json.dumps(answer), (tool, run, answer)
                if run:
                    assert refused(answer), (tool, run, answer)
        for job in ("../x", "/etc/passwd", "0" * 16, "%2e"):
            is_error, body = await call(client, "job_status", {"job_id": job})
            assert is_error, (job, body)
