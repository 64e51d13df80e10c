"""A block's phase is written in one place per taker: the step driver (`BlockLoop.move`, which
applies the `Step` a handler returns), the orchestrator and the checkpoint, each through the
state table's check. No handler, hook or other module assigns `.phase`."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from silicon_agent.host.loop import BlockLoop
from silicon_agent.host.phases import Step

ROOT = Path(__file__).resolve().parents[2]
# Where a phase may be written, and what through: the driver applies a transition's target;
# the orchestrator and the checkpoint write what `check` returns for their own edges.
WRITERS = {
    "host/loop.py": {"move"},
    "host/orchestrator.py": None,
    "host/state.py": None,
    "host/run_setup.py": None,  # a provided block starts done, along the checkpoint's edge
}


def phase_writes(tree: ast.AST) -> list[tuple[str, ast.AST, int]]:
    """(enclosing function, assigned value, line) of every `<x>.phase = …` in a module."""
    found: list[tuple[str, ast.AST, int]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = function
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = child.name
            targets: list[ast.expr] = []
            value: ast.AST | None = None
            if isinstance(child, ast.Assign):
                targets, value = child.targets, child.value
            elif isinstance(child, ast.AugAssign | ast.AnnAssign):
                targets, value = [child.target], child.value
            for target in targets:
                elements = target.elts if isinstance(target, ast.Tuple) else [target]
                for element in elements:
                    if isinstance(element, ast.Attribute) and element.attr == "phase":
                        found.append((name, value or child, child.lineno))
            if isinstance(child, ast.Dict):  # a copy or a load: `{"phase": …}` writes one too
                for key, item in zip(child.keys, child.values, strict=True):
                    if isinstance(key, ast.Constant) and key.value == "phase":
                        found.append((name, item, child.lineno))
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Name)
                and child.func.id == "setattr"
                and len(child.args) > 1
                and isinstance(child.args[1], ast.Constant)
                and child.args[1].value == "phase"
            ):
                found.append((name, child, child.lineno))
            visit(child, name)

    visit(tree, "<module>")
    return found


def test_only_the_driver_the_orchestrator_and_the_checkpoint_write_a_phase() -> None:
    stray = []
    for path in sorted((ROOT / "host").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for function, value, line in phase_writes(ast.parse(path.read_text())):
            if rel not in WRITERS:
                stray.append(f"{rel}:{line} in {function}")
                continue
            allowed = WRITERS[rel]
            if allowed is not None and function not in allowed:
                stray.append(f"{rel}:{line} in {function} (only {sorted(allowed)} may)")
            elif allowed is None and not (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and value.func.id == "check"
            ):
                stray.append(f"{rel}:{line} in {function}: not through phases.check")
    assert not stray, "a phase written outside the state machine's takers:\n" + "\n".join(stray)


def test_the_scan_sees_a_handler_that_writes_its_phase() -> None:
    source = "class L:\n    async def do_x(self, state):\n        state.phase = 'write'\n"
    assert [(f, line) for f, _, line in phase_writes(ast.parse(source))] == [("do_x", 3)]


def test_the_scan_sees_a_phase_written_through_a_copy() -> None:
    source = "def f(s):\n    return s.model_copy(update={'phase': 'done'})\n"
    assert [(f, line) for f, _, line in phase_writes(ast.parse(source))] == [("f", 2)]


def test_every_step_handler_returns_a_typed_step() -> None:
    loop = BlockLoop.__new__(BlockLoop)
    for phase, handler in loop.handlers().items():
        returned = inspect.get_annotations(handler).get("return")
        assert returned in ("Step", Step), f"the {phase} step returns {returned}, not a Step"
