"""`agent-host serve`: the modem design loop as an MCP server for any client (Claude Desktop,
Claude Code, the host itself). A client lists the receiver's blocks, reads a block's brief,
writes RTL in its workspace and has it judged on the block's hidden testbench with fresh
vectors (`verify_block`) until PASS; or it starts the host's own run of the design as a job.
Simulators, waveforms and synthesis are reached over MCP, as in every host step."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import hashlib
import logging
import os
import re
import shutil
import stat
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from pydantic import BaseModel, Field

from silicon_agent.servers.core.http import HttpRefused, http_plan, serve_http
from silicon_agent.servers.core.mcp_app import make_server
from silicon_agent.servers.core.registry import READS, Hints, Registry, Tool
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.suite.servers import MODEM

from .mcp_client import REPO_ROOT, WORKSPACE_ENV, default_mcp_config, load_mcp_config
from .memory.search import MemoryHit, store_folders, workspace_store
from .memory.search import search as search_memory
from .modem_desk import (
    SEED_MAX,
    BlockBrief,
    BlockSummary,
    ModemDesk,
    Problem,
    SynthesisResult,
    VerifyResult,
)

MODEM_SERVER = MODEM.name
"""The suite's name for this server (its mcp.json entry); the host's runs leave it out."""

DEFAULT_DESIGN = REPO_ROOT / "hdl" / "blocks.yaml"
STATE_ENV = "SILICON_AGENT_MODEM_STATE"
CONFIG_ENV = "AGENT_HOST_CONFIG"
LATEST = "design_status names the latest"
MAX_RUNS_ENV = "SILICON_AGENT_MODEM_MAX_RUNS"
# Runs one server executes at once: each starts its own tool servers and model calls.
MAX_RUNS = max(1, int(os.environ.get(MAX_RUNS_ENV, "2")))
RUN_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"

INSTRUCTIONS = """The LTE receiver's design loop. list_blocks gives the blocks in dependency
order; block_brief(block) the specification, the module header to implement, the 3GPP
clauses, dependencies and the shared package. Write the RTL in your workspace, then
verify_block(block, rtl_files) runs the block's hidden testbench on freshly generated golden
vectors and returns the verdict, the first mismatch and a waveform digest of your own
signals; fix and verify again until PASS. synthesize_block reports area, slack and the
critical path at the block's clock; a missed clock is TIMING_FAIL with the PnR rules'
advice. verify_block and synthesize_block also run as jobs (job_start / job_status /
job_result / job_cancel).
run_design(blocks) starts the host's own agents on the design and returns the run's id;
design_status(run), resume_run(run) and answer_question(run, text) name a run by that id.
The server's configuration and its runs are its own: no tool takes a path outside the
workspace."""

BlockName = Annotated[
    str, Field(description="A block of the design (see list_blocks)", max_length=64)
]
RunId = Annotated[
    str,
    Field(
        description="A run's id, as run_design returned it (design_status names the latest)",
        pattern=RUN_ID,
    ),
]
RtlFiles = Annotated[
    list[str],
    Field(
        description="The candidate's .sv/.v/.svh files, workspace-relative (no links: each "
        "file is opened once beneath the workspace)",
        min_length=1,
        max_length=16,
    ),
]


class RunView(BaseModel):
    """A run of the host's agents on the design, named by its id."""

    run: str | None = Field(None, description="The run's id; None when the call was refused")
    state: Literal["running", "done", "failed", "stopped", "none", "INVALID_INPUT"] = Field(
        description="running: this server's job is at work on it; done/failed: that job "
        "ended; stopped: no job of this server runs it (resume_run continues it); none: no "
        "run yet"
    )
    status: str = Field("", description="The run's state as `agent-host status` prints it")
    error: str | None = None
    problem: Problem | None = Field(None, description="The argument refused, and why")


def refused(argument: str, message: str, hint: str = "") -> RunView:
    problem = Problem(argument=argument, message=message, hint=hint)
    return RunView(state="INVALID_INPUT", error=message, problem=problem)


