"""The check step: what the host refuses before any tool reads the code, then lint and compile."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from silicon_agent.servers.core.sv.includes import foreign_includes

from ..feedback import (
    compact_diagnostics,
    diagnostic_signature,
    scrub,
)
from ..llm.gateway import Ledger
from ..phases import Phase, Step
from ..state import BlockState, Feedback
from .base import StepBase

PRINTS = re.compile(r"\$(display|write|monitor|strobe|fdisplay|fwrite)\b")


class CheckStep(StepBase):
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
