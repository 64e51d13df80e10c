"""`agent-host serve`: the modem design loop as an MCP server for any client (Claude Desktop,
Claude Code, the host itself). A client lists the receiver's blocks, reads a block's brief,
writes RTL in its workspace and has it judged on the block's hidden testbench with fresh
vectors (`verify_block`) until PASS; or it starts the host's own run of the design as a job.
Simulators, waveforms and synthesis are reached over MCP, as in every host step."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from pydantic import BaseModel, Field

from silicon_agent.suite.roles import register_role_prompts
from silicon_agent.suite.servers import MODEM

from .mcp_client import REPO_ROOT, WORKSPACE_ENV, default_mcp_config, load_mcp_config
from .memory.search import MemoryHit, store_folders
from .memory.search import search as search_memory
from .modem_desk import (
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

INSTRUCTIONS = """The LTE receiver's design loop. list_blocks gives the blocks in dependency
order; block_brief(block) the specification, the module header to implement, the 3GPP
clauses, dependencies and the shared package. Write the RTL in your workspace, then
verify_block(block, rtl_files) runs the block's hidden testbench on freshly generated golden
vectors and returns the verdict, the first mismatch and a waveform digest of your own
signals; fix and verify again until PASS. synthesize_block reports area and slack at the
block's clock, with the PnR rules' advice when the clock is missed. run_design / resume_run /
answer_question drive the host's own agents as jobs (job_status polls them); design_status is
what `agent-host status` prints."""


class JobView(BaseModel):
    job_id: str | None = Field(None, description="None when the job was refused")
    kind: str
    state: Literal["running", "done", "failed", "INVALID_INPUT"]
    run: str | None = None
    status: str = ""
    error: str | None = None
    problem: Problem | None = Field(None, description="The argument refused, and why")


def refused(kind: str, argument: str, message: str, hint: str = "") -> JobView:
    problem = Problem(argument=argument, message=message, hint=hint)
    return JobView(kind=kind, state="INVALID_INPUT", error=message, problem=problem)


class Jobs:
    """The host's run, resume and answer, each a background task of this server."""

    def __init__(self) -> None:
        self.tasks: dict[str, tuple[asyncio.Task[Any], JobView]] = {}

    def running_on(self, run: Path) -> str | None:
        """The job still at work on a run: two executors on one run would race its state."""
        for job_id, (task, view) in self.tasks.items():
            if view.run == str(run) and not task.done():
                return job_id
        return None

    def start(self, kind: str, run: Path, work: Any) -> JobView:
        view = JobView(job_id=uuid.uuid4().hex[:12], kind=kind, state="running", run=str(run))
        self.tasks[view.job_id] = (asyncio.create_task(work), view)
        return view

    def view(self, job_id: str) -> JobView:
        if job_id not in self.tasks:
            known = ", ".join(self.tasks) or "none yet"
            return refused(
                "status", "job_id", f"no job '{job_id}'", f"jobs of this server: {known}"
            )
        task, view = self.tasks[job_id]
        if task.done():
            error = task.exception()
            view.state = "failed" if error else "done"
            view.error = f"{type(error).__name__}: {error}"[:500] if error else None
        return view


