"""Planning-phase overhead, measured side by side in one run: the two-level plan (three
clarify/decompose/testbench calls per node, Icarus builds of every testbench against its
stub) with a scripted team that takes DELAY seconds per model call, against the model time
alone; plus approval and the content-hash check every `run`/`resume`/`answer` does."""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from silicon_agent.host.planning.approval import approve, check_approved
from silicon_agent.host.planning.helper import file_answers
from silicon_agent.host.planning.session import plan_design
from tests.planning.scenario import sumreg_rules, write_config

DELAY = 0.2


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="plan-bench-"))
    try:
        rules = [{**r, "delay_s": DELAY} for r in sumreg_rules()]
        config = write_config(root, rules)
        answers = root / "answers.yaml"
        answers.write_text(yaml.safe_dump({"overflow": "yes"}))
        out = root / "plan"
        started = time.perf_counter()
        asyncio.run(
            plan_design(
                "register the 8-bit sum",
                out,
                config_path=str(config),
                answerer=file_answers(answers),
            )
        )
        wall = time.perf_counter() - started
        calls = len(yaml.safe_load((out / "planning_calls.json").read_text()))
        model = calls * DELAY
        started = time.perf_counter()
        approve(out)
        approve_s = time.perf_counter() - started
        started = time.perf_counter()
        for _ in range(20):
            check_approved(out)
        check_s = (time.perf_counter() - started) / 20
        print(
            f"plan: {calls} model calls, wall {wall:.2f} s, model {model:.2f} s, "
            f"host+tools {wall - model:.2f} s -> ratio host/wall {(wall - model) / wall:.2f}"
        )
        print(
            f"approve: {approve_s * 1000:.1f} ms; approval check per run: "
            f"{check_s * 1000:.2f} ms = {check_s / wall:.4f} of planning wall time"
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
