"""One block's loop, one step at a time: smoke testbench (Verification Engineer) → write →
lint+compile → smoke run → simulate against the hidden testbench → distill (explain_mismatch)
→ reflect → debug → … → synthesize, or escalate. Each call of `BlockLoop.step` runs the step of
the block's phase (host/steps/), moves the block where its `Step` says along the state table
(host/phases.py) and returns the new state; the caller commits."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from .llm.gateway import Ledger, now_iso
from .phases import MODEL_PHASES, IllegalTransition, Phase, Step, check
from .state import Artifact, BlockState, BlockStatus, StepRecord
from .steps.check import CheckStep
from .steps.finish import FinishSteps
from .steps.judge import JudgeSteps
from .steps.librarian import LibrarianStep
from .steps.write import WriteSteps

Handler = Callable[["BlockState", Ledger], Awaitable[Step]]
ARTIFACT_OF_PHASE = {
    "check": Artifact.DRAFT,
    "smoke": Artifact.TESTING,
    "simulate": Artifact.TESTING,
    "distill": Artifact.TESTING_ANALYSIS,
    "reflect": Artifact.TESTING_ANALYSIS,
    "debug": Artifact.TESTING_ANALYSIS,
    "review": Artifact.PASSING,
    "synth": Artifact.PASSING,
    "freeze": Artifact.PASSING,
}


def artifact_after(state: BlockState) -> Artifact:
    if state.status == BlockStatus.PASSED:
        return Artifact.FROZEN if state.frozen_sha256 else Artifact.PASSING
    if state.phase == "write":
        return Artifact.DRAFT if state.code else Artifact.STUB
    return ARTIFACT_OF_PHASE.get(state.phase, state.artifact)


@dataclass
class StepOutput:
    state: BlockState
    record: StepRecord
    ledger: Ledger
    errors: list[tuple[str, str]] = field(default_factory=list)


class BlockLoop(WriteSteps, LibrarianStep, CheckStep, JudgeSteps, FinishSteps):
    """One block's loop: each step runs the handler of the block's phase (host/steps/) and
    applies the `Step` it returns along the state table (host/phases.py)."""

    # --- the driver ---------------------------------------------------------------------
    def handlers(self) -> dict[Phase, Handler]:
        """The step each phase runs (host/phases.py holds where each may go next)."""
        return {
            Phase.LIBRARIAN: self.do_librarian,
            Phase.TESTBENCH: self.do_testbench,
            Phase.WRITE: self.do_write,
            Phase.CHECK: self.do_check,
            Phase.SMOKE: self.do_smoke,
            Phase.SIMULATE: self.do_simulate,
            Phase.DISTILL: self.do_distill,
            Phase.REFLECT: self.do_reflect,
            Phase.DEBUG: self.do_debug,
            Phase.REVIEW: self.do_review,
            Phase.SYNTH: self.do_synth,
            Phase.FREEZE: self.do_freeze,
            Phase.REMEMBER: self.do_remember,
            Phase.ESCALATE: self.do_escalate,
        }

    def move(self, state: BlockState, target: Phase) -> None:
        """The block to `target` along an edge of the state table (or IllegalTransition): the
        one place a step moves a block."""
        where = f"block {self.block.name}, step {state.step_no}"
        state.phase = check(state.phase, target, where)

    async def step(self, state: BlockState) -> StepOutput:
        state = state.model_copy(deep=True)
        if state.phase == Phase.START:
            state.status = BlockStatus.IN_PROGRESS
            self.move(state, Phase.LIBRARIAN if self.block.refs_3gpp else Phase.WRITE)
        handlers = self.handlers()
        # Steps that have nothing to do (a server that is absent) hand on without a record.
        while True:
            if state.phase in MODEL_PHASES and self.team.gateway.budget_left() <= 0:
                self.move(state, Phase.ESCALATE)
                state.escalation = {"reason": "budget exhausted"}
            kind = Phase(state.phase)
            if kind not in handlers:
                raise IllegalTransition(f"block {self.block.name} is {kind}: no step to run")
            ledger = Ledger()
            started = now_iso()
            clock = time.monotonic()
            result = await handlers[kind](state, ledger)
            # Where the handler sends the block: an edge of the table from where it was.
            self.move(state, result.next)
            if result.outcome is None:
                continue
            outcome, detail, errors = result.outcome, result.detail, list(result.errors)
            detail["wall_s"] = round(time.monotonic() - clock, 4)
            state.artifact = artifact_after(state)
            if self.team.planned:
                detail["artifact"] = state.artifact.value
            detail["llm_s"] = round(sum(e.latency_s for e in ledger.events), 4)
            record = StepRecord(
                block=self.block.name,
                step_no=state.step_no,
                kind=kind,
                iteration=state.iteration,
                outcome=outcome,
                started_at=started,
                finished_at=now_iso(),
                detail=detail,
            )
            state.step_no += 1
            return StepOutput(state=state, record=record, ledger=ledger, errors=errors)
