"""How a block's loop ends: synthesis and timing (the PnR Lead on a missed clock), the freeze
of a passing planned block, and the Orchestrator's escalation."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..feedback import (
    compact_diagnostics,
    diagnostic_signature,
    module_header,
    scrub,
)
from ..llm.gateway import Ledger
from ..llm.types import ProviderError, StructuredOutputError
from ..phases import Phase, Step
from ..prompting import (
    code_block,
    escalation_prompt,
)
from ..roles.schemas import (
    Escalation,
    PnrAdvice,
)
from ..state import BlockState, BlockStatus, Feedback
from .base import StepBase


class FinishSteps(StepBase):
    async def pnr_advice(
        self, state: BlockState, ledger: Ledger, result: dict[str, Any]
    ) -> dict[str, Any] | None:
        """The PnR Lead reads a synthesis result that misses its clock."""
        summary = {
            k: result.get(k)
            for k in ("summary", "clock_period_ns", "worst_setup_slack_ns", "fmax_mhz", "cells")
        }
        text = (
            f"Block: {self.block.name}\nStep: pnr\nSynthesis result:\n"
            f"{json.dumps(summary, indent=1)}\nCritical path:\n"
            f"{json.dumps(result.get('critical_path'), indent=1)[:3000]}\n\n"
            f"Code:\n{code_block(state.code)}"
        )
        try:
            advice = await self.ask(
                "pnr_lead", text, PnrAdvice, ledger, f"{self.block.name}/{state.step_no}"
            )
        except (StructuredOutputError, ProviderError):
            return None
        return advice.model_dump()

    async def do_freeze(self, state: BlockState, ledger: Ledger) -> Step:
        """A passing planned block is frozen: its code hash is kept and a copy archived;
        parents integrate only frozen children."""
        code = state.code or ""
        state.frozen_sha256 = hashlib.sha256(code.encode()).hexdigest()
        archived = self.team.folder.write_attempt_file(
            self.block.name, state.iteration, "frozen_" + Path(self.block.rtl_file).name, code
        )
        state.status = BlockStatus.PASSED
        state.interface_sig = module_header(code, self.block.top)
        return Step(Phase.DONE, "frozen", {"sha256": state.frozen_sha256, "code": archived})

    async def do_synth(self, state: BlockState, ledger: Ledger) -> Step:
        after = Phase.FREEZE if self.team.planned else Phase.DONE
        state.status = BlockStatus.IN_PROGRESS if self.team.planned else BlockStatus.PASSED
        state.frozen_sha256 = None
        state.recheck = False
        header = module_header(state.code or "", self.block.top)
        if self.block.synth is None or not self.team.has("synthesize"):
            if not self.team.planned:  # a planned block's header counts once frozen
                state.interface_sig = header
            return Step(after, "passed", {"synthesis": "not run"})
        result = await self.team.use(
            "synthesize",
            {
                "sources": self.team.sources(self.block),
                "top": self.block.top,
                "clock_period_ns": self.block.synth.clock_period_ns,
            },
            ledger,
            f"{self.block.name}/{state.step_no}",
        )
        self.team.folder.write_attempt_file(
            self.block.name, state.iteration, "synthesize.json", json.dumps(result, indent=1)
        )
        status = str(result.get("status"))
        if status != "PASS":
            # Simulates but does not synthesize (latches, unsupported constructs): a fix.
            diagnostics = compact_diagnostics(result, self.team.hidden, errors_only=True)
            summary = scrub(str(result.get("summary", "")), self.team.hidden)[:500]
            state.status = BlockStatus.FAILING
            state.feedback = Feedback(kind="synthesis", summary=summary, diagnostics=diagnostics)
            signature = diagnostic_signature("synthesis", diagnostics)
            target = self.fail(state, signature, Phase.WRITE)
            errors = [(signature, summary)]
            return Step(target, status, {"status": status, "signature": signature}, errors)
        if not self.team.planned:
            state.interface_sig = header
        state.synth = {k: v for k, v in result.items() if not isinstance(v, (list, dict))}
        slack = result.get("worst_setup_slack_ns")
        detail = {
            "status": status,
            "area_um2": result.get("area_um2"),
            "worst_setup_slack_ns": slack,
        }
        if isinstance(slack, (int, float)) and slack < 0:
            return await self.timing_missed(state, ledger, result, detail, after)
        return Step(after, "synthesized", detail)

    async def timing_missed(
        self,
        state: BlockState,
        ledger: Ledger,
        result: dict[str, Any],
        detail: dict[str, Any],
        after: Phase,
    ) -> Step:
        """The PnR Lead on a negative slack: the openlane server's `advise` rules (and the
        role's reading of the critical path) are recorded; the block goes back to the RTL
        Engineer once with them, then passes with the timing noted."""
        assert state.synth is not None
        tag = f"{self.block.name}/{state.step_no}"
        rules = await self.team.use("advise", {"summary": result}, ledger, tag)
        recommendations = [
            f"{r.get('rule')}: {r.get('message')}" for r in rules.get("recommendations") or []
        ]
        state.synth["pnr_recommendations"] = recommendations
        detail["recommendations"] = recommendations
        advice = await self.pnr_advice(state, ledger, result)
        if advice is not None:
            state.synth["pnr_advice"] = advice["advice"]
            state.synth["pnr_critical_path"] = advice["critical_path"]
        if state.timing_returns >= self.limits.timing_returns:
            detail["timing"] = f"not met after {state.timing_returns} return(s)"
            return Step(after, "synthesized", detail)
        state.timing_returns += 1
        clock = self.block.synth.clock_period_ns if self.block.synth else None
        lines = recommendations + ([f"PnR Lead: {advice['advice']}"] if advice else [])
        state.feedback = Feedback(
            kind="timing",
            summary=(
                f"the block misses its {clock} ns clock: worst setup slack "
                f"{detail['worst_setup_slack_ns']} ns. Recommendations: " + "; ".join(lines)
            )[:1500],
        )
        state.status = BlockStatus.FAILING
        state.interface_sig = None
        return Step(Phase.WRITE, "timing_missed", {**detail, "returned": True})

    async def do_escalate(self, state: BlockState, ledger: Ledger) -> Step:
        reason = (state.escalation or {}).get("reason", "escalated")
        errors = self.team.error_log(self.block.name)
        body: dict[str, Any] = {"reason": reason, "iterations": state.iteration}
        try:
            if self.team.gateway.budget_left() <= 0:
                raise ProviderError("budget exhausted", retryable=False)
            answer = await self.ask(
                "orchestrator",
                escalation_prompt(self.block, state, errors, reason),
                Escalation,
                ledger,
                f"{self.block.name}/{state.step_no}",
            )
            body.update(answer.model_dump())
        except (StructuredOutputError, ProviderError) as exc:
            last = errors[-1]["message"] if errors else "no error recorded"
            body["summary"] = f"{reason}. Last error: {last}"[:1500]
            body["suggested_action"] = "review by a human"
            body["note"] = f"summary written by the host: {exc}"[:300]
        state.escalation = body
        state.status = BlockStatus.ESCALATED
        return Step(Phase.DONE, "escalated", {"reason": reason})
