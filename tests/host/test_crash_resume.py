"""Kill -9 the host mid-run; `agent-host resume` finishes with no step lost or repeated."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from silicon_agent.host.state import BlockStatus, StateStore

from .scenario import hidden_leaks, make_workspace, write_config, write_mcp_json

BLOCKS = ["counter", "gray", "stuck"]
# With the Verification Engineer's smoke testbench: written first, run before the hidden one.
EXPECTED = {
    "counter": ["testbench", "write", "check", "smoke", "simulate", "synth"],
    "gray": ["testbench"] + ["write", "check"] * 3 + ["smoke", "simulate", "synth"],
    "stuck": ["testbench"] + ["write", "check"] * 3 + ["escalate"],
}


def committed_steps(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM steps").fetchone()[0])
    except sqlite3.Error:
        return 0


def host(*args: str, runs: Path) -> list[str]:
    return [sys.executable, "-m", "silicon_agent.host.cli", "--runs-dir", str(runs), *args]


def kill_after_steps(argv: list[str], cwd: Path, db: Path, steps: int) -> None:
    """Start the host, kill -9 it (and its server children) once `steps` are committed."""
    process = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 180
        while committed_steps(db) < steps and time.monotonic() < deadline:
            assert process.poll() is None, "the host finished before it could be killed"
            time.sleep(0.05)
    finally:
        # The host's server children lose their stdin and exit; make sure of it.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)


@pytest.mark.slow
def test_kill_and_resume(tmp_path: Path) -> None:
    design = make_workspace(tmp_path, BLOCKS)
    # Slow scripted replies so the kill lands in the middle of the run.
    config = write_config(tmp_path, BLOCKS, parallel=2, delay_s=0.6, smoke=True)
    mcp = write_mcp_json(tmp_path, ["iverilog", "verilator"])
    runs = tmp_path / "runs"
    cwd = Path(__file__).resolve().parents[2]
    db = runs / "crash" / "state.sqlite"
    kill_after_steps(
        host(
            "run",
            str(design),
            "--config",
            str(config),
            "--mcp-config",
            str(mcp),
            "--run-id",
            "crash",
            runs=runs,
        ),
        cwd,
        db,
        6,
    )
    store = StateStore(db)
    before = store.steps()
    meta = store.meta()
    store.close()
    assert meta["phase"] == "running"
    assert 6 <= len(before) < sum(len(v) for v in EXPECTED.values())

    resumed = subprocess.run(
        host("resume", "crash", runs=runs), cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]

    store = StateStore(db)
    after = store.steps()
    events = store.events()
    blocks = store.blocks()
    meta = store.meta()
    exchanges = [json.loads(x.model_dump_json()) for _, x in store.exchanges()]
    store.close()
    assert meta["phase"] == "done"
    # What was committed before the kill is untouched, and continued from.
    assert after[: len(before)] == before
    assert [seq for seq, _ in after] == list(range(1, len(after) + 1))
    for name, kinds in EXPECTED.items():
        mine = [record for _, record in after if record.block == name]
        assert [r.kind for r in mine] == kinds, name
        assert [r.step_no for r in mine] == list(range(len(kinds)))
    assert blocks["counter"].status == BlockStatus.PASSED
    assert blocks["gray"].status == BlockStatus.PASSED and blocks["gray"].iteration == 3
    assert blocks["stuck"].status == BlockStatus.ESCALATED
    # The event log holds each committed call once, in checkpoint order.
    lines = [json.loads(x) for x in (runs / "crash" / "events.jsonl").read_text().splitlines()]
    assert [x["event_id"] for x in lines] == [e.event_id for _, e in events]
    assert len({x["event_id"] for x in lines}) == len(lines)
    step_lines = [json.loads(x) for x in (runs / "crash" / "steps.jsonl").read_text().splitlines()]
    assert [x["seq"] for x in step_lines] == [seq for seq, _ in after]
    assert "counter" in resumed.stdout and "PASSED" in resumed.stdout
    # The smoke testbenches were written once each and run from the checkpointed version.
    assert {b: s.smoke.version for b, s in blocks.items() if s.smoke} == dict.fromkeys(BLOCKS, 1)
    smoke = json.loads((runs / "crash" / "attempts" / "gray" / "iter03" / "smoke.json").read_text())
    assert smoke["status"] == "PASS" and smoke["samples"] == 256
    assert sum(x["role"] == "verification_engineer" for x in exchanges) == 3
    assert hidden_leaks(exchanges) == []