def state_folder(workspace: Path, explicit: str | None = None) -> Path:
    """The server's own folder: runs, checkpoints, staged candidates, hidden testbenches and
    vectors. `--state-dir`, else $SILICON_AGENT_MODEM_STATE, else
    $XDG_STATE_HOME (~/.local/state)/silicon-agent/modem/<hash of the workspace>; never
    inside the workspace (nor the workspace inside it), made 0700, a real folder."""
    chosen = explicit or os.environ.get(STATE_ENV)
    if chosen:
        path = Path(chosen).expanduser().resolve()
    else:
        base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
        digest = hashlib.sha256(str(workspace).encode()).hexdigest()[:16]
        path = Path(base).expanduser().resolve() / "silicon-agent" / "modem" / digest
    if path == workspace or workspace in path.parents or path in workspace.parents:
        raise ValueError(
            f"the state folder {path} and the workspace {workspace} overlap: the state folder "
            "holds the answer keys and must lie outside the workspace"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.mkdir(mode=0o700, exist_ok=True)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise ValueError(f"the state folder {path} is not a folder of this user")
    path.chmod(0o700)
    return path


LOCK = ".lock"


def try_hold(path: Path) -> int | None:
    """An exclusive flock on `path` (made if missing), held while the returned descriptor is
    open; None when another open file holds it. The kernel drops it when its holder dies."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def hold(path: Path) -> int:
    fd = try_hold(path)
    if fd is None:
        raise RuntimeError(f"{path} is held by another server")
    return fd


def held(path: Path) -> bool:
    """Whether some live process holds `path`'s lock (a missing file is held by none)."""
    if not path.is_file() or path.is_symlink():
        return False
    fd = try_hold(path)
    if fd is None:
        return True
    os.close(fd)
    return False


class Modem:
    """The modem server's tools as a plain async API over a desk and the host's runs."""

    def __init__(
        self,
        workspace: Path,
        design: Path,
        state: Path,
        mcp_path: Path | None = None,
        config_path: Path | None = None,
    ) -> None:
        self.workspace = workspace
        self.design = design
        self.state = state
        self.runs = state / "runs"
        self.mcp_path = mcp_path
        self.config_path = config_path
        self.tasks: dict[str, asyncio.Task[Any]] = {}
        self._desk: ModemDesk | None = None

    @contextlib.asynccontextmanager
    async def open(self, in_process: dict[str, Any] | None = None) -> AsyncIterator[None]:
        config = load_mcp_config(self.mcp_path or default_mcp_config())
        private = self.state / "desk"
        private.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Each server stages its calls in a folder of its own, locked while it lives: another
        # server on the same state sweeps only the folders no live server holds.
        for old in private.glob("calls-*"):
            if old.is_dir() and not old.is_symlink() and not held(old / LOCK):
                shutil.rmtree(old, ignore_errors=True)
        calls = f"calls-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        (private / calls).mkdir(mode=0o700)
        self._calls_lock = hold(private / calls / LOCK)
        desk = ModemDesk(self.design, self.workspace, self.runs, config, in_process, private, calls)
        async with desk:
            self._desk = desk
            try:
                yield
            finally:
                for task in self.tasks.values():
                    task.cancel()
                await asyncio.gather(*self.tasks.values(), return_exceptions=True)
                shutil.rmtree(private / calls, ignore_errors=True)
                os.close(self._calls_lock)

    @property
    def desk(self) -> ModemDesk:
        if self._desk is None:
            raise ToolError("the server is starting")
        return self._desk

    # --- the blocks ---------------------------------------------------------------------
    async def list_blocks(self) -> list[BlockSummary]:
        return self.desk.list_blocks()

    async def block_brief(self, block: BlockName) -> BlockBrief:
        brief = self.desk.block_brief(block)
        if brief is None:
            known = ", ".join(b.name for b in self.desk.list_blocks())
            raise ToolError(f"block: no block '{block}' (one of {known})")
        return brief

    async def verify_block(
        self,
        block: BlockName,
        rtl_files: RtlFiles,
        simulator: Annotated[
            Literal["iverilog", "verilator"] | None,
            Field(description="One simulator; default: every simulator the block lists"),
        ] = None,
        seed: Annotated[
            int | None,
            Field(
                description="Replay: the seed an earlier verdict returned draws the same cases "
                "and vectors, so the same candidate gets the same verdict and first mismatch "
                "(a PASS on a replayed seed is confirmed on a fresh one); default: a fresh seed",
                ge=1,
                le=SEED_MAX,
            ),
        ] = None,
    ) -> VerifyResult:
        return await self.desk.verify_block(block, rtl_files, simulator, seed)

    async def synthesize_block(
        self,
        block: BlockName,
        rtl_files: RtlFiles,
        clock_period_ns: Annotated[
            float | None,
            Field(description="The clock to meet; default: the block's own", gt=0, le=1000),
        ] = None,
    ) -> SynthesisResult:
        return await self.desk.synthesize_block(block, rtl_files, clock_period_ns)

    # --- runs, by id --------------------------------------------------------------------
    def run_path(self, run: str) -> Path | None:
        """The run's folder under the server's own runs, when `run` names one (an id, never
        a path: a link or anything but a real folder is no run)."""
        if not re.fullmatch(RUN_ID, run) or run in (".", ".."):
            return None
        path = self.runs / run
        try:
            if not stat.S_ISDIR(path.lstat().st_mode):
                return None
            if not stat.S_ISREG((path / "state.sqlite").lstat().st_mode):
                return None
        except FileNotFoundError:
            return None
        return path

    def latest(self) -> str | None:
        if not self.runs.is_dir():
            return None
        names = sorted(p.name for p in self.runs.iterdir() if self.run_path(p.name))
        return names[-1] if names else None

    def view(self, run: str) -> RunView:
        from .status import status_text

        path = self.run_path(run)
        if path is None:
            return refused("run", f"no run '{run}' of this server", LATEST)
        task = self.tasks.get(run)
        error = None
        state: Literal["running", "done", "failed", "stopped"] = "stopped"
        if task is None and held(path / LOCK):
            state = "running"  # by another server on this state folder
        if task is not None:
            state = "running"
            if task.done():
                failure = None if task.cancelled() else task.exception()
                state = "failed" if failure or task.cancelled() else "done"
                error = f"{type(failure).__name__}: {failure}"[:500] if failure else None
        return RunView(run=run, state=state, status=status_text(path), error=error)

    def start(self, run: str) -> RunView:
        from .runs import execute_run

        path = self.run_path(run)
        assert path is not None
        # The run's lease: one executor per checkpoint, whichever server holds it.
        lease = try_hold(path / LOCK)
        if lease is None:
            return refused("run", f"run '{run}' is executing in another server", LATEST)
        task = asyncio.create_task(execute_run(path))
        task.add_done_callback(lambda _: os.close(lease))
        self.tasks[run] = task
        return self.view(run)

    def at_limit(self, argument: str) -> RunView | None:
        """A refusal while this server already executes its most runs at once: each run
        starts its own tool servers and spends on its models."""
        running = [name for name, task in self.tasks.items() if not task.done()]
        if len(running) < MAX_RUNS:
            return None
        return refused(
            argument,
            f"{len(running)} runs of this server are executing ({', '.join(running)}); "
            f"at most {MAX_RUNS} at once",
            f"poll design_status until one ends (or raise {MAX_RUNS_ENV} where the server "
            "is launched)",
        )

    def stopped(self, run: str) -> Path | RunView:
        path = self.run_path(run)
        if path is None:
            return refused("run", f"no run '{run}' of this server", LATEST)
        task = self.tasks.get(run)
        if task is not None and not task.done():
            return refused("run", f"run '{run}' is still running", "poll design_status")
        if held(path / LOCK):
            return refused("run", f"run '{run}' is executing in another server", LATEST)
        return path

    async def design_status(
        self,
        run: Annotated[
            str | None,
            Field(description="A run's id (default: the latest run)", pattern=RUN_ID),
        ] = None,
    ) -> RunView:
        name = run or self.latest()
        if name is None:
            return RunView(state="none", status="no runs yet")
        return self.view(name)

    async def run_design(
        self,
        blocks: Annotated[
            list[str] | None,
            Field(
                description="The blocks to design (the others are taken as verified "
                "dependencies); default: every block",
                max_length=64,
            ),
        ] = None,
    ) -> RunView:
        from .run_setup import create_run

        names = [b.name for b in self.desk.list_blocks()]
        unknown = sorted(set(blocks or []) - set(names))
        if unknown:
            return refused("blocks", f"no block {', '.join(unknown)}", f"one of {names}")
        busy = self.at_limit("blocks")
        if busy is not None:
            return busy
        try:
            path = await asyncio.to_thread(
                create_run,
                self.design,
                self.runs,
                config_path=str(self.config_path) if self.config_path else None,
                mcp_path=str(self.mcp_path) if self.mcp_path else None,
                only=blocks or None,
            )
        except (ValueError, FileNotFoundError) as exc:
            return refused("blocks", str(exc)[:500])
        return self.start(path.name)

    async def resume_run(self, run: RunId) -> RunView:
        path = self.stopped(run)
        if isinstance(path, RunView):
            return path
        return self.at_limit("run") or self.start(run)

    async def answer_question(
        self,
        run: RunId,
        text: Annotated[str, Field(description="The answer", min_length=1, max_length=8000)],
        block: Annotated[
            str | None, Field(description="The waiting block; default: the one waiting")
        ] = None,
    ) -> RunView:
        from .state import StateStore

        path = self.stopped(run)
        if isinstance(path, RunView):
            return path
        busy = self.at_limit("run")
        if busy is not None:
            return busy
        store = StateStore(path / "state.sqlite")
        try:
            waiting = [n for n, s in store.blocks().items() if s.question]
            name = block or (waiting[0] if len(waiting) == 1 else None)
            if name is None or name not in waiting:
                message = f"no block '{name}' waits for an answer" if name else "name a block"
                return refused("block", message, f"waiting: {waiting}")
            store.answer(name, text)
        finally:
            store.close()
        return self.start(run)

    async def memory_search(
        self,
        query: Annotated[
            str, Field(description="A failure's text: signature, message, hypothesis")
        ],
        k: Annotated[int, Field(description="How many notes (1 to 20)")] = 3,
        run: Annotated[
            str | None,
            Field(description="A run's id (default: the latest run)", pattern=RUN_ID),
        ] = None,
    ) -> list[MemoryHit]:
        if run is not None and self.run_path(run) is None:
            raise ToolError(f"run: no run '{run}' of this server")
        try:
            # The run stores are the server's own; the workspace's is read from a link-free
            # copy, so no link a client plants is followed, read or written through.
            folders = store_folders(self.runs, None, run)
            with workspace_store(self.workspace) as project:
                if project is not None:
                    folders.insert(0, project)
                return await asyncio.to_thread(search_memory, folders, query, k)
        except ValueError as exc:
            raise ToolError(str(exc)) from exc


BUILDS_PRIVATE = Hints(read_only=False, destructive=False, idempotent=False)
# A host run: the models it calls are outside this server.
RUNS = Hints(read_only=False, destructive=False, idempotent=False, open_world=True)

REGISTRY = Registry(
    server=MODEM_SERVER,
    title="Modem design loop",
    instructions=INSTRUCTIONS,
    tools=(
        Tool(
            name="list_blocks",
            method="list_blocks",
            title="List the blocks",
            description="The design's blocks in dependency order, with clauses and their "
            "state in the latest run.",
            hints=READS,
        ),
        Tool(
            name="block_brief",
            method="block_brief",
            title="A block's brief",
            description="A block's specification, module header, ports, 3GPP clauses, "
            "dependencies, shared package and status; nothing of its verification assets.",
            hints=READS,
        ),
        Tool(
            name="verify_block",
            method="verify_block",
            title="Verify a candidate",
            description="Judge a candidate (workspace-relative .sv files; the block's module "
            "and any of its own submodules) on the block's hidden testbench with freshly "
            "generated vectors, on the simulators the registry names (or the one given). "
            "Each call draws its cases' parameters (modes, configurations, lengths) across "
            "the brief's range from a fresh seed, which the verdict returns; giving that seed "
            "back replays the same cases (a PASS on them is confirmed on a fresh draw). "
            "Returns the verdict, the first mismatch, the mismatch count and an "
            "explain_mismatch digest of the candidate's own signals; never the testbench, the "
            "vectors or reference RTL (diagnostics in hidden files are counted, not shown).",
            hints=BUILDS_PRIVATE,
            job=True,
            limits={"rtl_files": "1 to 16 files of at most 1 MB, no links"},
        ),
        Tool(
            name="synthesize_block",
            method="synthesize_block",
            title="Synthesise a candidate",
            description="Synthesise a candidate at the block's clock (or the one given): "
            "cells, area, worst setup slack and the critical path; a missed clock is "
            "TIMING_FAIL with the PnR rules' recommendations, a synthesis that cannot finish "
            "is TIMEOUT inside the call's time with what to change.",
            hints=BUILDS_PRIVATE,
            job=True,
            limits={"rtl_files": "1 to 16 files of at most 1 MB, no links"},
        ),
        Tool(
            name="design_status",
            method="design_status",
            title="A run's status",
            description="A run of the design (default: the latest) by its id: whether this "
            "server's job on it runs, and its state as `agent-host status` prints it.",
            hints=READS,
        ),
        Tool(
            name="run_design",
            method="run_design",
            title="Run the host's agents",
            description="Start the host's agents on the design (or only the named blocks, "
            "the others taken as verified dependencies) with the server's own configuration; "
            "returns the run's id; poll design_status.",
            hints=RUNS,
        ),
        Tool(
            name="resume_run",
            method="resume_run",
            title="Resume a run",
            description="Continue a stopped run of this server, named by its id.",
            hints=RUNS,
        ),
        Tool(
            name="answer_question",
            method="answer_question",
            title="Answer a question",
            description="Answer a paused block's question and resume the run (by its id).",
            hints=RUNS,
        ),
        Tool(
            name="memory_search",
            method="memory_search",
            title="Search task memory",
            description="Task memory: the notes nearest a failure's text (signature, "
            "message, hypothesis), each with the fix tried and its outcome (fixed, not fixed, "
            "made worse), from the workspace's project store and the run's (default: the "
            "latest run's) store.",
            hints=READS,
        ),
    ),
)


def build(
    workspace: Workspace,
    design: Path = DEFAULT_DESIGN,
    state: Path | None = None,
    mcp_path: Path | None = None,
    config_path: Path | None = None,
    in_process: dict[str, Any] | None = None,
) -> MCPServer:
    """The modem server on the server kit: the registry's tools (verify and synthesis also as
    jobs), server_info, the role prompts, the block resources and the design prompt."""
    modem = Modem(
        workspace.root,
        design,
        state or state_folder(workspace.root),
        mcp_path,
        config_path,
    )

    @contextlib.asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[None]:
        async with modem.open(in_process):
            yield

    server = make_server(REGISTRY, modem, workspace, lifespan=lifespan)

    @server.resource("modem://block/{block}", mime_type="application/json")
    def block_resource(block: str) -> str:
        """A block's brief (the same as block_brief)."""
        brief = modem.desk.block_brief(block)
        if brief is None:
            raise ResourceError(f"no block '{block}'")
        return brief.model_dump_json(indent=1)

    @server.prompt(title="Design a block")
    def design_block(block: str) -> str:
        """Design one receiver block with this server's tools until its hidden testbench
        passes."""
        return (
            f"Design the `{block}` block of the LTE receiver. Call block_brief('{block}') and "
            "implement exactly its module header in a .sv file of the workspace (import the "
            "shared package inside the module). Then call verify_block with that file; on a "
            "failure read the first mismatch and the waveform digest, fix, and verify again "
            "until the status is PASS. Finally call synthesize_block and report area and slack."
        )

    return server


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--design", default=str(DEFAULT_DESIGN), help="the design (registry)")
    parser.add_argument(
        "--workspace", help=f"where candidates are read (default ${WORKSPACE_ENV} or cwd)"
    )
    parser.add_argument("--mcp-config", help="mcp.json of the tool servers")
    parser.add_argument(
        "--config",
        help=f"the host configuration of run_design's runs (default ${CONFIG_ENV}, else the "
        "local preset)",
    )
    parser.add_argument(
        "--state-dir",
        help=f"the server's own folder for runs and hidden staging (default ${STATE_ENV}, "
        "else $XDG_STATE_HOME/silicon-agent/modem/<workspace hash>); outside the workspace",
    )
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8770)
    parser.add_argument("--allow-host", action="append", default=[], help="another Host header")
    parser.add_argument("--allow-origin", action="append", default=[], help="another Origin")


