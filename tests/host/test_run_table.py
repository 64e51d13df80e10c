"""What a new user reads after `make run`: each run's block table printed once, and a block
the run did not design (a verified dependency) said to be the provided reference RTL, not an
artifact named Stub."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from silicon_agent.host import demo
from silicon_agent.host.state import BlockStatus, StateStore
from silicon_agent.host.status import status_text
from tests.conftest import make_world_readable_dir

from .scenario import write_config


def test_a_verified_dependency_says_what_it_is(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state.sqlite")
    try:
        store.set_meta(
            phase="done", tokens_spent=0, cost_spent=0.0,
            staging={"seed": 7, "provided": ["crc_checker"], "designed": ["dl_sch_processor"]},
        )  # fmt: skip
        store.init_blocks(["crc_checker", "dl_sch_processor"])
        provided = store.blocks()["crc_checker"]
        store.put_blocks([provided.model_copy(update={"status": BlockStatus.PASSED})])
    finally:
        store.close()
    lines = status_text(tmp_path).splitlines()
    crc = next(line for line in lines if line.strip().startswith("crc_checker"))
    assert "provided (reference RTL" in crc and "verified dependency" in crc
    assert "artifact=" not in crc
    designed = next(line for line in lines if line.strip().startswith("dl_sch_processor"))
    assert "artifact=Stub" in designed  # a designed block still shows its artifact


def test_the_demo_prints_each_runs_table_once(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """The demo's host run of the counter, with a scripted team instead of the local model."""
    root = make_world_readable_dir("sa-demo-")
    try:
        monkeypatch.setattr(demo, "RUNS", root / "demo")
        workspace = demo.agent_workspace()
        config = write_config(root, ["counter"])
        assert demo.host_run(workspace / "design.yaml", "scripted", config, []) == 0
        printed = capfd.readouterr().out
        assert printed.count("run scripted: phase=") == 1, printed
        assert "counter" in printed and "PASSED" in printed
    finally:
        shutil.rmtree(root, ignore_errors=True)
