"""The Spec Librarian's step: the block's 3GPP clauses from the spec store, read before any
code is written."""

from __future__ import annotations

import json
from typing import Any

from ..llm.gateway import Ledger
from ..llm.types import ProviderError, StructuredOutputError, ToolCall
from ..phases import Phase, Step
from ..roles.prompts import ROLE_TOOLS
from ..roles.schemas import (
    LibrarianAnswer,
)
from ..state import BlockState
from .base import StepBase


class LibrarianStep(StepBase):
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
            answer = await self.ask(
                "spec_librarian",
                question,
                LibrarianAnswer,
                ledger,
                tag,
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
