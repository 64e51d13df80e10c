"""A run's block steps as campaign tasks (`agent-host run --ray`, `--executor pool|serial`).

Each step is one task: the worker holds its own MCP sessions to the servers (opened by its
first step of the run and kept for the next ones: starting the servers takes seconds, a step
often less), proves that they report the driver's tool versions, runs the step with the
driver's spending so far, and sends the step's state, record and ledger back. The driver alone
writes the checkpoint, exactly as it does for a step it ran itself, so the state, the cost
events and the report are those of a run without an executor. Ray re-runs a step whose worker
died; only the run that returned is committed, so it counts once. The run folder and the
workspace must be the same path on every node (one machine, or a shared file system)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from silicon_agent.campaigns.executors import Executor
from silicon_agent.campaigns.progress import Progress
from silicon_agent.campaigns.summary import RunRecord, tasks_per_node
from silicon_agent.campaigns.task import Outcome, Task, TaskResult
from silicon_agent.campaigns.tools import PROJECT, ToolMismatch, driver_check
from silicon_agent.host.design_file import LoadedDesign

from .config import HostConfig
from .llm.gateway import CostEvent, Exchange, Ledger
from .loop import BlockLoop, StepOutput
from .mcp_client import ServerPool
from .modem import Staging
from .runfolder import RunFolder
from .state import BlockState, BlockStatus, StepRecord
from .team import Team

RECORD_FILE = "executor-run.json"
NOT_OK = frozenset({BlockStatus.FAILING, BlockStatus.ESCALATED})


async def server_versions(pool: ServerPool) -> dict[str, str]:
    """What each connected server reports through `server_info`: its package and its tools."""
    versions: dict[str, str] = {}
    for server in sorted(pool.clients):
        if not pool.has(server, "server_info"):
            continue
        info = await pool.call(server, "server_info", {})
        versions[f"{server}:package"] = str(info.get("package_version"))
        for tool in info.get("tools", []):
            versions[f"{server}:{tool['name']}"] = str(tool.get("version"))
    return versions


def refuse_other_versions(driver: dict[str, str], here: dict[str, str]) -> None:
    for tool, version in sorted(driver.items()):
        if here.get(tool, "absent") != version:
            raise ToolMismatch(tool, here.get(tool, "absent"), version, socket.gethostname())


class WorkerSessions:
    """This process's MCP sessions, one server pool per run, on an event loop of their own
    (a task's thread only waits for its step there). A worker that dies takes its servers
    with it: they read their end of its pipes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._open: dict[str, tuple[ServerPool, LoadedDesign, Staging | None, asyncio.Event]] = {}
        self._keepers: list[asyncio.Task[None]] = []

    def run(self, step: Coroutine[Any, Any, Outcome]) -> Outcome:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                threading.Thread(target=self._loop.run_forever, name="mcp", daemon=True).start()
        return asyncio.run_coroutine_threadsafe(step, self._loop).result()

    async def pool(
        self, meta: dict[str, Any], config: HostConfig
    ) -> tuple[ServerPool, LoadedDesign, Staging | None]:
        from .run_setup import run_servers

        key = json.dumps([meta.get(k) for k in ("design", "staging", "mcp_config")])
        if key not in self._open:
            pool, loaded, staging = run_servers(meta, config)
            opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            stop = asyncio.Event()

            async def keep() -> None:
                # Entered and left in this one task, as the sessions' task groups require.
                try:
                    async with pool:
                        opened.set_result(None)
                        await stop.wait()
                except BaseException as exc:
                    if not opened.done():
                        opened.set_exception(exc)

            self._keepers.append(asyncio.create_task(keep()))
            await opened
            self._open[key] = (pool, loaded, staging, stop)
        pool, loaded, staging, _ = self._open[key]
        return pool, loaded, staging

    def close(self) -> None:
        """Stop every server (a driver that ran steps itself, through the serial executor)."""
        if self._loop is None or not self._open:
            return
        stops = [stop for *_, stop in self._open.values()]
        self._open.clear()

        async def stop_all() -> None:
            for stop in stops:
                stop.set()
            await asyncio.gather(*self._keepers, return_exceptions=True)
            self._keepers.clear()

        asyncio.run_coroutine_threadsafe(stop_all(), self._loop).result(timeout=60)


SESSIONS = WorkerSessions()


def step_task(
    run: str,
    meta: dict[str, Any],
    block: str,
    state: dict[str, Any],
    errors: list[dict[str, Any]],
    versions: dict[str, str],
) -> Outcome:
    """One step of one block, on whichever worker runs it."""
    return SESSIONS.run(_step(run, meta, block, BlockState.model_validate(state), errors, versions))


async def _step(
    run: str,
    meta: dict[str, Any],
    block: str,
    state: BlockState,
    errors: list[dict[str, Any]],
    versions: dict[str, str],
) -> Outcome:
    from .run_setup import run_gateway, run_team

    gateway = run_gateway(meta)
    spent = (gateway.tokens_spent, gateway.cost_spent)
    pool, loaded, staging = await SESSIONS.pool(meta, gateway.config)
    team = run_team(pool, loaded, staging, RunFolder(Path(run)), gateway, lambda _: errors)
    refuse_other_versions(versions, await server_versions(pool))
    output = await BlockLoop(team, team.design.block(block)).step(state)
    return Outcome(
        ok=output.state.status not in NOT_OK,
        data={
            "state": output.state.model_dump(mode="json"),
            "record": output.record.model_dump(mode="json"),
            "events": [e.model_dump(mode="json") for e in output.ledger.events],
            "exchanges": [e.model_dump(mode="json") for e in output.ledger.exchanges],
            "tool_calls": output.ledger.tool_calls,
            "errors": [list(e) for e in output.errors],
            "spent": [gateway.tokens_spent - spent[0], gateway.cost_spent - spent[1]],
        },
    )


def step_output(data: dict[str, Any]) -> StepOutput:
    ledger = Ledger()
    ledger.events = [CostEvent.model_validate(e) for e in data["events"]]
    ledger.exchanges = [Exchange.model_validate(e) for e in data["exchanges"]]
    ledger.tool_calls = list(data["tool_calls"])
    return StepOutput(
        state=BlockState.model_validate(data["state"]),
        record=StepRecord.model_validate(data["record"]),
        ledger=ledger,
        errors=[(str(a), str(b)) for a, b in data["errors"]],
    )


class StepTasks:
    """The driver's side: submits a ready block's step, awaits it, books its spending."""

    def __init__(
        self, team: Team, meta: dict[str, Any], executor: Executor, stream: TextIO | None
    ) -> None:
        self.team = team
        self.meta = meta
        self.executor = executor
        self.check = driver_check({PROJECT: f"pkg:{PROJECT}"})
        self.progress = Progress(f"run {team.folder.path.name}", 0, stream)
        self.stream = stream
        self.results: list[TaskResult] = []
        self.started_at = datetime.now(UTC)
        self._versions: dict[str, str] | None = None

    async def step(self, name: str, state: BlockState) -> StepOutput:
        if self._versions is None:
            self._versions = await server_versions(self.team.pool)
        gateway = self.team.gateway
        meta = {**self.meta, "tokens_spent": gateway.tokens_spent, "cost_spent": gateway.cost_spent}
        task = Task(
            id=f"{name}:step{state.step_no:04d}",
            fn="silicon_agent.host.step_tasks:step_task",
            args={
                "run": str(self.team.folder.path),
                "meta": meta,
                "block": name,
                "state": state.model_dump(mode="json"),
                "errors": self.team.error_log(name),
                "versions": self._versions,
            },
        )
        self.progress.grow(1)
        result = await asyncio.wrap_future(self.executor.submit(task, self.check))
        self.progress.update(result)
        self.results.append(result)
        tokens, cost = result.data["spent"]
        gateway.tokens_spent += int(tokens)
        gateway.cost_spent += float(cost)
        return step_output(result.data)

    def finish(self) -> RunRecord:
        """Where the steps ran (not part of the run's results): written beside the checkpoint
        and summed up on the progress stream."""
        results = sorted(self.results, key=lambda r: r.task_id)
        now = datetime.now(UTC)
        record = RunRecord(
            campaign=f"agent-run {self.team.folder.path.name}",
            executor=self.executor.describe(),
            started_at=self.started_at.isoformat(timespec="seconds"),
            finished_at=now.isoformat(timespec="seconds"),
            wall_s=round((now - self.started_at).total_seconds(), 3),
            nodes=tasks_per_node(results),
            tasks=[
                {"task_id": r.task_id, "node": r.node, "pid": r.pid, "duration_s": r.duration_s}
                for r in results
            ],
        )
        (self.team.folder.path / RECORD_FILE).write_text(record.to_json())
        SESSIONS.close()  # the serial executor's, in this process
        if self.stream is not None:
            per_node = ", ".join(f"{node}: {n}" for node, n in record.nodes.items())
            print(
                f"{len(results)} step task(s), {self.progress.failed} failing; "
                f"{record.executor['executor']} on {len(record.nodes)} node(s) ({per_node})",
                file=self.stream,
            )
        return record
