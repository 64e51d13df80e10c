"""Design state checkpointed in SQLite after every step: phase, per-block status and
iteration, the step log, the error log, synthesis results, budget and the escalation queue.
One step is one transaction, so a killed host resumes with no step lost or repeated."""

from __future__ import annotations

import json
import sqlite3
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .llm.gateway import CostEvent, Exchange, Ledger, now_iso
from .memory.notes import MemoryTrack
from .phases import Phase, check
from .sqlite_tx import atomic


class BlockStatus(StrEnum):
    NOT_STARTED = "NOT_STARTED"
    IN_PROGRESS = "IN_PROGRESS"
    FAILING = "FAILING"
    PASSED = "PASSED"
    PNR_DONE = "PNR_DONE"
    ESCALATED = "ESCALATED"
    PAUSED = "PAUSED"


class Artifact(StrEnum):
    """A planned block's artifact, from header stub to frozen code."""

    STUB = "Stub"
    DRAFT = "Draft"
    TESTING = "Testing"
    TESTING_ANALYSIS = "Testing_Analysis"
    PASSING = "Passing"
    FROZEN = "Frozen"


DONE = frozenset({BlockStatus.PASSED, BlockStatus.PNR_DONE})
FINISHED = DONE | {BlockStatus.ESCALATED}


class Feedback(BaseModel):
    """What went wrong with the last attempt, as the next step sees it."""

    model_config = ConfigDict(extra="forbid")

    kind: str = Field(
        description="compile | simulation | smoke | timeout | synthesis | invalid_answer | "
        "dependency"
    )
    summary: str = ""
    diagnostics: list[dict[str, Any]] = Field(default_factory=list)
    mismatch: dict[str, Any] | None = None
    explanation: str | None = None
    hypotheses: dict[str, Any] | None = None
    waves: str | None = None
    testbench: str | None = Field(None, description="The visible smoke testbench that failed")


class SmokeBench(BaseModel):
    """The Verification Engineer's visible smoke testbench: written at the start of a block,
    run before the hidden testbench; repaired at most `smoke_repairs` times, set aside (and
    the reason kept) when it cannot be trusted. The verdict stays the hidden testbench's."""

    model_config = ConfigDict(extra="forbid")

    code: str | None = None
    top: str | None = None
    path: str | None = Field(None, description="Workspace-relative file the servers run")
    version: int = 0
    repairs: int = 0
    failures: int = Field(0, description="Attempts it failed (SIM_FAIL)")
    problem: str | None = Field(None, description="What the Verification Engineer must repair")
    set_aside: str | None = Field(None, description="Why the loop goes on without it")
    resume: str = Field("write", description="Where the block goes after a testbench step")


class BlockState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    status: BlockStatus = BlockStatus.NOT_STARTED
    phase: Phase = Phase.START
    iteration: int = 0
    step_no: int = 0
    code: str | None = None
    feedback: Feedback | None = None
    signatures: list[str] = Field(default_factory=list)
    interface_sig: str | None = None
    librarian_notes: str | None = None
    synth: dict[str, Any] | None = None
    review: dict[str, Any] | None = None
    escalation: dict[str, Any] | None = None
    recheck: bool = Field(False, description="Re-verify after a dependency's interface changed")
    artifact: Artifact = Artifact.STUB
    question: str | None = Field(None, description="Asked by a role; the block waits for it")
    answers: list[dict[str, str]] = Field(default_factory=list, description="Questions answered")
    frozen_sha256: str | None = None
    smoke: SmokeBench | None = Field(None, description="None until the VE has been asked")
    rework: dict[str, Any] | None = Field(
        None, description="A dependency this block sent back for an interface change"
    )
    reworks: int = Field(0, description="Times this block was sent back by a dependent")
    timing_returns: int = Field(0, description="Times the PnR Lead sent it back on timing")
    memory: MemoryTrack | None = Field(None, description="Task memory's notes in flight")


class StepRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    block: str
    step_no: int
    kind: str
    iteration: int
    outcome: str
    started_at: str
    finished_at: str
    detail: dict[str, Any] = Field(default_factory=dict)


SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blocks (
    name TEXT PRIMARY KEY, status TEXT NOT NULL, iteration INTEGER NOT NULL,
    phase TEXT NOT NULL, state TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS steps (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, block TEXT NOT NULL, step_no INTEGER NOT NULL,
    kind TEXT NOT NULL, iteration INTEGER NOT NULL, outcome TEXT NOT NULL,
    started_at TEXT NOT NULL, finished_at TEXT NOT NULL, detail TEXT NOT NULL,
    UNIQUE (block, step_no));
CREATE TABLE IF NOT EXISTS events (
    event_id TEXT PRIMARY KEY, step_seq INTEGER NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS exchanges (
    event_id TEXT PRIMARY KEY, step_seq INTEGER NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tool_calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT, step_seq INTEGER NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS error_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT, block TEXT NOT NULL, iteration INTEGER NOT NULL,
    signature TEXT NOT NULL, message TEXT NOT NULL, at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS escalations (
    block TEXT PRIMARY KEY, created_at TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS synthesis (
    block TEXT PRIMARY KEY, body TEXT NOT NULL, at TEXT NOT NULL);
"""


class StateStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: a committed step survives a killed process (not a power cut).
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    # --- meta -------------------------------------------------------------------------
    def set_meta(self, **values: Any) -> None:
        with atomic(self.db):
            for key, value in values.items():
                self.db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    (key, json.dumps(value)),
                )

    def meta(self) -> dict[str, Any]:
        return {k: json.loads(v) for k, v in self.db.execute("SELECT key, value FROM meta")}

    # --- blocks -------------------------------------------------------------------------
    def init_blocks(self, names: list[str]) -> None:
        with atomic(self.db):
            for name in names:
                state = BlockState(name=name)
                self.db.execute(
                    "INSERT OR IGNORE INTO blocks VALUES (?, ?, ?, ?, ?, ?)",
                    (name, state.status, 0, state.phase, state.model_dump_json(), now_iso()),
                )

    def blocks(self) -> dict[str, BlockState]:
        rows = self.db.execute("SELECT name, state FROM blocks ORDER BY rowid")
        return {name: BlockState.model_validate_json(body) for name, body in rows}

    def _put_block(self, state: BlockState) -> None:
        # An update in place keeps the row's rowid, so blocks() stays in the design's order
        # whichever block's step was committed last (REPLACE would move the row to the end).
        self.db.execute(
            "INSERT INTO blocks VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET"
            " status = excluded.status, iteration = excluded.iteration,"
            " phase = excluded.phase, state = excluded.state, updated_at = excluded.updated_at",
            (
                state.name,
                state.status,
                state.iteration,
                state.phase,
                state.model_dump_json(),
                now_iso(),
            ),
        )

    def put_blocks(self, states: list[BlockState]) -> None:
        with atomic(self.db):
            for state in states:
                self._put_block(state)

    # --- one step, atomically -----------------------------------------------------------
    def commit_step(
        self,
        record: StepRecord,
        state: BlockState,
        ledger: Ledger,
        spent: tuple[int, float],
        errors: list[tuple[str, str]] = (),  # type: ignore[assignment]
        extra_states: list[BlockState] = (),  # type: ignore[assignment]
        extra_records: list[StepRecord] = (),  # type: ignore[assignment]
    ) -> int:
        with atomic(self.db):
            cursor = self.db.execute(
                "INSERT INTO steps (block, step_no, kind, iteration, outcome, started_at,"
                " finished_at, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.block,
                    record.step_no,
                    record.kind,
                    record.iteration,
                    record.outcome,
                    record.started_at,
                    record.finished_at,
                    json.dumps(record.detail),
                ),
            )
            seq = int(cursor.lastrowid or 0)
            for other in extra_records:
                # Steps another block's step caused (a dependency sent back), same transaction.
                self.db.execute(
                    "INSERT INTO steps (block, step_no, kind, iteration, outcome, started_at,"
                    " finished_at, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        other.block,
                        other.step_no,
                        other.kind,
                        other.iteration,
                        other.outcome,
                        other.started_at,
                        other.finished_at,
                        json.dumps(other.detail),
                    ),
                )
            for event in ledger.events:
                self.db.execute(
                    "INSERT INTO events VALUES (?, ?, ?)",
                    (event.event_id, seq, event.model_dump_json()),
                )
            for exchange in ledger.exchanges:
                self.db.execute(
                    "INSERT INTO exchanges VALUES (?, ?, ?)",
                    (exchange.event_id, seq, exchange.model_dump_json()),
                )
            for call in ledger.tool_calls:
                self.db.execute(
                    "INSERT INTO tool_calls (step_seq, body) VALUES (?, ?)",
                    (seq, json.dumps(call)),
                )
            for signature, message in errors:
                self.db.execute(
                    "INSERT INTO error_log (block, iteration, signature, message, at)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (state.name, state.iteration, signature, message[:2000], now_iso()),
                )
            if state.escalation is not None:
                self.db.execute(
                    "INSERT OR REPLACE INTO escalations VALUES (?, ?, ?)",
                    (state.name, now_iso(), json.dumps(state.escalation)),
                )
            if state.synth is not None:
                self.db.execute(
                    "INSERT OR REPLACE INTO synthesis VALUES (?, ?, ?)",
                    (state.name, json.dumps(state.synth), now_iso()),
                )
            self._put_block(state)
            for other in extra_states:
                self._put_block(other)
            for key, value in (("tokens_spent", spent[0]), ("cost_spent", spent[1])):
                self.db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    (key, json.dumps(value)),
                )
        return seq

    def redo(self, name: str) -> BlockState:
        """Send a block back to a fresh write (after its spec or interface changed); its
        step numbers go on, its iteration budget starts again."""
        state = self.blocks()[name]
        state.status = BlockStatus.IN_PROGRESS
        state.phase = check(state.phase, Phase.WRITE, f"redo of block {name}", ("checkpoint",))
        state.iteration = 0
        state.feedback = None
        state.signatures = []
        state.escalation = None
        state.recheck = False
        state.question = None
        state.frozen_sha256 = None
        state.smoke = None  # a changed spec or interface needs a new smoke testbench
        record = StepRecord(
            block=name,
            step_no=state.step_no,
            kind="redo",
            iteration=0,
            outcome="requested",
            started_at=now_iso(),
            finished_at=now_iso(),
        )
        state.step_no += 1
        meta = self.meta()
        spent = (int(meta.get("tokens_spent", 0)), float(meta.get("cost_spent", 0.0)))
        self.commit_step(record, state, Ledger(), spent)
        with atomic(self.db):
            self.db.execute("DELETE FROM escalations WHERE block = ?", (name,))
        return state

    def answer(self, name: str, text: str) -> BlockState:
        """The engineer's answer to a paused block's question; the block writes again."""
        state = self.blocks()[name]
        if state.status != BlockStatus.PAUSED or not state.question:
            raise ValueError(f"block {name} is not waiting for an answer")
        state.answers.append({"question": state.question, "answer": text})
        state.question = None
        state.status = BlockStatus.IN_PROGRESS
        state.phase = check(state.phase, Phase.WRITE, f"answer to block {name}", ("checkpoint",))
        record = StepRecord(
            block=name,
            step_no=state.step_no,
            kind="answer",
            iteration=state.iteration,
            outcome="answered",
            started_at=now_iso(),
            finished_at=now_iso(),
            detail={"question": state.answers[-1]["question"], "answer": text[:2000]},
        )
        state.step_no += 1
        meta = self.meta()
        spent = (int(meta.get("tokens_spent", 0)), float(meta.get("cost_spent", 0.0)))
        self.commit_step(record, state, Ledger(), spent)
        return state

    # --- reading back ---------------------------------------------------------------------
    def steps(self, block: str | None = None) -> list[tuple[int, StepRecord]]:
        query = "SELECT seq, block, step_no, kind, iteration, outcome, started_at, finished_at,"
        query += " detail FROM steps"
        args: tuple[Any, ...] = ()
        if block is not None:
            query += " WHERE block = ?"
            args = (block,)
        rows = self.db.execute(query + " ORDER BY seq", args)
        return [
            (
                row[0],
                StepRecord(
                    block=row[1],
                    step_no=row[2],
                    kind=row[3],
                    iteration=row[4],
                    outcome=row[5],
                    started_at=row[6],
                    finished_at=row[7],
                    detail=json.loads(row[8]),
                ),
            )
            for row in rows
        ]

    def events(self) -> list[tuple[int, CostEvent]]:
        rows = self.db.execute("SELECT step_seq, body FROM events ORDER BY rowid")
        return [(seq, CostEvent.model_validate_json(body)) for seq, body in rows]

    def exchanges(self) -> list[tuple[int, Exchange]]:
        rows = self.db.execute("SELECT step_seq, body FROM exchanges ORDER BY rowid")
        return [(seq, Exchange.model_validate_json(body)) for seq, body in rows]

    def tool_calls(self) -> list[tuple[int, dict[str, Any]]]:
        rows = self.db.execute("SELECT step_seq, body FROM tool_calls ORDER BY id")
        return [(seq, json.loads(body)) for seq, body in rows]

    def error_log(self) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT block, iteration, signature, message, at FROM error_log ORDER BY id"
        )
        keys = ("block", "iteration", "signature", "message", "at")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def escalations(self) -> dict[str, dict[str, Any]]:
        rows = self.db.execute("SELECT block, body FROM escalations ORDER BY created_at")
        return {block: json.loads(body) for block, body in rows}

    def synthesis(self) -> dict[str, dict[str, Any]]:
        return {
            b: json.loads(body) for b, body in self.db.execute("SELECT block, body FROM synthesis")
        }
