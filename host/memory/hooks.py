"""The design loop's side of task memory: a verdict is held for a `remember` step, where the
Reflection role writes the note on the previous failure and the fix after it (its outcome
the verdict's, never a model's), the notes offered to that attempt are credited, and a passed
block's interface joins the design context; the Debug and RTL prompts get the nearest notes,
retrieved once per attempt."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Protocol

from ..feedback import module_header
from ..llm.gateway import Gateway, Ledger
from ..llm.types import Message, ProviderError, StructuredOutputError
from ..phases import Phase, Step
from ..roles.prompts import role_prompt
from ..roles.schemas import Reflection
from ..runfolder import RunFolder
from .memory import TaskMemory, fix_diff, offered_section
from .notes import Failure, MemoryTrack, NoteDraft, Outcome, Signature

if TYPE_CHECKING:
    from silicon_agent.suite.design import Block

    from ..state import BlockState

RANK = {"invalid_answer": 0, "compile": 1, "timeout": 2, "simulation": 2, "smoke": 2}
SIM_KINDS = {"simulation", "smoke"}


def judge(before: Failure, after: Failure | None) -> Outcome:
    """What the verdict after a fix says of it."""
    if after is None:
        return Outcome.FIXED
    if after.rank < before.rank:
        return Outcome.MADE_WORSE
    if (
        after.rank == before.rank
        and before.mismatches is not None
        and after.mismatches is not None
        and after.mismatches > before.mismatches
    ):
        return Outcome.MADE_WORSE
    return Outcome.NOT_FIXED


def note_prompt(block: str, failure: Failure, diff: str, outcome: Outcome) -> str:
    return "\n".join(
        [
            f"Block: {block}",
            "Step: remember",
            f"Failure at attempt {failure.iteration}: {failure.signature.text()}",
            f"Result: {failure.summary}",
            f"Hypothesis held: {failure.hypothesis or '(none recorded)'}",
            "The fix tried (changed lines of the design):",
            f"```diff\n{diff or '(no change)'}\n```",
            f"Outcome of that fix: {outcome.value.replace('_', ' ')}",
            "",
            "Write a memory note for later attempts and other blocks: the root cause in one "
            "sentence, what the fix changed in words, and up to 8 keywords (failure mode, "
            "signal, construct). Quote no testbench, no expected values.",
        ]
    )


class MemoryTeam(Protocol):
    """What the hooks use of the loop's team: its task memory, run folder and gateway."""

    memory: TaskMemory | None
    folder: RunFolder
    gateway: Gateway


