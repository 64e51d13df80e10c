"""The design loop's one state machine: every phase a block can be in, and every transition
between them, named and owned.

A block's step runs the handler of its phase; the handler says where the block goes next. The
driver (`BlockLoop.step`), the orchestrator and the checkpoint's own edits (`redo`, `answer`)
move a block only along an edge of `TRANSITIONS`, through `check`: a move the table does not
hold is a bug in the host, raised as `IllegalTransition` instead of a block lost in a phase
nothing handles. ARCHITECTURE.md's state table is generated from here (`markdown()`), and a
test fails when the two differ."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple


class Phase(StrEnum):
    START = "start"
    LIBRARIAN = "librarian"
    TESTBENCH = "testbench"
    WRITE = "write"
    CHECK = "check"
    SMOKE = "smoke"
    SIMULATE = "simulate"
    DISTILL = "distill"
    REFLECT = "reflect"
    DEBUG = "debug"
    REVIEW = "review"
    SYNTH = "synth"
    FREEZE = "freeze"
    REMEMBER = "remember"
    ESCALATE = "escalate"
    DONE = "done"


P = Phase
TERMINAL = frozenset({P.DONE})
# The phases whose step asks a model: with the budget spent they escalate instead.
MODEL_PHASES = frozenset({P.LIBRARIAN, P.TESTBENCH, P.WRITE, P.REFLECT, P.DEBUG})
# What each phase is for, in the state table.
PURPOSE: dict[Phase, str] = {
    P.START: "not yet stepped",
    P.LIBRARIAN: "the Spec Librarian reads the block's 3GPP clauses from the spec store",
    P.TESTBENCH: "the Verification Engineer writes (or repairs) its smoke testbench",
    P.WRITE: "the RTL Engineer (Integrator) writes or fixes the code; may ask a question",
    P.CHECK: "Verilator lint and Icarus compile",
    P.SMOKE: "the smoke testbench runs against the code",
    P.SIMULATE: "the hidden testbench judges (the server's verdict)",
    P.DISTILL: "explain_mismatch on the failing run's waveform",
    P.REFLECT: "the Reflection/Debug engineer's hypotheses and blame",
    P.DEBUG: "the Reflection/Debug engineer rewrites the code",
    P.REVIEW: "the Judge's advisory review of passing code",
    P.SYNTH: "synthesis and timing (the PnR Lead on a missed clock)",
    P.FREEZE: "a passing planned block's code is frozen",
    P.REMEMBER: "task memory writes its notes on the verdict, then the loop goes on",
    P.ESCALATE: "the Orchestrator's escalation summary",
    P.DONE: "passed or escalated (terminal)",
}


class Edge(NamedTuple):
    source: Phase
    target: Phase
    name: str
    by: str  # who takes it: the step's handler, the driver, the orchestrator, the checkpoint


def _edges(sources: Iterable[Phase], targets: Iterable[Phase], name: str, by: str) -> list[Edge]:
    return [Edge(s, t, name, by) for s in sources for t in targets]


NOT_DONE = [p for p in Phase if p not in TERMINAL]
# A verdict in (a failed attempt, or a pass with notes in flight): with task memory the
# block is held for `remember`, which then sends it where the verdict did.
HELD = (P.WRITE, P.DEBUG, P.CHECK, P.SMOKE, P.SIMULATE, P.SYNTH)

TRANSITIONS: tuple[Edge, ...] = tuple(
    [
        Edge(P.START, P.LIBRARIAN, "begin: the block cites 3GPP clauses", "driver"),
        Edge(P.START, P.WRITE, "begin", "driver"),
        Edge(
            P.START,
            P.DONE,
            "provided: the staged design brings it, not designed here",
            "checkpoint",
        ),
        *_edges(MODEL_PHASES, [P.ESCALATE], "budget exhausted", "driver"),
        Edge(P.LIBRARIAN, P.WRITE, "clauses read (or skipped)", "step"),
        Edge(P.WRITE, P.TESTBENCH, "no smoke testbench yet: the VE writes it first", "step"),
        *_edges([P.TESTBENCH], [P.WRITE, P.SMOKE], "testbench written: back where it was", "step"),
        Edge(P.TESTBENCH, P.TESTBENCH, "testbench broken: repair", "step"),
        *_edges([P.TESTBENCH], [P.WRITE, P.SIMULATE], "testbench set aside", "step"),
        *_edges([P.WRITE, P.DEBUG], [P.CHECK], "code submitted", "step"),
        *_edges([P.WRITE, P.DEBUG], [P.WRITE], "answer off the schema: write again", "step"),
        Edge(P.WRITE, P.WRITE, "paused: a question for the engineer", "step"),
        Edge(P.DEBUG, P.DEBUG, "paused: a question for the engineer", "step"),
        *_edges([P.WRITE, P.DEBUG], [P.ESCALATE], "model unavailable", "step"),
        *_edges([P.WRITE, P.DEBUG], [P.ESCALATE], "attempt failed: limit or stagnation", "step"),
        *_edges([P.CHECK], [P.SMOKE, P.SIMULATE], "lint and compile clean", "step"),
        Edge(P.CHECK, P.WRITE, "lint or compile errors: fix", "step"),
        Edge(P.CHECK, P.ESCALATE, "attempt failed: limit or stagnation", "step"),
        Edge(P.SMOKE, P.SIMULATE, "smoke PASS (or set aside)", "step"),
        Edge(P.SMOKE, P.DISTILL, "smoke SIM_FAIL: explain it", "step"),
        Edge(P.SMOKE, P.TESTBENCH, "smoke gave no verdict: repair the bench", "step"),
        Edge(P.SMOKE, P.ESCALATE, "attempt failed: limit or stagnation", "step"),
        *_edges([P.SIMULATE], [P.REVIEW, P.SYNTH], "PASS", "step"),
        Edge(P.SIMULATE, P.DISTILL, "SIM_FAIL: explain it", "step"),
        Edge(P.SIMULATE, P.WRITE, "COMPILE_FAIL: fix", "step"),
        Edge(P.SIMULATE, P.REFLECT, "TIMEOUT: reflect", "step"),
        Edge(P.SIMULATE, P.ESCALATE, "failed past the limit, or no verdict", "step"),
        Edge(P.DISTILL, P.REFLECT, "explained (or nothing to explain)", "step"),
        Edge(P.REFLECT, P.DEBUG, "hypotheses", "step"),
        Edge(P.REFLECT, P.TESTBENCH, "the smoke testbench blamed: repair", "step"),
        Edge(P.REFLECT, P.SIMULATE, "the smoke testbench blamed past its repairs", "step"),
        Edge(P.REVIEW, P.SYNTH, "reviewed", "step"),
        *_edges([P.SYNTH], [P.FREEZE, P.DONE], "synthesized (or not run)", "step"),
        Edge(P.SYNTH, P.WRITE, "does not synthesize, or misses its clock: fix", "step"),
        Edge(P.SYNTH, P.ESCALATE, "attempt failed: limit or stagnation", "step"),
        Edge(P.FREEZE, P.DONE, "frozen: passed", "step"),
        *_edges(HELD, [P.REMEMBER], "remember: task memory notes the verdict first", "step"),
        *_edges(
            [P.REMEMBER],
            [P.WRITE, P.DISTILL, P.REFLECT, P.REVIEW, P.SYNTH, P.ESCALATE],
            "notes written: where the verdict sent it",
            "step",
        ),
        Edge(P.ESCALATE, P.DONE, "escalated", "step"),
        Edge(P.DONE, P.WRITE, "rework: a dependent needs an interface change", "orchestrator"),
        Edge(P.DONE, P.CHECK, "regression: a dependency's interface changed", "orchestrator"),
        *_edges(NOT_DONE, [P.DEBUG], "released: the dependency's rework passed", "orchestrator"),
        *_edges(NOT_DONE, [P.DONE], "blocked: a dependency escalated", "orchestrator"),
        *_edges(Phase, [P.WRITE], "redo: the spec or interface changed", "checkpoint"),
        *_edges([P.WRITE, P.DEBUG], [P.WRITE], "answered: the engineer's answer", "checkpoint"),
    ]
)
# Who may take an edge: a step (its handler, or the driver around it) never takes the
# orchestrator's or the checkpoint's, and the other way round.
LOOP = ("driver", "step")


def named(by: tuple[str, ...]) -> dict[tuple[Phase, Phase], Edge]:
    """Each move `by` may take, with its edge (the first the table lists for it)."""
    edges: dict[tuple[Phase, Phase], Edge] = {}
    for edge in TRANSITIONS:
        if edge.by in by:
            edges.setdefault((edge.source, edge.target), edge)
    return edges


NAMED = {by: named(by) for by in (LOOP, ("orchestrator",), ("checkpoint",))}


class IllegalTransition(RuntimeError):
    """A move the state table does not hold."""


def transition(source: str, target: str, where: str, by: tuple[str, ...] = LOOP) -> Edge:
    """The named edge of the table from `source` to `target` that `by` may take (or
    IllegalTransition)."""
    try:
        move = (Phase(source), Phase(target))
    except ValueError as exc:
        raise IllegalTransition(f"{where}: unknown phase ({exc})") from None
    edge = (NAMED[by] if by in NAMED else named(by)).get(move)
    if edge is None:
        raise IllegalTransition(
            f"{where}: no transition {source} → {target} for {'/'.join(by)} in host/phases.py"
        )
    return edge


def check(source: str, target: str, where: str, by: tuple[str, ...] = LOOP) -> Phase:
    """The target phase, once the move from `source` is known to be an edge of the table
    that `by` may take."""
    return transition(source, target, where, by).target


@dataclass(frozen=True)
class Step:
    """What a step's handler returns: the phase the block goes to next (the driver,
    `BlockLoop.step`, alone moves it there, along an edge of the table) and, unless the step
    had nothing to do, the outcome its record keeps."""

    next: Phase
    outcome: str | None = None  # None: nothing done, no record; the driver runs the next step
    detail: dict[str, Any] = field(default_factory=dict)
    errors: list[tuple[str, str]] = field(default_factory=list)


def reachable(start: Phase = P.START) -> set[Phase]:
    seen = {start}
    frontier = [start]
    while frontier:
        here = frontier.pop()
        for edge in TRANSITIONS:
            if edge.source == here and edge.target not in seen:
                seen.add(edge.target)
                frontier.append(edge.target)
    return seen


def markdown() -> str:
    """The state table as ARCHITECTURE.md shows it: each phase, what it does, and its exits
    with their names (wildcard edges of the orchestrator and the checkpoint listed once)."""
    wide = {e.name for e in TRANSITIONS if e.by in ("orchestrator", "checkpoint")}
    rows = ["| phase | what happens | goes to (why) |", "| --- | --- | --- |"]
    for phase in Phase:
        exits: dict[str, list[str]] = {}
        for edge in TRANSITIONS:
            if edge.source == phase and edge.name not in wide:
                exits.setdefault(edge.name, []).append(str(edge.target))
        text = "; ".join(f"{', '.join(ts)} ({name})" for name, ts in exits.items()) or "—"
        rows.append(f"| `{phase}` | {PURPOSE[phase]} | {text} |")
    rows.append("")
    rows.append("Taken from outside a step:")
    rows.append("")
    seen: set[str] = set()
    for edge in TRANSITIONS:
        if edge.name in wide and edge.name not in seen:
            seen.add(edge.name)
            sources = sorted({str(e.source) for e in TRANSITIONS if e.name == edge.name})
            if len(sources) == len(Phase):
                where = "any phase"
            elif set(sources) == {str(p) for p in NOT_DONE}:
                where = "any phase but done"
            else:
                where = ", ".join(sources)
            rows.append(f"- {where} → `{edge.target}`: {edge.name} ({edge.by})")
    return "\n".join(rows) + "\n"


BEGIN = "<!-- phases:begin (generated by python -m silicon_agent.host.phases --write) -->"
END = "<!-- phases:end -->"


def architecture_section(text: str) -> tuple[int, int]:
    """Where the generated table sits in ARCHITECTURE.md's text."""
    return text.index(BEGIN), text.index(END) + len(END)


def main(argv: list[str] | None = None) -> int:
    import argparse
    from pathlib import Path

    ap = argparse.ArgumentParser(description="The design loop's state table.")
    ap.add_argument("--write", type=Path, nargs="?", const=Path("ARCHITECTURE.md"))
    args = ap.parse_args(argv)
    table = markdown()
    if args.write is None:
        print(table, end="")
        return 0
    text = args.write.read_text()
    start, end = architecture_section(text)
    args.write.write_text(text[:start] + f"{BEGIN}\n{table}{END}" + text[end:])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
