"""The design loop's state table (host/phases.py): complete, reachable, enforced, and the
one ARCHITECTURE.md shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from silicon_agent.host.loop import BlockLoop
from silicon_agent.host.phases import (
    TERMINAL,
    TRANSITIONS,
    IllegalTransition,
    Phase,
    architecture_section,
    check,
    markdown,
    reachable,
)
from silicon_agent.host.state import BlockState

ROOT = Path(__file__).resolve().parents[2]


def test_architecture_shows_the_table_as_generated() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text()
    start, end = architecture_section(text)
    shown = text[start:end].split("\n", 1)[1].rsplit("\n", 1)[0] + "\n"
    assert shown == markdown(), "run: python -m silicon_agent.host.phases --write"


def test_every_phase_is_reachable_from_the_start() -> None:
    assert reachable() == set(Phase)


def test_every_phase_but_done_has_an_exit_and_done_only_outside_ones() -> None:
    for phase in Phase:
        exits = [e for e in TRANSITIONS if e.source == phase and e.target != phase]
        if phase in TERMINAL:
            assert {e.by for e in exits} <= {"orchestrator", "checkpoint"}
        else:
            assert exits, f"{phase} has no way out"


def test_every_phase_a_step_can_be_in_has_its_handler() -> None:
    handlers = BlockLoop.handlers(BlockLoop.__new__(BlockLoop))
    assert set(handlers) == set(Phase) - TERMINAL - {Phase.START}


@pytest.mark.parametrize(
    ("source", "target"),
    [("check", "done"), ("start", "simulate"), ("done", "synth"), ("write", "nowhere")],
)
def test_a_move_outside_the_table_is_refused(source: str, target: str) -> None:
    with pytest.raises(IllegalTransition):
        check(source, target, "test")


def test_a_checkpoint_keeps_its_phase_text() -> None:
    """Checkpoints written before the enum load, and dump the same text."""
    state = BlockState.model_validate_json('{"name": "crc", "phase": "debug"}')
    assert state.phase is Phase.DEBUG
    assert '"phase":"debug"' in state.model_dump_json()


def test_every_tool_the_host_or_a_role_calls_is_in_its_servers_manifest() -> None:
    """Servers and tools are named once (roles/prompts.py); each name is a tool its server's
    golden manifest holds, so a renamed tool fails here rather than in a run."""
    import json

    from silicon_agent.host.roles.prompts import HOST_TOOLS, ROLE_TOOLS

    names = {*HOST_TOOLS.values(), *(n for names in ROLE_TOOLS.values() for n in names)}
    for name in sorted(names):
        server, tool = name.split(".", 1)
        manifest = json.loads((ROOT / "servers" / server / "manifest.json").read_text())
        assert tool in manifest["tools"], name


def test_the_loop_names_no_server() -> None:
    """The loop asks for a use (HOST_TOOLS); only the design file names simulators."""
    import re

    from silicon_agent.suite.servers import SERVER_NAMES

    for path in [ROOT / "host" / "loop.py", *sorted((ROOT / "host" / "steps").glob("*.py"))]:
        text = path.read_text()
        for name in SERVER_NAMES:
            calls = re.findall(rf'tool\(\s*"{name}"|has\(\s*"{name}"', text)
            assert not calls, f"{path.relative_to(ROOT)} calls {name} by name"