def build(
    workspace: Path,
    design: Path = DEFAULT_DESIGN,
    runs_dir: Path | None = None,
    mcp_path: Path | None = None,
    in_process: dict[str, Any] | None = None,
) -> MCPServer:
    from .runs import create_run, execute_run, resolve_run
    from .state import StateStore
    from .status import status_text

    runs = runs_dir or workspace / "runs"
    config = load_mcp_config(mcp_path or default_mcp_config())
    state: dict[str, ModemDesk] = {}
    jobs = Jobs()

    @contextlib.asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[None]:
        async with ModemDesk(design, workspace, runs, config, in_process) as desk:
            state["desk"] = desk
            yield

    server = MCPServer(name="modem", instructions=INSTRUCTIONS, lifespan=lifespan)

    def desk() -> ModemDesk:
        return state["desk"]

    @server.tool()
    async def list_blocks() -> list[BlockSummary]:
        """The design's blocks in dependency order, with clauses and their state in the
        latest run."""
        return desk().list_blocks()

    @server.tool()
    async def block_brief(block: str) -> BlockBrief:
        """A block's specification, module header, ports, 3GPP clauses, dependencies, shared
        package and status; nothing of its verification assets."""
        brief = desk().block_brief(block)
        if brief is None:
            known = ", ".join(b.name for b in desk().list_blocks())
            raise ToolError(f"block: no block '{block}' (one of {known})")
        return brief

    @server.tool()
    async def verify_block(
        block: str, rtl_files: list[str], simulator: Literal["iverilog", "verilator"] | None = None
    ) -> VerifyResult:
        """Judge a candidate (workspace-relative .sv files; the block's module and any of its
        own submodules) on the block's hidden testbench with freshly generated vectors, on
        the simulators the registry names (or the one given). Returns the verdict, the first
        mismatch, the mismatch count and an explain_mismatch digest of the candidate's own
        signals; never the testbench, the vectors or reference RTL."""
        return await desk().verify_block(block, rtl_files, simulator)

    @server.tool()
    async def synthesize_block(
        block: str, rtl_files: list[str], clock_period_ns: float | None = None
    ) -> SynthesisResult:
        """Synthesise a candidate at the block's clock (or the one given): cells, area,
        worst setup slack and, when the clock is missed, the PnR rules' recommendations."""
        return await desk().synthesize_block(block, rtl_files, clock_period_ns)

    @server.tool()
    async def design_status(run: str | None = None) -> str:
        """The state of a run of the design (default: the latest), as `agent-host status`
        prints it."""
        return desk().design_status(run)

    async def run_job(run: Path) -> None:
        await execute_run(run)

    @server.tool()
    async def run_design(blocks: list[str] | None = None, config: str | None = None) -> JobView:
        """Start the host's agents on the design (or only the named blocks, the others
        taken as verified dependencies) as a job; poll with job_status."""
        names = [b.name for b in desk().list_blocks()]
        unknown = sorted(set(blocks or []) - set(names))
        if unknown:
            return refused("run", "blocks", f"no block {', '.join(unknown)}", f"one of {names}")
        try:
            run = create_run(
                design,
                runs,
                config_path=config,
                mcp_path=str(mcp_path) if mcp_path else None,
                only=blocks or None,
            )
        except (ValueError, FileNotFoundError) as exc:
            return refused("run", "config" if config else "design", str(exc)[:500])
        return jobs.start("run", run, run_job(run))

    def stopped_run(kind: str, run: str) -> Path | JobView:
        """The run's folder, when it exists and no job of this server is at work on it."""
        try:
            path = resolve_run(run, runs)
        except FileNotFoundError as exc:
            return refused(kind, "run", str(exc), "design_status names the latest run")
        busy = jobs.running_on(path)
        if busy is not None:
            return refused(kind, "run", f"job {busy} is still running on it", "poll job_status")
        return path

    @server.tool()
    async def resume_run(run: str) -> JobView:
        """Continue a stopped run as a job."""
        path = stopped_run("resume", run)
        return path if isinstance(path, JobView) else jobs.start("resume", path, run_job(path))

    @server.tool()
    async def answer_question(run: str, text: str, block: str | None = None) -> JobView:
        """Answer a paused block's question and resume the run as a job."""
        path = stopped_run("answer", run)
        if isinstance(path, JobView):
            return path
        store = StateStore(path / "state.sqlite")
        try:
            waiting = [n for n, s in store.blocks().items() if s.question]
            name = block or (waiting[0] if len(waiting) == 1 else None)
            if name is None or name not in waiting:
                message = f"no block '{name}' waits for an answer" if name else "name a block"
                return refused("answer", "block", message, f"waiting: {waiting}")
            store.answer(name, text)
        finally:
            store.close()
        return jobs.start("answer", path, run_job(path))

    @server.tool()
    async def job_status(job_id: str) -> JobView:
        """A job's state; with its run's status once it has one."""
        view = jobs.view(job_id)
        if view.run and (Path(view.run) / "state.sqlite").exists():
            view.status = status_text(Path(view.run))
        return view

    @server.tool()
    async def memory_search(query: str, k: int = 3, run: str | None = None) -> list[MemoryHit]:
        """Task memory: the notes nearest a failure's text (signature, message, hypothesis),
        each with the fix tried and its outcome (fixed, not fixed, made worse), from the
        workspace's project store and the run's (default: the latest run's) store."""
        try:
            folders = store_folders(runs, workspace, run)
            return await asyncio.to_thread(search_memory, folders, query, k)
        except ValueError as exc:
            raise ToolError(str(exc)) from exc

    @server.resource("modem://block/{block}", mime_type="application/json")
    def block_resource(block: str) -> str:
        """A block's brief (the same as block_brief)."""
        brief = desk().block_brief(block)
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

    register_role_prompts(server)
    return server


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--design", default=str(DEFAULT_DESIGN), help="the design (registry)")
    parser.add_argument(
        "--workspace", help=f"where candidates are read (default ${WORKSPACE_ENV} or cwd)"
    )
    parser.add_argument("--mcp-config", help="mcp.json of the tool servers")
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8770)


def run_server(args: argparse.Namespace) -> int:
    logging.basicConfig(level=os.environ.get("SILICON_AGENT_LOG", "WARNING"), stream=sys.stderr)
    workspace = Path(args.workspace or os.environ.get(WORKSPACE_ENV) or ".").resolve()
    runs = getattr(args, "runs_dir", None) or os.environ.get("AGENT_HOST_RUNS")
    server = build(
        workspace,
        Path(args.design).resolve(),
        Path(runs).resolve() if runs else None,
        Path(args.mcp_config).resolve() if args.mcp_config else None,
    )
    if args.transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=args.host, port=args.port)
    return 0
