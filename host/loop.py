"""One block's loop, one step at a time: smoke testbench (Verification Engineer) → write →
lint+compile → smoke run → simulate against the hidden testbench → distill (explain_mismatch)
→ reflect → debug → … → synthesize, or escalate. Each call of `BlockLoop.step` does one step
and returns the new state; the caller commits."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from silicon_agent.servers.core.sv.includes import foreign_includes
from silicon_agent.suite.design import Block, testbench_side

from .distill import (
    Dut,
    explain_first_mismatch,
    is_watchdog,
    no_output_message,
    port_stalls,
    prompt_digest,
)
from .feedback import (
    compact_diagnostics,
    diagnostic_signature,
    mismatch_signature,
    module_header,
    scrub,
)
from .llm.gateway import Ledger, now_iso
from .llm.types import Message, ProviderError, StructuredOutputError, ToolCall, ToolSpec
from .memory.hooks import MemoryHooks
from .modem import settled
from .phases import MODEL_PHASES, IllegalTransition, Phase, Step, transition
from .prompting import (
    block_brief,
    code_block,
    escalation_prompt,
    fix_prompt,
    format_diagnostics,
    reflect_prompt,
    smoke_top,
    testbench_prompt,
)
from .roles.planning_prompts import ASK_INSTEAD
from .roles.prompts import ROLE_TOOLS, role_prompt
from .roles.schemas import (
    Escalation,
    LibrarianAnswer,
    PnrAdvice,
    Reflection,
    Review,
    SmokeTestbench,
    rtl_or_question_model,
    rtl_submission_model,
)
from .state import Artifact, BlockState, BlockStatus, Feedback, SmokeBench, StepRecord
from .team import Team
from .waves import render_mismatch

PRINTS = re.compile(r"\$(display|write|monitor|strobe|fdisplay|fwrite)\b")
# A smoke testbench reads no files: it could otherwise pull in a hidden vector file by name.
FILE_READS = re.compile(r"\$(readmem[hb]|fopen)\b")
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
    transition: str = ""  # the name of the table's edge the step took


class BlockLoop(MemoryHooks):
    def __init__(self, team: Team, block: Block) -> None:
        self.team = team
        self.block = block
        self.limits = team.config.limits

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

    def move(self, state: BlockState, target: Phase) -> str:
        """The block to `target` along an edge of the state table (or IllegalTransition): the
        one place a step moves a block. Returns the edge's name."""
        where = f"block {self.block.name}, step {state.step_no}"
        edge = transition(state.phase, target, where)
        state.phase = edge.target
        return edge.name

    # --- the driver ---------------------------------------------------------------------
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
            taken = self.move(state, result.next)
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
            return StepOutput(
                state=state, record=record, ledger=ledger, errors=errors, transition=taken
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

    # --- roles --------------------------------------------------------------------------
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
        messages = [
            Message(role="system", content=role_prompt(role)),
            Message(role="user", content=text),
        ]
        tools = self.check_draft_tool()
        correlation = f"{self.block.name}/{state.step_no}"
        model = (
            rtl_or_question_model(self.limits_code_chars())
            if self.team.planned
            else rtl_submission_model(self.limits_code_chars())
        )
        try:
            answer = await self.team.gateway.structured(
                role,
                messages,
                model,
                correlation_id=correlation,
                ledger=ledger,
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

    async def librarian_excerpts(self, ledger: Ledger, tag: str) -> tuple[str, list[str]]:
        """Why the Librarian is skipped (no spec server, nothing ingested), or the exact text
        of each of the block's clauses the store holds, each with its citation."""
        server = self.team.spec_server
        if server is None:
            return "no spec store server (spec_rag) in the pool", []
        listed = await self.team.use("spec_list", {}, ledger, tag)
        specs = {str(s.get("key")) for s in listed.get("specs") or []}
        if not specs:
            return "no specification ingested in the spec store", []
        excerpts = []
        for ref in self.block.refs_3gpp:
            words = ref.replace("TS ", "").split()
            if len(words) != 2 or words[0] not in specs:
                continue
            section = await self.team.use(
                "spec_fetch", {"spec": words[0], "clause": words[1]}, ledger, tag
            )
            cite = section.get("citation") or {}
            if section.get("status") == "found" and cite:
                where = f"{cite.get('spec')} {cite.get('clause')} ({cite.get('version')})"
                text = " ".join(str(section.get("text", "")).split())[:1200]
                excerpts.append(f'[{where} "{cite.get("title", "")}"] {text}')
        return "", excerpts

    async def do_librarian(self, state: BlockState, ledger: Ledger) -> Step:
        tag = f"{self.block.name}/{state.step_no}"
        skipped, excerpts = await self.librarian_excerpts(ledger, tag)
        if skipped:
            return Step(Phase.WRITE, "skipped", {"reason": skipped})
        server = self.team.spec_server
        assert server is not None
        offered = self.team.pool.tools.get(server, {})
        allowed = {name.split(".", 1)[1] for name in ROLE_TOOLS["spec_librarian"]}
        tools = [spec for name, spec in offered.items() if name in allowed]
        question = (
            f"Block: {self.block.name}\nStep: librarian\nWhat do these 3GPP clauses require of "
            f"this block? {', '.join(self.block.refs_3gpp)}\n\nSpecification:\n{self.block.spec}"
        )
        if excerpts:
            question += "\n\nThe clauses as the store holds them:\n" + "\n".join(excerpts)

        async def execute(call: ToolCall) -> str:
            result = await self.team.tool(server, call.name, call.arguments)
            return json.dumps(result)[:6000]

        detail: dict[str, Any] = {"excerpts": len(excerpts)}
        notes = [f"Excerpt {e}" for e in excerpts]
        try:
            answer = await self.team.gateway.structured(
                "spec_librarian",
                [
                    Message(role="system", content=role_prompt("spec_librarian")),
                    Message(role="user", content=question),
                ],
                LibrarianAnswer,
                correlation_id=tag,
                ledger=ledger,
                tools=tools,
                execute=execute,
            )
        except (StructuredOutputError, ProviderError) as exc:
            state.librarian_notes = "\n".join(notes) or None
            return Step(Phase.WRITE, "no_answer", {**detail, "error": str(exc)[:300]})
        if answer.found:
            cites = "; ".join(f'{c.spec} {c.clause}: "{c.quote}"' for c in answer.citations)
            notes.insert(0, f"{answer.answer}\nCitations: {cites}")
        state.librarian_notes = "\n".join(notes) or None
        outcome = "answered" if answer.found else "not_found"
        return Step(Phase.WRITE, outcome, {**detail, "found": answer.found})

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

    async def do_check(self, state: BlockState, ledger: Ledger) -> Step:
        sources = self.team.sources(self.block)
        args = {"sources": sources, "top": self.block.top}
        tag = f"{self.block.name}/{state.step_no}"
        refused = self.refused_code(state.code or "")
        if refused is not None:
            signature, summary = refused
            state.feedback = Feedback(kind="compile", summary=summary)
            target = self.fail(state, signature, Phase.WRITE)
            return Step(target, "errors", {"signature": signature}, [(signature, summary)])
        results: dict[str, dict[str, Any]] = {}
        if self.team.has("lint"):
            results["lint"] = await self.team.use("lint", args, ledger, tag)
        results["compile"] = await self.team.use("compile", args, ledger, tag)
        for name, result in results.items():
            self.team.folder.write_attempt_file(
                self.block.name, state.iteration, f"{name}.json", json.dumps(result, indent=1)
            )
        # The servers' status is the verdict: a diagnostic the tool itself lets pass (Icarus's
        # "sorry: constant selects in always_* processes", all bits kept) is no error.
        failed = [name for name, r in results.items() if r.get("status") != "PASS"]
        detail = {name: r.get("status") for name, r in results.items()}
        if not failed:
            return Step(
                Phase.SMOKE if self.smoke_usable(state) else Phase.SIMULATE, "clean", detail
            )
        diagnostics: list[dict[str, Any]] = []
        for name in failed:
            diagnostics += compact_diagnostics(results[name], self.team.hidden, errors_only=True)
        summary = "; ".join(f"{n}: {results[n].get('summary', '')}" for n in failed)
        summary = scrub(summary, self.team.hidden)[:500]
        state.feedback = Feedback(kind="compile", summary=summary, diagnostics=diagnostics)
        signature = diagnostic_signature("compile", diagnostics)
        target = self.fail(state, signature, Phase.WRITE)
        return Step(target, "errors", {**detail, "signature": signature}, [(signature, summary)])

    def refused_code(self, code: str) -> tuple[str, str] | None:
        """(signature, summary) of what the host refuses before any tool reads the code."""
        printing = PRINTS.search(code)
        if printing:
            # Only testbenches print: a design's output would corrupt the verdict lines.
            return "design_prints", f"design code may not print: remove ${printing.group(1)}"
        foreign = foreign_includes({Path(self.block.rtl_file).name: code})
        if foreign:
            # The code is judged beside hidden files: it may include none of them (or any).
            _, line, arg = foreign[0]
            return (
                "design_includes",
                f"line {line}: `include {arg[:80]}: design code may not include files",
            )
        missing = self.uninstantiated(code)
        if missing:
            return (
                "integration_missing:" + ",".join(missing),
                "the structural parent must instantiate " + ", ".join(missing),
            )
        return None

    def uninstantiated(self, code: str) -> list[str]:
        """An integration block's children that its code does not instantiate."""
        if self.block.kind != "integration":
            return []
        tops = [self.team.design.block(n).top for n in self.block.depends_on]
        return [
            top
            for top in tops
            if not re.search(rf"\b{top}\s+(#\s*\([^;]*?\)\s*)?[A-Za-z_]\w*\s*\(", code)
        ]

    async def do_simulate(self, state: BlockState, ledger: Ledger) -> Step:
        """The hidden testbench on every case and simulator the design names; the first run
        that does not pass is the verdict (run again with a waveform dump if it failed)."""
        tag = f"{self.block.name}/{state.step_no}"
        runs: list[dict[str, Any]] = []
        result: dict[str, Any] = {}
        for label, simulator, arguments in self.team.judge_calls(self.block):
            # The build comes on top of the simulation's own limit.
            limit = max(self.limits.tool_timeout_s, float(arguments["timeout_s"]) + 600)
            result = settled(
                await self.team.tool(
                    simulator, "run_testbench", arguments, ledger, tag, timeout_s=limit
                )
            )
            if result.get("status") == "SIM_FAIL" and arguments.get("waves") in (None, "none"):
                arguments = {**arguments, "waves": "vcd"}
                result = settled(
                    await self.team.tool(
                        simulator, "run_testbench", arguments, ledger, tag, timeout_s=limit
                    )
                )
            runs.append({"run": label, "status": result.get("status")})
            if result.get("status") != "PASS":
                break
        self.team.folder.write_attempt_file(
            self.block.name, state.iteration, "simulate.json", json.dumps(result, indent=1)
        )
        status = str(result.get("status"))
        # The verdict is the server's, never a model's.
        detail = {
            "status": status,
            "mismatch_count": result.get("mismatch_count"),
            "samples": result.get("samples"),
            "summary": scrub(str(result.get("summary", "")), self.team.hidden)[:300],
            "runs": runs,
        }
        if status == "PASS":
            state.feedback = None
            after = Phase.REVIEW if self.limits.judge_review else Phase.SYNTH
            return Step(self.hold_for_memory(state, after, passed=True), "PASS", detail)
        diagnostics = compact_diagnostics(result, self.team.hidden)
        if status == "SIM_FAIL":
            waves = (result.get("artifacts") or {}).get("waves")
            dut = Dut.of(self.block)
            # the harness's watchdog line (no output) is kept as such; any other line names a
            # port of the DUT, or no signal is shown
            printed = result.get("first_mismatch")
            mismatch = printed if is_watchdog(printed) else dut.mismatch(printed) if dut else None
            picture = render_mismatch(
                self.team.workspace,
                waves,
                mismatch,
                self.team.folder,
                self.block.name,
                state.iteration,
            )
            if picture:
                detail["picture"] = picture
            state.feedback = Feedback(
                kind="simulation",
                summary=detail["summary"],
                diagnostics=[d for d in diagnostics if d.get("category") != "SIM_MISMATCH"],
                mismatch=mismatch,
                waves=waves,
            )
            signature = mismatch_signature(
                result.get("first_mismatch"), result.get("mismatch_count")
            )
            target = self.fail(state, signature, Phase.DISTILL, result.get("mismatch_count"))
            errors = [(signature, detail["summary"])]
            return Step(target, "SIM_FAIL", {**detail, "signature": signature}, errors)
        if status in ("COMPILE_FAIL", "TIMEOUT"):
            state.feedback = Feedback(
                kind="compile" if status == "COMPILE_FAIL" else "timeout",
                summary=detail["summary"],
                diagnostics=diagnostics,
            )
            signature = diagnostic_signature(status.lower(), diagnostics)
            retry = Phase.WRITE if status == "COMPILE_FAIL" else Phase.REFLECT
            target = self.fail(state, signature, retry)
            errors = [(signature, detail["summary"])]
            return Step(target, status, {**detail, "signature": signature}, errors)
        # The trace judge contradicted the testbench: no verdict to act on, a person looks.
        trace = result.get("trace")
        withheld = isinstance(trace, dict) and trace.get("agrees") is False
        cause = "verdict withheld" if withheld else "verification tool failed"
        state.escalation = {"reason": f"{cause}: {detail['summary']}"}
        return Step(Phase.ESCALATE, status, detail, [(f"tool:{status}", detail["summary"])])

    async def do_distill(self, state: BlockState, ledger: Ledger) -> Step:
        feedback = state.feedback
        if (
            feedback is None
            or not feedback.mismatch
            or not feedback.waves
            or not self.team.has("explain")
        ):
            return Step(Phase.REFLECT)
        tag = f"{self.block.name}/{state.step_no}"
        if is_watchdog(feedback.mismatch):
            # no output: the harness stopped a stalled design; its streams say where
            stats = await self.team.use("handshakes", {"file": feedback.waves}, ledger, tag)
            end = int(stats.get("end_cycle") or feedback.mismatch.get("cycle") or 0)
            ports = {p.name for p in self.block.ports}
            lines = port_stalls(stats.get("interfaces") or [], ports, end)
            said = "\n".join([no_output_message(feedback.mismatch), *lines])
            feedback.explanation = scrub(said, self.team.hidden)[:4000]
            ok = bool(lines)
            outcome = "explained" if ok else "not_explained"
            return Step(Phase.REFLECT, outcome, {"ok": ok, "no_output": True})

        async def call(args: dict[str, Any]) -> dict[str, Any]:
            return await self.team.use("explain", args, ledger, tag)

        # Only the DUT's signals are explained: its ports below the testbench top that ran.
        smoke = state.smoke.top if feedback.kind == "smoke" and state.smoke else None
        dut = Dut.of(self.block, top=smoke)
        result = await explain_first_mismatch(
            call, feedback.waves, feedback.mismatch, self.team.sources(self.block), dut
        )
        text = scrub(json.dumps(result, indent=1), self.team.hidden)
        feedback.explanation = scrub(prompt_digest(result), self.team.hidden)
        self.team.folder.write_attempt_file(
            self.block.name, state.iteration, "explain_mismatch.json", text
        )
        ok = result.get("ok", result.get("status") not in ("TOOL_ERROR", "INVALID_INPUT"))
        return Step(Phase.REFLECT, "explained" if ok else "not_explained", {"ok": ok})

    async def do_reflect(self, state: BlockState, ledger: Ledger) -> Step:
        assert state.feedback is not None
        brief = block_brief(
            self.team.design, self.block, state, "reflect", self.limits.max_iterations
        )
        text = reflect_prompt(brief, state)
        extra, remembered = await self.memory_sections(state, ledger, True)
        text = f"{text}\n\n{extra}" if extra else text
        try:
            answer = await self.team.gateway.structured(
                "reflection_debug",
                [
                    Message(role="system", content=role_prompt("reflection_debug")),
                    Message(role="user", content=text),
                ],
                Reflection,
                correlation_id=f"{self.block.name}/{state.step_no}",
                ledger=ledger,
            )
        except (StructuredOutputError, ProviderError) as exc:
            return Step(Phase.DEBUG, "no_hypotheses", {"error": str(exc)[:300], **remembered})
        state.feedback.hypotheses = answer.model_dump()
        self.keep_hypothesis(state, answer)
        detail: dict[str, Any] = {
            "count": len(answer.hypotheses),
            "blame": answer.blame,
            **remembered,
        }
        if answer.blame == "testbench" and state.feedback.kind == "smoke":
            return self.blame_testbench(state, answer, detail)
        if answer.blame == "dependency":
            return self.blame_dependency(state, answer, detail)
        return Step(Phase.DEBUG, "hypotheses", detail)

    # --- the Verification Engineer's smoke testbench -------------------------------------
    def smoke_usable(self, state: BlockState) -> bool:
        smoke = state.smoke
        return (
            self.limits.smoke_testbench
            and smoke is not None
            and smoke.code is not None
            and smoke.set_aside is None
            and smoke.problem is None
        )

    def smoke_dir(self) -> Path:
        folder = self.team.workspace / ".silicon-agent" / "smoke" / self.block.name
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def write_smoke_file(self, smoke: SmokeBench) -> str:
        """The bench as the servers run it, rewritten from the checkpoint before every use so
        a resumed run finds exactly the version its state holds."""
        path = self.smoke_dir() / f"{smoke.top}.sv"
        path.write_text((smoke.code or "").rstrip() + "\n")
        return str(path.relative_to(self.team.workspace))

    def set_aside(self, state: BlockState, reason: str) -> Phase:
        """Go on without the smoke testbench (where to): the hidden testbench still judges."""
        smoke = state.smoke or SmokeBench()
        smoke.set_aside = reason[:500]
        smoke.problem = None
        state.smoke = smoke
        return Phase.SIMULATE if smoke.resume == Phase.SMOKE else Phase.WRITE

    def smoke_problems(self, code: str) -> list[str]:
        from .planning.planner import convention_problems

        problems = convention_problems(code)
        top = smoke_top(self.block)
        if not re.search(rf"\bmodule\s+{re.escape(top)}\b", code):
            problems.append(f"the testbench module must be named {top}")
        if not re.search(rf"\b{re.escape(self.block.top)}\s+(#\s*\(.*?\)\s*)?\w+\s*\(", code, re.S):
            problems.append(f"the testbench must instantiate {self.block.top}")
        if FILE_READS.search(code):
            problems.append("the smoke testbench must not read files (no $readmem/$fopen)")
        return problems

    async def compile_on_interface(self, path: str, ledger: Ledger, tag: str) -> list[str]:
        """The bench must build against a stub of the interface (ports and parameters as
        specified) before any RTL exists; only errors inside the bench count."""
        stub = self.smoke_dir() / f"stub_{self.block.top}.sv"
        stub.write_text(f"{self.block.interface.strip()}\nendmodule\n")
        stub_path = str(stub.relative_to(self.team.workspace))
        top = smoke_top(self.block)
        result = await self.team.use(
            "compile", {"sources": [stub_path, path], "top": top}, ledger, tag
        )
        if result.get("status") == "PASS":
            return []
        mine = [
            d
            for d in compact_diagnostics(result, self.team.hidden, errors_only=True)
            if str(d.get("file", "")).endswith(Path(path).name)
        ]
        if not mine:
            return []  # the stub (the interface text) does not build alone: not the bench's
        return ["it does not compile against the interface:\n" + format_diagnostics(mine)]

    async def do_testbench(self, state: BlockState, ledger: Ledger) -> Step:
        smoke = state.smoke or SmokeBench(resume="write")
        state.smoke = smoke
        repairing = smoke.problem is not None
        tag = f"{self.block.name}/{state.step_no}"
        try:
            answer = await self.team.gateway.structured(
                "verification_engineer",
                [
                    Message(role="system", content=role_prompt("verification_engineer")),
                    Message(
                        role="user",
                        content=testbench_prompt(self.team.design, self.block, state),
                    ),
                ],
                SmokeTestbench,
                correlation_id=tag,
                ledger=ledger,
            )
        except (StructuredOutputError, ProviderError) as exc:
            target = self.set_aside(state, f"the Verification Engineer gave no testbench: {exc}")
            return Step(target, "no_testbench", {"error": str(exc)[:300]})
        smoke.version += 1
        smoke.repairs += int(repairing)
        smoke.code = answer.code
        smoke.top = smoke_top(self.block)
        smoke.problem = None
        smoke.path = self.write_smoke_file(smoke)
        archived = self.team.folder.write_block_file(
            self.block.name, "testbench", f"v{smoke.version:02d}_{smoke.top}.sv", answer.code
        )
        detail: dict[str, Any] = {"testbench": archived, "version": smoke.version}
        problems = self.smoke_problems(answer.code)
        if not problems:
            problems = await self.compile_on_interface(smoke.path, ledger, tag)
        if not problems:
            return Step(Phase(smoke.resume), "repaired" if repairing else "written", detail)
        text = "; ".join(problems)[:2000]
        detail["problems"] = text[:500]
        signature = f"smoke_testbench_broken:v{smoke.version}"
        if smoke.repairs < self.limits.smoke_repairs:
            smoke.problem = text
            return Step(Phase.TESTBENCH, "broken", detail, [(signature, text)])
        why = f"testbench still broken after {smoke.repairs} repair(s): {text}"
        return Step(self.set_aside(state, why), "set_aside", detail, [(signature, text)])

    async def do_smoke(self, state: BlockState, ledger: Ledger) -> Step:
        smoke = state.smoke
        assert smoke is not None and smoke.code is not None and smoke.top is not None
        smoke.resume = "smoke"
        path = self.write_smoke_file(smoke)
        verification = self.block.verification
        design, shared = testbench_side(self.team.sources(self.block), self.team.design.package)
        result = await self.team.tool(
            verification.simulator,
            "run_testbench",
            {
                "design": design,
                "testbench": [*shared, path],
                "top": smoke.top,
                "timeout_s": verification.timeout_s,
                "waves": "vcd",
            },
            ledger,
            f"{self.block.name}/{state.step_no}",
        )
        self.team.folder.write_attempt_file(
            self.block.name, state.iteration, "smoke.json", json.dumps(result, indent=1)
        )
        status = str(result.get("status"))
        summary = scrub(str(result.get("summary", "")), self.team.hidden)[:300]
        detail: dict[str, Any] = {
            "status": status,
            "mismatch_count": result.get("mismatch_count"),
            "samples": result.get("samples"),
            "summary": summary,
            "testbench_version": smoke.version,
        }
        if status == "PASS":
            return Step(Phase.SIMULATE, "PASS", detail)
        diagnostics = compact_diagnostics(result, self.team.hidden)
        if status == "SIM_FAIL":
            # Below the stagnation limit, so a wrong bench cannot escalate a right design.
            limit = min(self.limits.smoke_failures, self.limits.stagnation_repeats - 1)
            if smoke.failures >= limit:
                why = f"failed {smoke.failures + 1} attempts; the hidden testbench judges"
                return Step(self.set_aside(state, why), "set_aside", detail)
            smoke.failures += 1
            waves = (result.get("artifacts") or {}).get("waves")
            state.feedback = Feedback(
                kind="smoke",
                summary=f"the smoke testbench failed: {summary}",
                diagnostics=[d for d in diagnostics if d.get("category") != "SIM_MISMATCH"],
                mismatch=result.get("first_mismatch"),
                waves=waves,
                testbench=smoke.code,
            )
            signature = "smoke " + mismatch_signature(
                result.get("first_mismatch"), result.get("mismatch_count")
            )
            target = self.fail(state, signature, Phase.DISTILL, result.get("mismatch_count"))
            return Step(
                target, "SIM_FAIL", {**detail, "signature": signature}, [(signature, summary)]
            )
        # No verdict on a design that compiled alone: the bench is the first suspect.
        problem = f"run against the design it gave {status}: {summary}"
        if diagnostics:
            problem += "\n" + format_diagnostics(diagnostics)
        errors = [(f"smoke_testbench:{status}", summary)]
        if smoke.repairs < self.limits.smoke_repairs:
            smoke.problem = problem[:2000]
            return Step(Phase.TESTBENCH, status, detail, errors)
        target = self.set_aside(state, f"{problem} (after {smoke.repairs} repair(s))")
        return Step(target, status, {**detail, "set_aside": True}, errors)

    def blame_testbench(
        self, state: BlockState, answer: Reflection, detail: dict[str, Any]
    ) -> Step:
        """Reflection judged the smoke testbench wrong: one repair by the Verification
        Engineer, then the hidden testbench judges the same code."""
        smoke = state.smoke
        assert smoke is not None
        smoke.resume = "smoke"
        why = "; ".join(f"{h.cause} ({h.evidence})" for h in answer.hypotheses)
        problem = f"the Reflection/Debug engineer judged the testbench wrong: {why}"
        if smoke.repairs < self.limits.smoke_repairs:
            smoke.problem = f"{problem}. {answer.fix_plan}"[:2000]
            return Step(Phase.TESTBENCH, "testbench_blamed", detail)
        target = self.set_aside(state, f"{problem} (after {smoke.repairs} repair(s))")
        return Step(target, "testbench_blamed", {**detail, "set_aside": True})

    def blame_dependency(
        self, state: BlockState, answer: Reflection, detail: dict[str, Any]
    ) -> Step:
        """Reflection traced the failure to a dependency's interface: the request goes to the
        orchestrator, which sends that block back for a rewrite if it may (bounded)."""
        name = answer.dependency.strip()
        if name not in self.block.depends_on:
            detail["rework"] = f"ignored: '{name}' is not a dependency of {self.block.name}"
            return Step(Phase.DEBUG, "hypotheses", detail)
        change = (answer.dependency_change or answer.fix_plan).strip()
        state.rework = {"block": name, "change": change[:400], "status": "requested"}
        return Step(Phase.DEBUG, "dependency_blamed", {**detail, "dependency": name})

    async def do_debug(self, state: BlockState, ledger: Ledger) -> Step:
        brief = block_brief(
            self.team.design, self.block, state, "debug", self.limits.max_iterations
        )
        return await self.submit_code(
            state, ledger, "reflection_debug", "debug", fix_prompt(brief, state)
        )

    async def do_review(self, state: BlockState, ledger: Ledger) -> Step:
        """The Judge's advisory review of passing code; the verdict stays the simulator's."""
        brief = block_brief(
            self.team.design, self.block, state, "review", self.limits.max_iterations
        )
        text = f"{brief}\n\nCode to review:\n{code_block(state.code)}"
        try:
            review = await self.team.gateway.structured(
                "judge",
                [
                    Message(role="system", content=role_prompt("judge")),
                    Message(role="user", content=text),
                ],
                Review,
                correlation_id=f"{self.block.name}/{state.step_no}",
                ledger=ledger,
            )
        except (StructuredOutputError, ProviderError) as exc:
            return Step(Phase.SYNTH, "skipped", {"error": str(exc)[:300]})
        state.review = review.model_dump()
        outcome = "findings" if review.findings else "no_findings"
        return Step(Phase.SYNTH, outcome, {"findings": len(review.findings)})

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
            advice = await self.team.gateway.structured(
                "pnr_lead",
                [
                    Message(role="system", content=role_prompt("pnr_lead")),
                    Message(role="user", content=text),
                ],
                PnrAdvice,
                correlation_id=f"{self.block.name}/{state.step_no}",
                ledger=ledger,
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
            answer = await self.team.gateway.structured(
                "orchestrator",
                [
                    Message(role="system", content=role_prompt("orchestrator")),
                    Message(
                        role="user", content=escalation_prompt(self.block, state, errors, reason)
                    ),
                ],
                Escalation,
                correlation_id=f"{self.block.name}/{state.step_no}",
                ledger=ledger,
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
