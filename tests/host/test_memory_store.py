"""The memory store on its own: real SQLite, ChromaDB and the packaged MiniLM."""

from __future__ import annotations

import logging
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from silicon_agent.host.config import MemoryConfig
from silicon_agent.host.memory.embedding import PackagedMiniLM
from silicon_agent.host.memory.guard import AnswerKeyGuard
from silicon_agent.host.memory.hooks import judge
from silicon_agent.host.memory.memory import TaskMemory, offered_section, open_for_run
from silicon_agent.host.memory.notes import Failure, NoteDraft, Outcome, Signature
from silicon_agent.host.memory.store import MemoryStore
from silicon_agent.suite.design import load_design

from .scenario import TB_MARKER, VEC_MARKER, counter_tb, gray_vectors

REPO = Path(__file__).resolve().parents[2]
SIG = Signature(category="SIM_MISMATCH", tool_code="simulation", signal="count_o")


@pytest.fixture
def guarded(tmp_path: Path) -> TaskMemory:
    (tmp_path / "verif").mkdir()
    (tmp_path / "verif" / "tb_counter.sv").write_text(counter_tb("counter"))
    (tmp_path / "verif" / "gray_vectors.hex").write_text(gray_vectors() + "a5a5a5a5\n0badc0de\n")
    (tmp_path / "ref.sv").write_text("assign sum_o = (acc_q >>> 3) + bias_lut[idx_q];\n")
    guard = AnswerKeyGuard(
        [
            (tmp_path / "verif" / "tb_counter.sv", "testbench"),
            (tmp_path / "verif" / "gray_vectors.hex", "vectors"),
            (tmp_path / "ref.sv", "reference RTL"),
        ],
        names=["verif/tb_counter.sv"],
        visible="module counter (input logic clk);",
    )
    memory = TaskMemory("r1", tmp_path / "mem", None, guard, 3, PackagedMiniLM())
    yield memory
    memory.close()


def draft(hypothesis: str, fix: str) -> NoteDraft:
    return NoteDraft(hypothesis=hypothesis, fix_summary=fix, keywords=["increment"])


def test_answer_key_is_refused_and_logged(
    guarded: TaskMemory, caplog: pytest.LogCaptureFixture
) -> None:
    quotes = {
        "testbench": "if (!rst_n) model_r <= '0; else if (en) model_r <= model_r + 1'b1;",
        "marker": f"the bench says {TB_MARKER}: self-checking testbench with a reference model.",
        "vectors": "expected rows 0badc0de and more",
        "reference": "use assign sum_o = (acc_q >>> 3) + bias_lut[idx_q]; as the fix",
        "path": "as in verif/tb_counter.sv",
    }
    with caplog.at_level(logging.WARNING):
        for what, text in quotes.items():
            assert guarded.write("b", 1, SIG, draft(text, "x"), Outcome.FIXED) is None, what
    refusals = guarded.own.refusals()
    assert len(refusals) == len(quotes) and all(r["reasons"] for r in refusals)
    assert "refused" in caplog.text
    stored = guarded.own.dump_text()
    assert guarded.own.notes() == [] and "0badc0de" not in stored and TB_MARKER not in stored
    assert VEC_MARKER not in stored
    # The designer's own words and the visible interface pass.
    ok = guarded.write(
        "b", 1, SIG, draft("module counter (input logic clk); increments twice", "x"), Outcome.FIXED
    )
    assert ok is not None and guarded.own.get(ok.id) is not None


def test_forget_removes_note_and_vector(guarded: TaskMemory) -> None:
    note = guarded.write("b", 1, SIG, draft("adds two at five", "add one"), Outcome.FIXED)
    other = guarded.write("c", 1, SIG, draft("adds two at six", "add one"), Outcome.FIXED)
    assert note is not None and other is not None
    assert guarded.own.has_vector(note.id)
    assert guarded.forget(note.id)
    assert guarded.find(note.id) is None and not guarded.own.has_vector(note.id)
    found = guarded.recall("adds two at five", SIG)
    assert [n.id for _, n in found] == [other.id]
    # Links to the forgotten note go with it.
    assert all(link.target != note.id for link in guarded.own.get(other.id).links)
    assert not guarded.forget(note.id)


