"""`agent-host bench hdl/blocks.yaml`: the receiver's pass table. Each block of a design with
generated vectors is one problem, designed alone (the others verified dependencies) against
its hidden testbench; no run ever sees a reference (an oracle-free pass rate). Per block:
outcome, iterations, tokens, cost and wall time."""

from __future__ import annotations

import time
from pathlib import Path

import yaml
from pydantic import BaseModel, Field

from silicon_agent.host.design_file import load_design

from .run_setup import create_run
from .runs import execute_run
from .state import DONE, StateStore


class BlockResult(BaseModel):
    block: str
    status: str
    passed: bool
    iterations: int
    tokens: int
    cost_usd: float
    wall_s: float
    run_id: str
    escalation: str = ""


class ModemBench(BaseModel):
    suite: str
    blocks: list[BlockResult] = Field(default_factory=list)
    pass_rate: float = 0.0
    mean_iterations: float = 0.0
    tokens: int = 0
    cost_usd: float = 0.0


def is_generated_design(path: Path) -> bool:
    try:
        return load_design(path).design.generated
    except Exception:  # not a design: a bench suite file
        return False


async def run_modem_bench(
    design_path: Path,
    runs_dir: Path,
    config_path: str | None = None,
    mcp_path: str | None = None,
    blocks: list[str] | None = None,
) -> ModemBench:
    design = load_design(design_path).design
    names = [b.name for b in design.blocks if not blocks or b.name in blocks]
    result = ModemBench(suite=design.name)
    for name in names:
        run_id = f"bench-{design.name}-{name}-{int(time.time())}"
        started = time.monotonic()
        run = create_run(design_path, runs_dir, config_path, mcp_path, [name], run_id)
        state = (await execute_run(run))[name]
        store = StateStore(run / "state.sqlite")
        try:
            events = store.events()
        finally:
            store.close()
        result.blocks.append(
            BlockResult(
                block=name,
                status=str(state.status),
                passed=state.status in DONE,
                iterations=state.iteration,
                tokens=sum(e.input_tokens + e.output_tokens for _, e in events),
                cost_usd=round(sum(e.cost_usd for _, e in events), 6),
                wall_s=round(time.monotonic() - started, 2),
                run_id=run_id,
                escalation=str((state.escalation or {}).get("reason") or ""),
            )
        )
    count = max(1, len(result.blocks))
    result.pass_rate = sum(b.passed for b in result.blocks) / count
    result.mean_iterations = sum(b.iterations for b in result.blocks) / count
    result.tokens = sum(b.tokens for b in result.blocks)
    result.cost_usd = round(sum(b.cost_usd for b in result.blocks), 6)
    out = runs_dir / f"bench-{design.name}.json"
    out.write_text(yaml.safe_dump(result.model_dump(), sort_keys=False))
    return result
