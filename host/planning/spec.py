"""The specification in five levels (L1 intent … L5 constraints). The Specification Helper
fills a draft; the draft freezes only when every level validates, so an open required field
is a question still to ask, never a guess."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class L1Intent(Strict):
    summary: str = Field(min_length=1, max_length=400)
    behavior: list[str] = Field(min_length=1, description="Every rule the design must keep")


class SpecPort(Strict):
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    direction: Literal["input", "output"]
    width: int = Field(ge=1, le=4096)
    description: str = ""


class ResetSpec(Strict):
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    active: Literal["high", "low"]
    kind: Literal["synchronous", "asynchronous"]
    value: str = Field(min_length=1, description="The value every register takes on reset")


class L2Interfaces(Strict):
    module: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    ports: list[SpecPort] = Field(min_length=1)
    clock: str | None = Field(description="Clock port name; null for combinational logic")
    reset: ResetSpec | None = Field(description="null for combinational logic")
    protocols: list[str] = Field(default_factory=list)
    timing: str = Field(min_length=1, description="Latency and when outputs change")


class L3Verification(Strict):
    scenarios: list[str] = Field(min_length=1)
    oracle: str = Field(min_length=1, description="What decides the expected values")
    coverage_goals: list[str] = Field(min_length=1)


class L4Architecture(Strict):
    approach: str = Field(min_length=1)
    submodules: list[str] = Field(default_factory=list)


class L5Constraints(Strict):
    clock_period_ns: float | None = Field(gt=0, description="null for combinational logic")
    area: str = Field(min_length=1)
    power: str = Field(min_length=1)


LEVELS: dict[str, type[Strict]] = {
    "L1": L1Intent,
    "L2": L2Interfaces,
    "L3": L3Verification,
    "L4": L4Architecture,
    "L5": L5Constraints,
}


class Specification(Strict):
    """The frozen specification: every level complete."""

    prompt: str
    L1: L1Intent
    L2: L2Interfaces
    L3: L3Verification
    L4: L4Architecture
    L5: L5Constraints


class SpecNotFrozen(ValueError):
    def __init__(self, open_fields: list[str]) -> None:
        self.open_fields = open_fields
        super().__init__(
            "the specification cannot be frozen while required fields are open: "
            + ", ".join(open_fields)
        )


def open_fields(draft: dict[str, Any]) -> list[str]:
    """Every required field of every level that is missing or invalid, as `L2.reset.value`."""
    found: list[str] = []
    for level, model in LEVELS.items():
        body = draft.get(level)
        if not isinstance(body, dict):
            found.append(f"{level} (missing)")
            continue
        try:
            model.model_validate(body)
        except ValidationError as exc:
            for error in exc.errors():
                where = ".".join(str(p) for p in error["loc"])
                found.append(f"{level}.{where} ({error['msg']})")
    return found


def freeze(prompt: str, draft: dict[str, Any]) -> Specification:
    missing = open_fields(draft)
    if missing:
        raise SpecNotFrozen(missing)
    return Specification.model_validate({"prompt": prompt, **{k: draft[k] for k in LEVELS}})
