"""What every step of a block's loop shares: the team, the block and its limits, how a failed
attempt decides between retry and escalation, and whether the smoke testbench may judge."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from silicon_agent.suite.design import Block

from ..llm.gateway import Ledger, ToolExecutor
from ..llm.types import Message, ToolSpec
from ..memory.hooks import MemoryHooks
from ..phases import Phase
from ..roles.prompts import role_prompt
from ..state import BlockState, BlockStatus
from ..team import Team

Answer = TypeVar("Answer", bound=BaseModel)


class StepBase(MemoryHooks):
    """The loop's state for one block; the step mixins build on it."""

    def __init__(self, team: Team, block: Block) -> None:
        self.team = team
        self.block = block
        self.limits = team.config.limits

    async def ask(
        self,
        role: str,
        text: str,
        output: type[Answer],
        ledger: Ledger,
        correlation: str,
        tools: list[ToolSpec] | None = None,
        execute: ToolExecutor | None = None,
    ) -> Answer:
        """A role's answer to the step's text, under its own system prompt, validated
        against `output` (StructuredOutputError or ProviderError otherwise)."""
        return await self.team.gateway.structured(
            role,
            [
                Message(role="system", content=role_prompt(role)),
                Message(role="user", content=text),
            ],
            output,
            correlation_id=correlation,
            ledger=ledger,
            tools=tools,
            execute=execute,
        )

    def fail(
        self, state: BlockState, signature: str, retry: Phase, mismatches: int | None = None
    ) -> Phase:
        """A failed attempt: where the block goes next. The iteration limit and stagnation
        decide between `retry` and escalation; task memory's `remember` comes first."""
        state.status = BlockStatus.FAILING
        state.signatures.append(signature)
        repeats = state.signatures.count(signature)
        target = retry
        if repeats >= self.limits.stagnation_repeats:
            target = Phase.ESCALATE
            state.escalation = {"reason": f"stagnation: the same diagnostic {repeats} times"}
        elif state.iteration >= self.limits.max_iterations:
            target = Phase.ESCALATE
            state.escalation = {
                "reason": f"no pass after {state.iteration} iterations (limit reached)"
            }
        return self.hold_for_memory(state, target, passed=False, mismatches=mismatches)

    def smoke_usable(self, state: BlockState) -> bool:
        smoke = state.smoke
        return (
            self.limits.smoke_testbench
            and smoke is not None
            and smoke.code is not None
            and smoke.set_aside is None
            and smoke.problem is None
        )
