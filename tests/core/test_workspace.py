"""Workspace confinement: every refusal is an InvalidInput naming the argument."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from silicon_agent.servers.core.workspace import InvalidInput, Workspace, atomic_write


def test_relative_and_absolute_inside_resolve(workspace_dir: Path) -> None:
    ws = Workspace.open(workspace_dir)
    rel = ws.resolve("examples/counter/counter.sv")
    absolute = ws.resolve(str(workspace_dir / "examples/counter/counter.sv"))
    assert rel == absolute == (workspace_dir / "examples/counter/counter.sv").resolve()
    assert ws.relative(rel) == "examples/counter/counter.sv"


@pytest.mark.parametrize(
    "path",
    ["../etc/passwd", "examples/../../x.sv", "/etc/passwd", "/tmp"],
)
def test_paths_outside_are_refused(workspace_dir: Path, path: str) -> None:
    ws = Workspace.open(workspace_dir)
    with pytest.raises(InvalidInput, match="outside the workspace"):
        ws.resolve(path, argument="sources")


def test_symlink_escape_is_refused(workspace_dir: Path) -> None:
    ws = Workspace.open(workspace_dir)
    (workspace_dir / "escape.sv").symlink_to("/etc/hostname")
    with pytest.raises(InvalidInput, match="outside the workspace"):
        ws.resolve("escape.sv")


def test_symlink_inside_is_followed(workspace_dir: Path) -> None:
    ws = Workspace.open(workspace_dir)
    (workspace_dir / "alias.sv").symlink_to(workspace_dir / "examples/counter/counter.sv")
    assert ws.resolve("alias.sv").name == "counter.sv"


@pytest.mark.parametrize("name", ["-o.sv", "+define+X.sv", "sub/-Wall"])
def test_option_like_names_are_refused(workspace_dir: Path, name: str) -> None:
    ws = Workspace.open(workspace_dir)
    target = workspace_dir / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("module m; endmodule\n")
    with pytest.raises(InvalidInput, match="option") as info:
        ws.resolve(name, argument="sources")
    assert info.value.argument == "sources"


def test_missing_and_wrong_kind(workspace_dir: Path) -> None:
    ws = Workspace.open(workspace_dir)
    with pytest.raises(InvalidInput, match="does not exist"):
        ws.resolve("nope.sv")
    with pytest.raises(InvalidInput, match="not a regular file"):
        ws.resolve("examples")
    with pytest.raises(InvalidInput, match="not a directory"):
        ws.resolve("examples/counter/counter.sv", kind="dir")
    with pytest.raises(InvalidInput, match="NUL"):
        ws.resolve("a\x00b")


def test_root_from_environment(workspace_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SILICON_AGENT_WORKSPACE", str(workspace_dir))
    assert Workspace.open().root == workspace_dir.resolve()
    assert Workspace.open(workspace_dir / "examples").root == (workspace_dir / "examples")


def test_atomic_write_leaves_no_temp_files(workspace_dir: Path) -> None:
    target = workspace_dir / "out" / "result.json"
    atomic_write(target, "one")
    atomic_write(target, b"two")
    assert target.read_text() == "two"
    assert os.listdir(target.parent) == ["result.json"]
    assert target.stat().st_mode & 0o777 == 0o644


def test_scratch_dirs_are_distinct(workspace_dir: Path) -> None:
    ws = Workspace.open(workspace_dir)
    first, second = ws.new_scratch("x"), ws.new_scratch("x")
    assert first != second and first.is_dir() and second.is_dir()
    assert ws.state_dir in first.parents


def test_scratch_is_pruned_to_a_bound(workspace_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import silicon_agent.servers.core.workspace as workspace_module

    monkeypatch.setattr(workspace_module, "KEEP_SCRATCH", 5)
    monkeypatch.setattr(workspace_module, "PRUNE_SLACK", 2)
    ws = Workspace.open(workspace_dir)
    made = []
    for i in range(12):
        made.append(ws.new_scratch("p"))
        os.utime(made[-1], (1_000_000 + i, 1_000_000 + i))
    left = sorted((ws.state_dir / "scratch").iterdir())
    assert len(left) <= 5 + 2 + 1
    assert made[-1] in left and made[0] not in left
