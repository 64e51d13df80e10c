"""The Specification Helper's clarification rounds: it asks, the engineer answers (in a
terminal or from a file), until every required field of the five levels is settled."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from ..llm.gateway import Gateway, Ledger
from ..llm.types import Message
from ..roles.prompts import role_prompt
from .spec import LEVELS, Specification, SpecNotFrozen, freeze, open_fields


class Question(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9_.-]+$", max_length=40)
    text: str = Field(max_length=400)
    why: str = Field("", max_length=300)


class SpecDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")

    L1: dict[str, Any] | None = None
    L2: dict[str, Any] | None = None
    L3: dict[str, Any] | None = None
    L4: dict[str, Any] | None = None
    L5: dict[str, Any] | None = None


class HelperTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    questions: list[Question] = Field(default_factory=list, max_length=8)
    spec: SpecDraft = Field(default_factory=SpecDraft)


class Round(BaseModel):
    round: int
    questions: list[Question] = Field(default_factory=list)
    answers: dict[str, str] = Field(default_factory=dict)
    refused: list[str] = Field(default_factory=list, description="Open fields at a refusal")


class Clarification(BaseModel):
    spec: Specification
    rounds: list[Round]


Answerer = Callable[[list[Question]], Awaitable[dict[str, str]]]


def file_answers(path: str | Path) -> Answerer:
    """Answers by question id from a YAML/JSON mapping; a question without one is an error."""
    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: answers must be a mapping of question id to answer")

    async def answer(questions: list[Question]) -> dict[str, str]:
        missing = [q for q in questions if q.id not in data]
        if missing:
            listed = "; ".join(f"{q.id}: {q.text}" for q in missing)
            raise ValueError(f"{path} has no answer for: {listed}")
        return {q.id: str(data[q.id]) for q in questions}

    return answer


def terminal_answers(ask: Callable[[str], str] | None = None) -> Answerer:
    async def answer(questions: list[Question]) -> dict[str, str]:
        replies = {}
        prompt = ask or input
        for q in questions:
            why = f"  ({q.why})" if q.why else ""
            replies[q.id] = prompt(f"[{q.id}] {q.text}{why}\n> ").strip()
        return replies

    return answer


def round_text(prompt: str, number: int, draft: dict[str, Any], history: list[Round]) -> str:
    lines = [f"Step: clarify\nRound: {number}\nEngineer's prompt: {prompt}", ""]
    lines += ["Specification so far:", json.dumps(draft, indent=1) if draft else "(empty)"]
    answered = [(q, r.answers[q.id]) for r in history for q in r.questions if q.id in r.answers]
    if answered:
        lines += ["", "Answers so far:"] + [f"- [{q.id}] {q.text} -> {a}" for q, a in answered]
    if history and history[-1].refused:
        lines += ["", "Cannot freeze yet; these required fields are open:"]
        lines += [f"- {f}" for f in history[-1].refused]
    return "\n".join(lines)


async def clarify(
    prompt: str,
    gateway: Gateway,
    answerer: Answerer,
    ledger: Ledger,
    max_rounds: int = 6,
) -> Clarification:
    draft: dict[str, Any] = {}
    rounds: list[Round] = []
    for number in range(1, max_rounds + 1):
        turn = await gateway.structured(
            "spec_helper",
            [
                Message(role="system", content=role_prompt("spec_helper")),
                Message(role="user", content=round_text(prompt, number, draft, rounds)),
            ],
            HelperTurn,
            correlation_id=f"plan/clarify{number}",
            ledger=ledger,
        )
        for level in LEVELS:
            value = getattr(turn.spec, level)
            if value is not None:
                draft[level] = value
        if turn.questions:
            answers = await answerer(turn.questions)
            rounds.append(Round(round=number, questions=turn.questions, answers=answers))
            continue
        missing = open_fields(draft)
        if not missing:
            return Clarification(spec=freeze(prompt, draft), rounds=rounds)
        rounds.append(Round(round=number, refused=missing))
    raise SpecNotFrozen(open_fields(draft))