def run_server(args: argparse.Namespace) -> int:
    logging.basicConfig(level=os.environ.get("SILICON_AGENT_LOG", "WARNING"), stream=sys.stderr)
    plan = None
    if args.transport == "streamable-http":
        try:
            plan = http_plan(args.host, args.port, os.environ, args.allow_host, args.allow_origin)
        except HttpRefused as exc:
            print(f"agent-host serve: refusing to serve HTTP: {exc}", file=sys.stderr)
            return 2
    workspace = Workspace.open(args.workspace)
    try:
        state = state_folder(workspace.root, args.state_dir)
    except (ValueError, OSError) as exc:
        print(f"agent-host serve: {exc}", file=sys.stderr)
        return 2
    config = args.config or os.environ.get(CONFIG_ENV)
    server = build(
        workspace,
        Path(args.design).resolve(),
        state,
        Path(args.mcp_config).resolve() if args.mcp_config else None,
        Path(config).resolve() if config else None,
    )
    if plan is None:
        server.run("stdio")
    else:
        serve_http(server, plan)
    return 0


MANIFEST = Path(__file__).with_name("modem.manifest.json")


async def live_manifest() -> dict[str, Any]:
    """The modem server's tool manifest, built over an empty workspace and state folder."""
    import tempfile

    from silicon_agent.servers.core.manifest import server_manifest

    with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as state:
        server = build(Workspace.open(root), state=Path(state))
        return await server_manifest(MODEM_SERVER, server)


def manifest_main(argv: list[str] | None = None) -> int:
    """`python -m silicon_agent.host.modem_server --write|--check`: the golden manifest."""
    import anyio

    from silicon_agent.servers.core.manifest import render, write_or_check

    parser = argparse.ArgumentParser(prog="python -m silicon_agent.host.modem_server")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    return write_or_check(MANIFEST, render(anyio.run(live_manifest)), args.write)


if __name__ == "__main__":
    raise SystemExit(manifest_main())
