"""A step's checkpoint is one transaction: a host killed half-way through writing it leaves
no trace of the step, so `resume` runs that step again instead of failing on its number."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from silicon_agent.host.state import StateStore

# A child writes one step with two cost events and kills itself (SIGKILL, nothing flushed by
# Python) as SQLite starts the first event's insert: the step's row is already sent.
CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from silicon_agent.host.llm.gateway import CostEvent, Ledger
    from silicon_agent.host.state import BlockState, StateStore, StepRecord

    store = StateStore(Path(sys.argv[1]))
    store.init_blocks(["crc"])
    def die_on_events(sql):
        if sql.startswith("INSERT INTO events"):
            os.kill(os.getpid(), signal.SIGKILL)
    store.db.set_trace_callback(die_on_events)
    ledger = Ledger()
    ledger.events = [
        CostEvent(event_id=f"e{i}", started_at="t", finished_at="t", correlation_id="crc/0",
                  component="designer", provider="scripted", model="m")
        for i in range(2)
    ]
    record = StepRecord(block="crc", step_no=0, kind="write", iteration=1, outcome="ok",
                        started_at="t", finished_at="t")
    state = BlockState(name="crc", step_no=1, iteration=1, phase="check")
    store.commit_step(record, state, ledger, (10, 0.0))
    """
)


def test_a_step_killed_mid_commit_leaves_nothing(tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(db)], cwd=tmp_path, capture_output=True, timeout=60
    )
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]
    store = StateStore(db)
    try:
        assert store.steps() == []
        assert store.events() == []
        assert store.blocks()["crc"].step_no == 0
        assert store.meta().get("tokens_spent") is None
    finally:
        store.close()


def test_a_failed_commit_rolls_back_in_process(tmp_path: Path) -> None:
    """The same without a kill: a statement that fails undoes the ones before it."""
    from silicon_agent.host.llm.gateway import CostEvent, Ledger
    from silicon_agent.host.state import BlockState, StepRecord

    store = StateStore(tmp_path / "state.sqlite")
    try:
        store.init_blocks(["crc"])
        event = CostEvent(
            event_id="same",
            started_at="t",
            finished_at="t",
            correlation_id="crc/0",
            component="designer",
            provider="scripted",
            model="m",
        )
        ledger = Ledger()
        ledger.events = [event, event]  # the second insert breaks the event's key
        record = StepRecord(
            block="crc",
            step_no=0,
            kind="write",
            iteration=1,
            outcome="ok",
            started_at="t",
            finished_at="t",
        )
        try:
            store.commit_step(record, BlockState(name="crc", step_no=1), ledger, (1, 0.0))
        except Exception as error:
            assert "UNIQUE" in str(error)
        else:
            raise AssertionError("a duplicate event id was accepted")
        assert store.steps() == []
        assert store.blocks()["crc"].step_no == 0
    finally:
        store.close()
