"""The RTL-writing steps: the first write, a compile fix and the Debug engineer's rewrite, with
the draft linter the model may call before answering."""

from __future__ import annotations

import json
from pathlib import Path

from ..feedback import (
    compact_diagnostics,
)
from ..llm.gateway import Ledger
from ..llm.types import ProviderError, StructuredOutputError, ToolCall, ToolSpec
from ..phases import Phase, Step
from ..prompting import (
    block_brief,
    fix_prompt,
)
from ..roles.planning_prompts import ASK_INSTEAD
from ..roles.schemas import (
    rtl_or_question_model,
    rtl_submission_model,
)
from ..state import BlockState, BlockStatus, Feedback, SmokeBench
from .base import StepBase


class WriteSteps(StepBase):
    def check_draft_tool(self) -> list[ToolSpec]:
        if not self.team.has("lint"):
            return []
        limit = self.limits_code_chars()
        return [
            ToolSpec(
                name="check_draft",
                description="Lint a draft of the module (Verilator -Wall and slang) before "
                "answering; returns its diagnostics.",
                input_schema={
                    "type": "object",
                    "properties": {"code": {"type": "string", "maxLength": limit}},
                    "required": ["code"],
                },
            )
        ]

    def limits_code_chars(self) -> int:
        spec = self.team.config.role("rtl_engineer")
        return spec.max_code_chars or spec.max_tokens * 2

    async def run_check_draft(self, call: ToolCall) -> str:
        code = str(call.arguments.get("code", ""))
        drafts = self.team.workspace / ".silicon-agent" / "drafts" / self.block.name
        drafts.mkdir(parents=True, exist_ok=True)
        draft = drafts / Path(self.block.rtl_file).name
        draft.write_text(code)
        relative = str(draft.relative_to(self.team.workspace))
        deps = self.team.sources(self.block)[:-1]
        result = await self.team.use("lint", {"sources": [*deps, relative], "top": self.block.top})
        return json.dumps(
            {
                "status": result.get("status"),
                "diagnostics": compact_diagnostics(result, self.team.hidden),
            }
        )

    async def submit_code(
        self, state: BlockState, ledger: Ledger, role: str, step: str, text: str
    ) -> Step:
        """An RTL-writing step (first write, compile fix, debug fix)."""
        extra, remembered = await self.memory_sections(state, ledger, state.feedback is not None)
        text = f"{text}\n\n{extra}" if extra else text
        tools = self.check_draft_tool()
        model = (
            rtl_or_question_model(self.limits_code_chars())
            if self.team.planned
            else rtl_submission_model(self.limits_code_chars())
        )
        try:
            answer = await self.ask(
                role,
                text,
                model,
                ledger,
                f"{self.block.name}/{state.step_no}",
                tools=tools or None,
                execute=self.run_check_draft if tools else None,
            )
        except StructuredOutputError as exc:
            state.iteration += 1
            state.feedback = Feedback(
                kind="invalid_answer",
                summary=f"the answer did not match the schema: {exc.errors}"[:600],
            )
            signature = f"invalid_answer:{role}"
            target = self.fail(state, signature, Phase.WRITE)
            errors = [(signature, str(exc))]
            return Step(target, "invalid_answer", {"errors": exc.errors[:500]}, errors)
        except ProviderError as exc:
            state.escalation = {"reason": f"model unavailable: {exc}"[:300]}
            errors = [("provider_error", str(exc))]
            return Step(Phase.ESCALATE, "provider_error", {"error": str(exc)[:300]}, errors)
        question = getattr(answer, "question", "")
        if question:
            # The block waits for the engineer; the other blocks go on.
            state.status = BlockStatus.PAUSED
            state.question = question
            return Step(Phase(step), "question", {"question": question, "step": step})
        state.iteration += 1
        state.code = answer.code
        target = self.team.workspace / self.block.rtl_file
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(answer.code if answer.code.endswith("\n") else answer.code + "\n")
        archived = self.team.folder.write_attempt_file(
            self.block.name, state.iteration, Path(self.block.rtl_file).name, answer.code
        )
        self.keep_conventions(state, answer.notes)
        detail = {"code": archived, "notes": answer.notes[:300], "step": step, **remembered}
        return Step(Phase.CHECK, "submitted", detail)

    async def do_write(self, state: BlockState, ledger: Ledger) -> Step:
        if self.limits.smoke_testbench and state.smoke is None:
            # The Verification Engineer writes its smoke testbench before any code exists.
            state.smoke = SmokeBench(resume="write")
            return Step(Phase.TESTBENCH)
        limit = self.limits.max_iterations
        if state.code is None or state.feedback is None:
            text = block_brief(self.team.design, self.block, state, "write", limit)
        else:
            brief = block_brief(self.team.design, self.block, state, "fix", limit)
            text = fix_prompt(brief, state)
        if state.answers:
            text += "\n\nClarifications from the engineer:\n" + "\n".join(
                f"Q: {a['question']}\nAnswer from the engineer: {a['answer']}"
                for a in state.answers
            )
        if self.team.planned:
            text += "\n\n" + ASK_INSTEAD
        role = "integrator" if self.block.kind == "integration" else "rtl_engineer"
        return await self.submit_code(state, ledger, role, "write", text)

    async def do_debug(self, state: BlockState, ledger: Ledger) -> Step:
        brief = block_brief(
            self.team.design, self.block, state, "debug", self.limits.max_iterations
        )
        return await self.submit_code(
            state, ledger, "reflection_debug", "debug", fix_prompt(brief, state)
        )
