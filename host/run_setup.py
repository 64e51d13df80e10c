"""Assembling a run: a run folder per run, its checkpoint, the servers, the team and the
gateway set up from the design, the configuration and mcp.json. Executing it is `runs.py`'s."""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from silicon_agent.host.design_file import LoadedDesign, load_design
from silicon_agent.suite.servers import MODEM

from .config import HostConfig, load_config
from .llm.base import Provider
from .llm.gateway import Gateway
from .mcp_client import McpConfig, ServerPool, load_mcp_config, suite_mcp_config
from .memory.memory import open_for_run
from .modem import HIDDEN_DIR, Staging, designed_blocks, new_seed, stage
from .phases import Phase, check
from .runfolder import RunFolder
from .state import BlockStatus, StateStore
from .team import Team


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)


def mcp_config_for(explicit: str | None, config: HostConfig) -> McpConfig:
    path = explicit or config.mcp_config
    if path:
        return load_mcp_config(path)
    return suite_mcp_config()


def create_run(
    design_path: str | Path,
    runs_dir: str | Path,
    config_path: str | None = None,
    mcp_path: str | None = None,
    only: list[str] | None = None,
    run_id: str | None = None,
    memory: str | None = None,
) -> Path:
    """`memory`: off, run (the run's own store) or project (also the workspace's store);
    None keeps the configuration's choice."""
    loaded = load_design(design_path)
    load_config(config_path)  # fail early on a bad configuration
    unknown = sorted(set(only or []) - {b.name for b in loaded.design.blocks})
    if unknown:
        raise ValueError(f"no block {', '.join(unknown)} in {loaded.path.name}")
    missing = [b.name for b in loaded.design.blocks if b.verification is None]
    if missing:
        raise ValueError(f"no hidden testbench for {', '.join(missing)} in {loaded.path.name}")
    folder = RunFolder(Path(runs_dir).resolve() / (run_id or new_run_id()))
    staging = None
    if loaded.design.generated:
        # The answer key stays out of the run: a private workspace in its hidden area.
        staging = stage(
            loaded.design,
            loaded.workspace,
            folder.path / HIDDEN_DIR / "workspace",
            designed_blocks(loaded.design, only),
            new_seed(),
        )
    store = StateStore(folder.state_path)
    config_ref = (
        str(Path(config_path).resolve())
        if config_path and Path(config_path).exists()
        else config_path
    )
    store.set_meta(
        design=str(loaded.path),
        config=config_ref,
        mcp_config=str(Path(mcp_path).resolve()) if mcp_path else None,
        only=only,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        phase="created",
        tokens_spent=0,
        cost_spent=0.0,
        staging=staging.model_dump() if staging else None,
        memory=memory,
    )
    store.init_blocks([b.name for b in loaded.design.blocks])
    if staging is not None:
        provided = [
            state.model_copy(
                update={
                    "status": BlockStatus.PASSED,
                    "phase": check(state.phase, Phase.DONE, "run setup", ("checkpoint",)),
                }
            )
            for name, state in store.blocks().items()
            if name not in staging.designed
        ]
        store.put_blocks(provided)
    store.close()
    return folder.path


def run_servers(
    meta: dict[str, Any], config: HostConfig, in_process: dict[str, Any] | None = None
) -> tuple[ServerPool, LoadedDesign, Staging | None]:
    """The run's server pool (not yet connected) and its design, staged where it is."""
    loaded = load_design(meta["design"])
    source = loaded.workspace
    staging = Staging.model_validate(meta["staging"]) if meta.get("staging") else None
    if staging is not None:
        loaded = loaded.model_copy(update={"workspace": Path(staging.workspace)})
    servers = mcp_config_for(meta.get("mcp_config"), config)
    pool = ServerPool(
        servers,
        workspace=loaded.workspace,
        in_process=in_process,
        # The modem server drives runs itself; a run's steps use the tool servers.
        only=[name for name in servers.mcpServers if name != MODEM.name],
        # The spec store is the design's own, not the staged workspace's.
        workspaces={n: source for n in servers.mcpServers if n.replace("-", "_") == "spec_rag"},
    )
    return pool, loaded, staging


def run_team(
    pool: ServerPool,
    loaded: LoadedDesign,
    staging: Staging | None,
    folder: RunFolder,
    gateway: Gateway,
    error_log: Any = None,
    memory: Any = None,
) -> Team:
    """The team over a connected pool (iverilog is the one server a run cannot do without)."""
    if "iverilog" not in pool.clients:
        raise RuntimeError(f"the iverilog server is required: {json.dumps(pool.failed)}")
    return Team(
        loaded,
        gateway.config,
        gateway,
        pool,
        folder,
        error_log=error_log,
        staging=staging,
        memory=memory,
    )


@asynccontextmanager
async def open_team(
    folder: RunFolder,
    meta: dict[str, Any],
    gateway: Gateway,
    in_process: dict[str, Any] | None = None,
    error_log: Any = None,
) -> AsyncIterator[Team]:
    """The run's team with its own MCP sessions to the servers, open for the block, and the
    run's task memory when the configuration turns it on."""
    pool, loaded, staging = run_servers(meta, gateway.config, in_process)
    source = load_design(meta["design"]).workspace
    memory = open_for_run(gateway.config.memory, folder.path, loaded, source, staging)
    try:
        async with pool:
            yield run_team(pool, loaded, staging, folder, gateway, error_log, memory)
    finally:
        if memory is not None:
            memory.close()


def run_gateway(meta: dict[str, Any], providers: dict[str, Provider] | None = None) -> Gateway:
    """The gateway of a run, its spending carried on from the checkpoint, and the run's own
    choice of task memory over the configuration's."""
    config = load_config(meta.get("config"))
    if meta.get("memory"):
        config.memory.enabled = meta["memory"] != "off"
        config.memory.project = meta["memory"] == "project"
    return Gateway(
        config,
        providers=providers,
        tokens_spent=int(meta.get("tokens_spent", 0)),
        cost_spent=float(meta.get("cost_spent", 0.0)),
    )


def resolve_run(run: str, runs_dir: str | Path) -> Path:
    candidate = Path(run)
    if (candidate / "state.sqlite").exists():
        return candidate.resolve()
    candidate = Path(runs_dir) / run
    if (candidate / "state.sqlite").exists():
        return candidate.resolve()
    raise FileNotFoundError(f"no run '{run}' (looked in {runs_dir})")
