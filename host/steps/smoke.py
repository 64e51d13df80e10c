"""The Verification Engineer's smoke testbench: written (or repaired) against the interface
before any code exists, run on each draft, set aside when it cannot be trusted."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from silicon_agent.suite.design import testbench_side

from ..feedback import (
    compact_diagnostics,
    mismatch_signature,
    scrub,
)
from ..llm.gateway import Ledger
from ..llm.types import ProviderError, StructuredOutputError
from ..phases import Phase, Step
from ..prompting import (
    format_diagnostics,
    smoke_top,
    testbench_prompt,
)
from ..roles.schemas import (
    Reflection,
    SmokeTestbench,
)
from ..state import BlockState, Feedback, SmokeBench
from .base import StepBase

# A smoke testbench reads no files: it could otherwise pull in a hidden vector file by name.
FILE_READS = re.compile(r"\$(readmem[hb]|fopen)\b")


class SmokeSteps(StepBase):
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
        from ..planning.planner import convention_problems

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
            answer = await self.ask(
                "verification_engineer",
                testbench_prompt(self.team.design, self.block, state),
                SmokeTestbench,
                ledger,
                tag,
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
