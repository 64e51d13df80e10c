"""Servers never read through links out of the workspace: the core read helpers, snippets of
diagnostics (links a sandboxed run planted in its scratch, names a tool was made to print),
and both simulators' diagnostics of a testbench that names a host file."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Category, Diagnostic, Severity, Status
from silicon_agent.servers.core.sv.enrich import add_snippets
from silicon_agent.servers.core.workspace import InvalidInput, Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.verilator.api import Verilator
from tests.conftest import plant_link

SECRET = "sa_outside_secret_4711"


@pytest.fixture
def outside() -> Iterator[Path]:
    """A readable file outside any workspace."""
    folder = Path(tempfile.mkdtemp(prefix="sa-outside-"))
    folder.chmod(0o755)
    path = folder / "secret.sv"
    path.write_text(f"module {SECRET};\nendmodule\n// {SECRET}\n")
    path.chmod(0o644)
    yield path
    shutil.rmtree(folder, ignore_errors=True)


def test_read_helpers_refuse_links_out(workspace_dir: Path, outside: Path) -> None:
    ws = Workspace.open(workspace_dir)
    (workspace_dir / "passwd.sv").symlink_to("/etc/passwd")
    (workspace_dir / "out.sv").symlink_to(outside)
    (workspace_dir / "outdir").symlink_to(outside.parent)
    (workspace_dir / "in.sv").symlink_to(workspace_dir / "examples/counter/counter.sv")
    for name in ("passwd.sv", "out.sv", "outdir/secret.sv", "/etc/passwd", "../x"):
        with pytest.raises(InvalidInput, match="outside the workspace") as caught:
            ws.read_confined(name, argument="file")
        assert SECRET not in str(caught.value) and "root:" not in str(caught.value)
    assert b"module counter" in ws.read_confined("in.sv")
    assert ws.confine("in.sv") == workspace_dir / "examples/counter/counter.sv"
    assert ws.shown(str(outside)) == "secret.sv"
    assert ws.shown("outdir/secret.sv") == "secret.sv"
    assert ws.shown("in.sv") == "examples/counter/counter.sv"
    with pytest.raises(InvalidInput, match="max_bytes=10"):
        ws.read_confined("in.sv", max_bytes=10)


def test_a_fifo_is_refused_without_blocking(workspace_dir: Path) -> None:
    ws = Workspace.open(workspace_dir)
    os.mkfifo(workspace_dir / "pipe.sv")
    with pytest.raises(InvalidInput, match="not a regular file"):
        ws.read_confined("pipe.sv")


def test_snippets_never_follow_a_link_planted_by_a_run(workspace_dir: Path) -> None:
    ws = Workspace.open(workspace_dir)
    link = asyncio.run(plant_link(ws.new_scratch("plant"), ws.root, "/etc/passwd", "planted.sv"))
    named = [ws.relative(link), "/etc/passwd"]
    diagnostics = [
        Diagnostic(
            severity=Severity.ERROR,
            category=Category.SYNTAX_ERROR,
            file=name,
            line=1,
            message=f"{name}:1: syntax error",
            source="test",
        )
        for name in named
    ]
    shown = add_snippets(ws, diagnostics)
    assert [d.file for d in shown] == ["planted.sv", "passwd"]
    for diag in shown:
        assert diag.snippet is None
        assert "/etc/passwd" not in diag.model_dump_json()
        assert "root:" not in diag.model_dump_json()


# A testbench that makes the simulator report its $error at a host file.
TB_NAMES_HOST_FILE = """module tb_host_file;
  initial begin
`line 1 "/etc/passwd" 0
    $error("checker failed");
    $display("Mismatches: 1 in 1 samples");
    $finish;
  end
endmodule
"""


@pytest.mark.slow
def test_simulator_diagnostics_naming_a_host_file_are_redacted(workspace_dir: Path) -> None:
    (workspace_dir / "tb_host.sv").write_text(TB_NAMES_HOST_FILE)
    (workspace_dir / "tb_host.sv").chmod(0o644)
    (workspace_dir / "empty.sv").write_text("module empty_design;\nendmodule\n")
    (workspace_dir / "empty.sv").chmod(0o644)
    ws = Workspace.open(workspace_dir)
    for simulator in (Icarus(ws), Verilator(ws)):
        result = asyncio.run(simulator.run_testbench(["empty.sv"], ["tb_host.sv"], timeout_s=600))
        assert result.status == Status.SIM_FAIL, (simulator.name, result.summary)
        named = [d for d in result.diagnostics if d.file and "passwd" in d.file]
        assert named, (simulator.name, result.diagnostics)
        for diag in named:
            assert diag.file == "passwd" and diag.snippet is None
            assert "/etc/passwd" not in diag.model_dump_json()
        assert "root:" not in result.model_dump_json()
