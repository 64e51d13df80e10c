"""`agent-host plan`: clarification, then decomposition, into a plan folder; every model
call of the planning phase is kept in `planning_calls.json`."""

from __future__ import annotations

import json
from pathlib import Path

from ..config import load_config
from ..llm.base import Provider
from ..llm.gateway import Gateway, Ledger
from .helper import Answerer, file_answers, terminal_answers
from .planner import Planner


async def plan_design(
    prompt: str,
    out: Path,
    answers: str | None = None,
    config_path: str | None = None,
    answerer: Answerer | None = None,
    providers: dict[str, Provider] | None = None,
) -> Path:
    from .helper import clarify

    config = load_config(config_path)
    gateway = Gateway(config, providers=providers)
    ledger = Ledger()
    chosen = answerer or (file_answers(answers) if answers else terminal_answers())
    out.mkdir(parents=True, exist_ok=True)
    try:
        result = await clarify(prompt, gateway, chosen, ledger)
        (out / "clarify.json").write_text(
            json.dumps([r.model_dump() for r in result.rounds], indent=1) + "\n"
        )
        await Planner(gateway, ledger).plan(result.spec, out)
    finally:
        calls = [json.loads(x.model_dump_json()) for x in ledger.exchanges]
        (out / "planning_calls.json").write_text(json.dumps(calls, indent=1) + "\n")
    return out / "design.yaml"
