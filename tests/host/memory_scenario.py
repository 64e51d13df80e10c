"""Two counters with the same off-by-one bug for the task-memory tests: block A is fixed by
its Debug step; block B's Debug step gives the right fix at once only when A's note (its fix
summary carries a tag) is in its prompt, else it tries a wrong fix first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .scenario import COUNTER_IFACE, REFLECTION, block, code_reply, counter_code, counter_tb

BUG = "(count_r == WIDTH'(5)) ? count_r + 2'd2 : count_r + 1'b1"
# Adds two on every cycle: more mismatches than the bug it was meant to fix (made worse).
WRONG_FIX = "count_r + 2'd2"
TAG = "SKIP_AT_FIVE_FIX"
SPEC = "An 8-bit up-counter: counts enabled cycles, synchronous active-low reset."

NOTE_A = {
    "structured": {
        "hypothesis": "the counter skips a value: a special case adds two at count five",
        "fix_summary": f"{TAG}: removed the special case so every enabled cycle adds one",
        "keywords": ["off-by-one", "increment", "count_o"],
    }
}
NOTE_B = {
    "structured": {
        "hypothesis": "the increment has a special case at five",
        "fix_summary": "changed the special-case increment",
        "keywords": ["increment"],
    }
}


def write_design(root: Path, names: list[str], file: str = "design.yaml") -> Path:
    (root / "verif").mkdir(parents=True, exist_ok=True)
    entries = []
    for name in names:
        (root / "verif" / f"tb_{name}.sv").write_text(counter_tb(name))
        entries.append(block(name, SPEC, COUNTER_IFACE.format(m=name)))
    path = root / file
    path.write_text(
        yaml.safe_dump(
            {"name": "memory-test", "workspace": ".", "blocks": entries}, sort_keys=False
        )
    )
    return path


def rules() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def rule(match: list[str], reply: dict[str, Any]) -> None:
        out.append({"match": match, "reply": reply})

    for name, note in (("counter_a", NOTE_A), ("counter_b", NOTE_B)):
        rule([f"Block: {name}\n", "Step: remember"], note)
        rule([f"Block: {name}\n", "Step: reflect"], REFLECTION)
    rule(["Block: counter_a\n", "Step: write"], code_reply(counter_code("counter_a", BUG)))
    rule(["Block: counter_a\n", "Step: debug"], code_reply(counter_code("counter_a")))
    rule(["Block: counter_b\n", "Step: write"], code_reply(counter_code("counter_b", BUG)))
    # With A's note in the prompt, B's fix is right the first time.
    rule(["Block: counter_b\n", "Step: debug", TAG], code_reply(counter_code("counter_b")))
    rule(
        ["Block: counter_b\n", "Step: debug", "Attempt: 2 of"],
        code_reply(counter_code("counter_b", WRONG_FIX)),
    )
    rule(["Block: counter_b\n", "Step: debug"], code_reply(counter_code("counter_b")))
    return out


def write_config(root: Path, memory: dict[str, Any] | None) -> Path:
    script = root / "script.yaml"
    script.write_text(yaml.safe_dump({"rules": rules()}, sort_keys=False))
    model = {"provider": "scripted", "model": "scripted-large"}
    config: dict[str, Any] = {
        "providers": {"scripted": {"kind": "scripted", "script": str(script)}},
        "roles": {"default": {"model": model, "max_tokens": 1024}},
        "limits": {
            "max_iterations": 6,
            "stagnation_repeats": 3,
            "parallel_blocks": 1,
            "smoke_testbench": False,
        },
        "retry": {"attempts": 1, "base_delay_s": 0.01, "max_delay_s": 0.05},
    }
    if memory is not None:
        config["memory"] = memory
    path = root / "host.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path
