"""The waveform server reads nothing outside its workspace: dumps, golden files and the RTL
sources of explain_mismatch (and their includes), whether the link was made by the user or
planted by a sandboxed run in its scratch."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.vcd.api import Waves
from tests.conftest import plant_link

from .vcdgen import write_vcd

pytestmark = pytest.mark.anyio
SECRET = "sa_outside_secret_4711"


def _dump(path: Path) -> None:
    changes = [(0, "clk", "0"), (0, "q", "0000")]
    for c in range(6):
        changes += [(10 * c + 5, "clk", "1"), (10 * c + 10, "clk", "0"), (10 * c + 5, "q", "0001")]
    write_vcd(path, [("clk", 1), ("q", 4)], changes, scope="top", end=70)


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the workspace with a dump, a golden file and an include in it."""
    folder = Path(tempfile.mkdtemp(prefix="sa-outside-"))
    folder.chmod(0o755)
    _dump(folder / "other.vcd")
    (folder / "gold.hex").write_text("0\n1\n")
    (folder / "secret.svh").write_text(f"{SECRET} leak_me;\n")
    for path in folder.iterdir():
        path.chmod(0o644)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def root(outside: Path) -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="sa-ws-links-"))
    folder.chmod(0o755)
    _dump(folder / "w.vcd")
    (folder / "w.vcd").chmod(0o644)
    (folder / "other.vcd").symlink_to(outside / "other.vcd")
    (folder / "passwd.vcd").symlink_to("/etc/passwd")
    (folder / "gold.hex").symlink_to(outside / "gold.hex")
    (folder / "inc").symlink_to(outside)
    module = "module top(input clk, output reg [3:0] q);\n{}\nendmodule\n"
    (folder / "abs.sv").write_text(module.format(f'`include "{outside}/secret.svh"'))
    (folder / "via_link.sv").write_text(module.format('`include "inc/secret.svh"'))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _refused(result: object, argument: str) -> str:
    assert result.ok is False, result  # type: ignore[attr-defined]
    error = result.error  # type: ignore[attr-defined]
    assert error.argument == argument, error
    text = result.model_dump_json()  # type: ignore[attr-defined]
    assert SECRET not in text and "root:" not in text
    return error.message


async def test_dumps_and_golden_files_behind_links_are_refused(root: Path) -> None:
    waves = Waves(Workspace.open(root))
    for name in ("other.vcd", "passwd.vcd", "inc/other.vcd"):
        assert "outside the workspace" in _refused(await waves.summary(name), "file")
    compared = await waves.compare("w.vcd", "other.vcd", signals=["q"])
    assert "outside the workspace" in _refused(compared, "reference")
    vectors = await waves.compare("w.vcd", "gold.hex", vector_signal="q", clock="clk")
    assert "outside the workspace" in _refused(vectors, "reference")
    assert (await waves.summary("w.vcd")).ok


async def test_a_link_planted_in_a_scratch_is_refused(root: Path) -> None:
    ws = Workspace.open(root)
    link = await plant_link(ws.new_scratch("iverilog"), ws.root, "/etc/passwd", "waves.vcd")
    waves = Waves(ws)
    result = await waves.summary(ws.relative(link.parent) + "/waves.vcd")
    assert "outside the workspace" in _refused(result, "file")


async def test_explain_mismatch_never_quotes_an_include_outside(root: Path) -> None:
    waves = Waves(Workspace.open(root))
    for source in ("abs.sv", "via_link.sv"):
        result = await waves.explain_mismatch("w.vcd", "q", 20, sources=[source])
        assert "reaches outside the workspace" in _refused(result, "include")
