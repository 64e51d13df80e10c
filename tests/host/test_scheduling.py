"""The scheduler's order: failing blocks before blocks in progress before new ones, and only
blocks whose dependencies have passed."""

from __future__ import annotations

from pathlib import Path

from silicon_agent.host.config import load_config
from silicon_agent.host.design_file import load_design
from silicon_agent.host.llm.gateway import Gateway
from silicon_agent.host.mcp_client import ServerPool
from silicon_agent.host.orchestrator import Orchestrator
from silicon_agent.host.runfolder import RunFolder
from silicon_agent.host.state import BlockState, BlockStatus, StateStore
from silicon_agent.host.team import Team

from .scenario import make_workspace, write_config


def test_failing_first_then_in_progress_then_new(tmp_path: Path) -> None:
    names = ["counter", "gray", "counter_fix", "ticker", "stuck"]
    loaded = load_design(make_workspace(tmp_path, names))
    config = load_config(write_config(tmp_path, names))
    folder = RunFolder(tmp_path / "run")
    store = StateStore(folder.state_path)
    team = Team(loaded, config, Gateway(config), ServerPool(), folder)
    orchestrator = Orchestrator(team, store, folder)
    states = {n: BlockState(name=n) for n in names}
    states["ticker"].status = BlockStatus.IN_PROGRESS
    states["stuck"].status = BlockStatus.FAILING
    everything = set(names)
    # gray waits for counter, which has not passed yet.
    assert orchestrator.ready(states, everything, set()) == [
        "stuck",
        "ticker",
        "counter",
        "counter_fix",
    ]
    assert orchestrator.ready(states, everything, {"stuck"}) == ["ticker", "counter", "counter_fix"]
    states["counter"].status = BlockStatus.PASSED
    assert "gray" in orchestrator.ready(states, everything, set())
    # --block gray brings in what it uses, nothing else.
    assert orchestrator.selected(["gray"]) == {"gray", "counter"}
    states["counter"].status = BlockStatus.ESCALATED
    assert orchestrator.blocked(states, everything) == ["gray"]
    store.close()