class MemoryHooks:
    team: MemoryTeam
    block: Block

    def failure_of(self, state: BlockState, mismatches: int | None) -> Failure:
        feedback = state.feedback
        kind = feedback.kind if feedback else "unknown"
        diagnostics = [d for d in (feedback.diagnostics if feedback else [])]
        first = next((d for d in diagnostics if d.get("severity") == "error"), None) or (
            diagnostics[0] if diagnostics else {}
        )
        mismatch = (feedback.mismatch if feedback else None) or {}
        category = "SIM_MISMATCH" if kind in SIM_KINDS else str(first.get("category") or kind)
        signature = Signature(
            category=category.upper()[:60],
            tool_code=str(first.get("code") or kind)[:80],
            signal=str(mismatch.get("signal") or "")[:120],
            block_kind=self.block.kind,
            clause=", ".join(self.block.refs_3gpp)[:120],
        )
        return Failure(
            iteration=state.iteration,
            signature=signature,
            summary=(feedback.summary if feedback else "")[:600],
            mismatches=mismatches,
            rank=RANK.get(kind, 3),
            code=state.code or "",
        )

    def hold_for_memory(
        self, state: BlockState, target: Phase, passed: bool, mismatches: int | None = None
    ) -> Phase:
        """A verdict is in, sending the block to `target`: the phase it goes to now, `remember`
        (which then sends it to `target`) while task memory has notes to write."""
        if self.team.memory is None:
            return target
        track = state.memory or MemoryTrack()
        if passed and track.failure is None and not track.offered:
            # Nothing in flight: only the design context.
            self.team.memory.passed(
                self.block.name, module_header(state.code or "", self.block.top), track.conventions
            )
            return target
        track.resume = target
        track.passed = passed
        track.verdict = None if passed else self.failure_of(state, mismatches)
        state.memory = track
        return Phase.REMEMBER

    def keep_conventions(self, state: BlockState, notes: str) -> None:
        if self.team.memory is not None:
            state.memory = state.memory or MemoryTrack()
            state.memory.conventions = notes[:300]

    def keep_hypothesis(self, state: BlockState, answer: Reflection) -> None:
        track = state.memory
        if self.team.memory is not None and track is not None and track.failure is not None:
            cause = answer.hypotheses[0].cause
            track.failure.hypothesis = f"{cause}; plan: {answer.fix_plan}"[:400]

    async def memory_sections(
        self, state: BlockState, ledger: Ledger, recall: bool
    ) -> tuple[str, dict[str, Any]]:
        """The design context, and with a failure the nearest notes (one embedding per
        attempt; the ids offered go to the step record and the attempt's folder)."""
        memory = self.team.memory
        if memory is None:
            return "", {}
        parts = [memory.design_context(self.block.name)]
        detail: dict[str, Any] = {}
        track = state.memory
        if recall and track is not None and track.failure is not None:
            if track.recalled != state.iteration:
                failure = track.failure
                query = "\n".join([failure.signature.text(), failure.summary, failure.hypothesis])
                found = memory.recall(
                    query, failure.signature, ledger, f"{self.block.name}/{state.step_no}"
                )
                track.offered = [note.id for _, note in found]
                track.offered_text = offered_section(found)
                track.recalled = state.iteration
                self.team.folder.write_attempt_file(
                    self.block.name,
                    state.iteration,
                    "memory_offered.json",
                    json.dumps(
                        [
                            {
                                "id": n.id,
                                "score": score,
                                "outcome": n.outcome.value,
                                "block": n.block,
                                "run": n.run,
                            }
                            for score, n in found
                        ],
                        indent=1,
                    ),
                )
            parts.append(track.offered_text)
            detail["memory_offered"] = list(track.offered)
        return "\n\n".join(p for p in parts if p), detail

    async def note_draft(
        self, failure: Failure, diff: str, outcome: Outcome, ledger: Ledger, tag: str
    ) -> NoteDraft:
        """The Reflection role's note; the host's own words when it gives none."""
        try:
            return await self.team.gateway.structured(
                "reflection_debug",
                [
                    Message(role="system", content=role_prompt("reflection_debug")),
                    Message(
                        role="user", content=note_prompt(self.block.name, failure, diff, outcome)
                    ),
                ],
                NoteDraft,
                correlation_id=tag,
                ledger=ledger,
            )
        except (StructuredOutputError, ProviderError):
            changed = len(diff.splitlines())
            return NoteDraft(
                hypothesis=(failure.hypothesis or failure.summary or "not recorded")[:400],
                fix_summary=f"{changed} changed line(s)" if diff else "no fix tried",
            )

    async def do_remember(self, state: BlockState, ledger: Ledger) -> Step:
        """The notes on the verdict held; then the block goes where the verdict sent it."""
        memory = self.team.memory
        track = state.memory
        assert memory is not None and track is not None
        tag = f"{self.block.name}/{state.step_no}"
        by = f"{memory.run}/{self.block.name}/{state.iteration}"
        detail: dict[str, Any] = {"passed": track.passed}
        if track.offered:
            memory.credit(track.offered, track.passed, by)
            detail["credited"] = list(track.offered)
            track.offered = []
        written: list[str] = []
        previous, current = track.failure, track.verdict
        if previous is not None:
            outcome = judge(previous, current)
            diff = fix_diff(previous.code, state.code or "")
            draft = await self.note_draft(previous, diff, outcome, ledger, tag)
            note = memory.write(
                self.block.name,
                previous.iteration,
                previous.signature,
                draft,
                outcome,
                diff,
                ledger=ledger,
                correlation=tag,
            )
            written.append(note.id if note else "refused")
            detail["outcome"] = outcome.value
        if current is not None and track.resume == "escalate":
            draft = await self.note_draft(current, "", Outcome.NOT_FIXED, ledger, tag)
            note = memory.write(
                self.block.name,
                current.iteration,
                current.signature,
                draft,
                Outcome.NOT_FIXED,
                ledger=ledger,
                correlation=tag,
            )
            written.append(note.id if note else "refused")
        detail["notes"] = written
        track.failure, track.verdict = current, None
        if track.passed:
            header = module_header(state.code or "", self.block.top)
            detail["context"] = memory.passed(self.block.name, header, track.conventions)
        outcome_word = "refused" if "refused" in written else "noted" if written else "held"
        return Step(Phase(track.resume), outcome_word, detail)
