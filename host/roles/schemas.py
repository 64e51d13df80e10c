"""What each role must answer with: pydantic models, held to a JSON schema at the provider.
Every string has a maxLength so a small model cannot run to its token limit inside one."""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator


class Hypothesis(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cause: str = Field(max_length=300)
    evidence: str = Field(max_length=300)
    suspect_signal: str = Field("", max_length=80)


class Reflection(BaseModel):
    """Reflection answers with hypotheses and a plan, never with code, and says where the
    fault lies: in the design, in the Verification Engineer's smoke testbench, or in the
    interface of a block this one depends on."""

    model_config = ConfigDict(extra="forbid")

    hypotheses: list[Hypothesis] = Field(min_length=1, max_length=5)
    fix_plan: str = Field(max_length=600)
    blame: Literal["design", "testbench", "dependency"] = Field(
        "design",
        description="testbench: the smoke testbench itself is wrong; dependency: a block this "
        "one instantiates must change its interface",
    )
    dependency: str = Field("", max_length=80, description="With blame=dependency: its name")
    dependency_change: str = Field(
        "", max_length=400, description="With blame=dependency: what its interface must offer"
    )


class SmokeTestbench(BaseModel):
    """The Verification Engineer's visible smoke testbench for one block."""

    model_config = ConfigDict(extra="forbid")

    code: str = Field(min_length=1, max_length=12000)
    notes: str = Field("", max_length=200)


class Escalation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    summary: str = Field(max_length=800)
    suggested_action: str = Field(max_length=300)


class Citation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    spec: str = Field(max_length=40)
    clause: str = Field(max_length=40)
    quote: str = Field(max_length=400)


class LibrarianAnswer(BaseModel):
    """No citation, no answer: an answer without citations does not validate."""

    model_config = ConfigDict(extra="forbid")

    found: bool
    answer: str = Field("", max_length=1500)
    citations: list[Citation] = Field(default_factory=list, max_length=8)

    @model_validator(mode="after")
    def cited(self) -> LibrarianAnswer:
        if self.found and not self.citations:
            raise ValueError("an answer needs at least one citation (no citation, no answer)")
        if not self.found and self.answer:
            raise ValueError("when nothing was found, give no answer")
        return self


class RtlSubmission(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str
    notes: str = ""


@cache
def rtl_submission_model(max_code_chars: int) -> type[RtlSubmission]:
    """The submission model with the code size the configuration allows."""
    return create_model(  # type: ignore[call-overload, no-any-return]
        "RtlSubmission",
        __base__=RtlSubmission,
        code=(str, Field(min_length=1, max_length=max_code_chars)),
        notes=(str, Field("", max_length=120)),
    )


class Finding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rule: str = Field(max_length=80)
    line: int | None = None
    text: str = Field(max_length=300)


class Review(BaseModel):
    """The Judge's review against the spec and the coding rules: advice, never the verdict."""

    model_config = ConfigDict(extra="forbid")

    findings: list[Finding] = Field(default_factory=list, max_length=10)
    note: str = Field("", max_length=200)


class PnrAdvice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    meets_target: bool
    critical_path: str = Field(max_length=300)
    advice: str = Field(max_length=600)


class RtlOrQuestion(RtlSubmission):
    """A generating role in a planned run may ask the engineer instead of guessing."""

    question: str = ""

    @model_validator(mode="after")
    def one_of(self) -> RtlOrQuestion:
        if bool(self.code.strip()) == bool(self.question.strip()):
            raise ValueError("answer with either code or a question, not both and not neither")
        return self


@cache
def rtl_or_question_model(max_code_chars: int) -> type[RtlOrQuestion]:
    return create_model(  # type: ignore[call-overload, no-any-return]
        "RtlOrQuestion",
        __base__=RtlOrQuestion,
        code=(str, Field("", max_length=max_code_chars)),
        notes=(str, Field("", max_length=120)),
        question=(str, Field("", max_length=600)),
    )
