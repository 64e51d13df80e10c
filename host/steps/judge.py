"""The judging steps: the hidden testbench's verdict, the waveform's explanation of a mismatch,
the Reflection engineer's hypotheses and blame, and the Judge's advisory review."""

from __future__ import annotations

import json
from typing import Any

from ..distill import (
    Dut,
    explain_first_mismatch,
    is_watchdog,
    no_output_message,
    port_stalls,
    prompt_digest,
)
from ..feedback import (
    compact_diagnostics,
    diagnostic_signature,
    mismatch_signature,
    scrub,
)
from ..llm.gateway import Ledger
from ..llm.types import ProviderError, StructuredOutputError
from ..modem import settled
from ..phases import Phase, Step
from ..prompting import (
    block_brief,
    code_block,
    reflect_prompt,
)
from ..roles.schemas import (
    Reflection,
    Review,
)
from ..state import BlockState, Feedback
from ..waves import render_mismatch
from .smoke import SmokeSteps


class JudgeSteps(SmokeSteps):
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
            answer = await self.ask(
                "reflection_debug", text, Reflection, ledger, f"{self.block.name}/{state.step_no}"
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

    async def do_review(self, state: BlockState, ledger: Ledger) -> Step:
        """The Judge's advisory review of passing code; the verdict stays the simulator's."""
        brief = block_brief(
            self.team.design, self.block, state, "review", self.limits.max_iterations
        )
        text = f"{brief}\n\nCode to review:\n{code_block(state.code)}"
        try:
            review = await self.ask(
                "judge", text, Review, ledger, f"{self.block.name}/{state.step_no}"
            )
        except (StructuredOutputError, ProviderError) as exc:
            return Step(Phase.SYNTH, "skipped", {"error": str(exc)[:300]})
        state.review = review.model_dump()
        outcome = "findings" if review.findings else "no_findings"
        return Step(Phase.SYNTH, outcome, {"findings": len(review.findings)})