def test_guard_of_a_registry_run_knows_the_reference_rtl(tmp_path: Path) -> None:
    loaded = load_design(REPO / "hdl" / "blocks.yaml")
    memory = open_for_run(
        MemoryConfig(enabled=True), tmp_path / "run", loaded, REPO, None, PackagedMiniLM()
    )
    assert memory is not None
    try:
        reference = (REPO / "hdl" / "rtl" / "crc_checker.sv").read_text().splitlines()
        line = next(x for x in reference if "crc_r[CRC_W-1]" in x)
        assert memory.guard.reasons(f"try {line}")
        header = loaded.design.block("crc_checker").interface.splitlines()[0]
        assert not memory.guard.reasons(header)
    finally:
        memory.close()


def test_made_worse_is_recorded_and_offered(guarded: TaskMemory) -> None:
    before = Failure(iteration=1, signature=SIG, mismatches=3, rank=2)
    worse = Failure(iteration=2, signature=SIG, mismatches=40, rank=2)
    broken = Failure(iteration=2, signature=SIG, rank=1)
    assert judge(before, worse) == Outcome.MADE_WORSE
    assert judge(before, broken) == Outcome.MADE_WORSE
    assert judge(before, before) == Outcome.NOT_FIXED
    assert judge(before, None) == Outcome.FIXED
    guarded.write(
        "a",
        1,
        SIG,
        draft("count wraps early", "widened the compare to nine bits"),
        judge(before, worse),
    )
    # A remember step repeated after a crash rewrites the same note.
    again = guarded.write(
        "a", 1, SIG, draft("count wraps early", "widened the compare"), Outcome.MADE_WORSE
    )
    assert again is not None and len(guarded.own.notes()) == 1
    found = guarded.recall("SIM_MISMATCH count_o count wraps early", SIG)
    assert found and found[0][1].outcome == Outcome.MADE_WORSE
    text = offered_section(found)
    assert "1 note(s) offered" in text and "outcome: MADE WORSE" in text


WRITER = """
import sys
from pathlib import Path
from silicon_agent.host.config import MemoryConfig
from silicon_agent.suite.design import load_design
from silicon_agent.host.memory.embedding import PackagedMiniLM
from silicon_agent.host.memory.notes import Note, Signature
from silicon_agent.host.memory.store import MemoryStore

class Slow(PackagedMiniLM):
    # Widens the window between a note's commit and its vector, where the kill should land.
    def embed(self, texts):
        import time
        time.sleep(0.3)
        return super().embed(texts)

store = MemoryStore(Path(sys.argv[1]), Slow())
start, count = int(sys.argv[2]), int(sys.argv[3])
for i in range(start, start + count):
    sig = Signature(category="SIM_MISMATCH", signal=f"sig_{i}")
    store.add(Note(id=f"n{i:04d}", run="r", block="b", iteration=i, signature=sig,
                   hypothesis=f"hypothesis number {i}", fix_summary=f"fix {i}"))
print("done", flush=True)
"""


def consistent(folder: Path) -> tuple[set[str], set[str]]:
    store = MemoryStore(folder, PackagedMiniLM())  # opening mends
    try:
        rows = dict(store.db.execute("SELECT id, embedded FROM notes").fetchall())
        vectors = set(store.vectors.get(include=[])["ids"])
        assert all(rows.values()), "a note without its vector after mending"
        return set(rows), vectors
    finally:
        store.close()


@pytest.mark.slow
def test_kill_during_note_write_keeps_store_consistent(tmp_path: Path) -> None:
    folder = tmp_path / "mem"
    cwd = Path(__file__).resolve().parents[2]
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(folder), "0", "400"],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(cwd)},
    )
    db = folder / "notes.sqlite"
    deadline = time.monotonic() + 120
    written = 0
    while written < 8 and time.monotonic() < deadline:
        assert process.poll() is None, "the writer finished before it was killed"
        try:
            with sqlite3.connect(db, timeout=5) as conn:
                written = conn.execute("SELECT COUNT(*) FROM notes").fetchone()[0]
        except sqlite3.Error:
            written = 0
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(10)
    with sqlite3.connect(db, timeout=5) as conn:
        pending = conn.execute("SELECT COUNT(*) FROM notes WHERE embedded = 0").fetchone()[0]
    assert pending >= 1, "the kill missed the window between a note and its vector"
    notes, vectors = consistent(folder)
    assert notes == vectors and len(notes) >= 8
    # Resume: writing goes on in the same store.
    again = subprocess.run(
        [sys.executable, "-c", WRITER, str(folder), "1000", "3"],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(cwd)},
        timeout=300,
    )
    assert again.returncode == 0 and "done" in again.stdout, again.stderr[-2000:]
    notes2, vectors2 = consistent(folder)
    assert notes2 == vectors2 == notes | {"n1000", "n1001", "n1002"}
