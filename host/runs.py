"""Executing a run (or resuming one): the orchestrator over the team `run_setup.py` opens,
every step committed to the run's checkpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from silicon_agent.campaigns.executors import Executor

from .llm.base import Provider
from .orchestrator import Orchestrator
from .run_setup import open_team, run_gateway
from .runfolder import RunFolder
from .state import BlockState, StateStore


async def execute_run(
    run_path: str | Path,
    providers: dict[str, Provider] | None = None,
    in_process: dict[str, Any] | None = None,
    executor: Executor | None = None,
) -> dict[str, BlockState]:
    """Run (or resume) until every selected block has passed or been escalated. With an
    ``executor`` every block step is a task on it (Ray: a task on the cluster, with its own
    MCP sessions); the checkpoint stays here, its single writer."""
    folder = RunFolder(Path(run_path).resolve())
    store = StateStore(folder.state_path)
    try:
        meta = store.meta()
        # Files exported by a run that was killed are brought in line with the checkpoint.
        folder.export(store)

        def errors_of(block: str) -> list[dict[str, Any]]:
            return [e for e in store.error_log() if e["block"] == block]

        gateway = run_gateway(meta, providers)
        if executor is not None and gateway.config.memory.enabled:
            # Each worker would open the run's stores; ChromaDB's embedded store is one
            # process's alone.
            raise ValueError("task memory runs with the steps in this process: drop the executor")
        async with open_team(folder, meta, gateway, in_process, errors_of) as team:
            store.set_meta(servers=sorted(team.pool.clients), servers_failed=team.pool.failed)
            return await Orchestrator(team, store, folder, executor).run(meta.get("only"))
    finally:
        store.close()
