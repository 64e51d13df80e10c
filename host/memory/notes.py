"""What a memory note holds: the failure signature, the hypothesis, the fix tried and how it
turned out, keywords and links; the part the Reflection role writes is `NoteDraft`."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class Outcome(StrEnum):
    OPEN = "open"  # the fix is written, its verdict not yet in
    FIXED = "fixed"
    NOT_FIXED = "not_fixed"
    MADE_WORSE = "made_worse"


class Signature(BaseModel):
    """A failure as the tools reported it, stable across lines and runs."""

    model_config = ConfigDict(extra="forbid")

    category: str = Field(max_length=60, description="SIM_MISMATCH, SYNTAX_ERROR, TIMEOUT, ...")
    tool_code: str = Field("", max_length=80, description="The tool's own code or status")
    signal: str = Field("", max_length=120, description="The first mismatching signal")
    block_kind: str = Field("", max_length=60)
    clause: str = Field("", max_length=120, description="3GPP clauses of the block")

    def text(self) -> str:
        parts = [self.category, self.tool_code, self.signal, self.block_kind, self.clause]
        return " ".join(p for p in parts if p)


class NoteDraft(BaseModel):
    """The Reflection role's structured answer: a note on one failed attempt and its fix."""

    model_config = ConfigDict(extra="forbid")

    hypothesis: str = Field(max_length=400, description="The root cause believed")
    fix_summary: str = Field(max_length=400, description="What the fix changed, in words")
    keywords: list[str] = Field(default_factory=list, max_length=8)


class Link(BaseModel):
    model_config = ConfigDict(extra="forbid")

    target: str
    kind: str = Field(description="similar | follows | offered_to")


class Note(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    run: str
    block: str
    iteration: int
    signature: Signature
    hypothesis: str = Field(max_length=400)
    fix_summary: str = Field(max_length=400)
    fix_diff: str = Field("", max_length=1500, description="The fix's changed lines")
    outcome: Outcome = Outcome.OPEN
    keywords: list[str] = Field(default_factory=list, max_length=8)
    links: list[Link] = Field(default_factory=list)
    confirmed: int = Field(0, description="Later attempts it was offered to that passed")
    contradicted: int = Field(0, description="Later attempts it was offered to that failed")
    created_at: str = ""
    updated_at: str = ""

    def search_text(self) -> str:
        """What is embedded: the signature first, then the words of the note."""
        return "\n".join(
            [
                self.signature.text(),
                self.hypothesis,
                self.fix_summary,
                " ".join(self.keywords),
            ]
        )

    def prompt_text(self) -> str:
        """The note as a role sees it, outcome first."""
        outcome = self.outcome.value.replace("_", " ").upper()
        lines = [
            f"[{self.id}] outcome: {outcome} (block {self.block}, attempt {self.iteration})",
            f"  failure: {self.signature.text()}",
            f"  hypothesis: {self.hypothesis}",
            f"  fix tried: {self.fix_summary}",
        ]
        if self.fix_diff:
            lines.append(
                "  fix diff:\n" + "\n".join("    " + d for d in self.fix_diff.splitlines())
            )
        if self.confirmed or self.contradicted:
            lines.append(f"  later: helped {self.confirmed}, did not help {self.contradicted}")
        return "\n".join(lines)


class Failure(BaseModel):
    """A failed attempt as memory keeps it until the fix after it is judged."""

    model_config = ConfigDict(extra="forbid")

    iteration: int
    signature: Signature
    summary: str = Field("", max_length=600)
    mismatches: int | None = None
    rank: int = Field(0, description="How far the attempt got: 0 answer, 1 compile, 2 sim")
    code: str = ""
    hypothesis: str = Field("", max_length=400)


class MemoryTrack(BaseModel):
    """A block's memory bookkeeping, checkpointed with its state."""

    model_config = ConfigDict(extra="forbid")

    failure: Failure | None = Field(None, description="The last failure, its fix not yet judged")
    verdict: Failure | None = Field(None, description="A failure judged, waiting to be noted")
    passed: bool = False
    resume: str = "write"
    recalled: int = Field(-1, description="The iteration notes were last retrieved for")
    offered: list[str] = Field(default_factory=list)
    offered_text: str = ""
    conventions: str = Field("", max_length=300, description="The RTL role's notes on its code")
