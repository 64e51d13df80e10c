"""Second red team, include resolution: the testbench's own `include is resolved by the
simulator, from the compile's working directory (the workspace root). A file planted there
under the name of the testbench's harness replaces the harness on a simulator that searches
the working directory first. A mutated crc_checker (off-by-one CRC tap, caught by its
testbench) is the design throughout; the harness planted at the root prints a clean report."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.hdl.registry import block_trace, load_registry
from silicon_agent.hdl.sim import VectorCase, VectorSet
from silicon_agent.servers.core.models import Status, ToolResult
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.verilator.api import Verilator
from tests.conftest import make_world_readable_dir

from .conftest import TB_COUNTER, put, wrong_counter

REPO = Path(__file__).resolve().parents[2]
TAP = "(first_r ? 1'b0 : crc_r[CRC_W-1])"
DESIGN = ["hdl/pkg/lte_baseband_pkg.sv", "hdl/rtl/crc_checker.sv"]
TB = "hdl/tb/tb_crc_checker.sv"


def forged_harness() -> str:
    """The real harness with its report made clean: no MISMATCH line, no counted error."""
    text = (REPO / "hdl/tb/tb_harness.svh").read_text()
    forged = text.replace("errors = errors + 1; \\", "if (0) \\").replace(
        '$display("%sMismatches: %0d in %0d samples", tb_verdict_tag(), errors, samples)',
        '$display("%sMismatches: 0 in %0d samples", tb_verdict_tag(), samples + 1)',
    )
    assert forged.count("if (0)") == 1 and "samples + 1)" in forged
    return forged


def crc_workspace(plant: bool) -> tuple[Path, Workspace, VectorCase]:
    root = make_world_readable_dir("sa-rt2-inc-")
    for sub in ("hdl/tb", "hdl/pkg"):
        shutil.copytree(REPO / sub, root / sub)
    rtl = (REPO / "hdl/rtl/crc_checker.sv").read_text()
    assert TAP in rtl
    put(root, "hdl/rtl/crc_checker.sv", rtl.replace(TAP, "(first_r ? 1'b0 : crc_r[CRC_W-2])"))
    if plant:
        put(root, "tb_harness.svh", forged_harness())
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            Path(dirpath, name).chmod(0o755)
        for name in filenames:
            Path(dirpath, name).chmod(0o644)
    workspace = Workspace.open(root)
    block = next(b for b in load_registry().blocks if b.name == "crc_checker")
    case = VectorSet(workspace).generate(block, only=None)[0]
    return root, workspace, case


@pytest.fixture(scope="module")
def planted() -> Iterator[tuple[Path, Workspace, VectorCase]]:
    made = crc_workspace(plant=True)
    yield made
    shutil.rmtree(made[0], ignore_errors=True)


def crc_run(tool: Icarus | Verilator, case: VectorCase, trace: bool) -> ToolResult:
    spec = None
    if trace:
        block = next(b for b in load_registry().blocks if b.name == "crc_checker")
        spec = block_trace(block).spec(case.expected).model_dump()  # type: ignore[union-attr]
    return asyncio.run(
        tool.run_testbench(
            DESIGN[1:],
            # The shared package is the testbench's (a design may not define it).
            [DESIGN[0], TB],
            top="tb_crc_checker",
            include_dirs=["hdl/tb"],
            plusargs=[*case.plusargs, "SEED=1"],
            trace=spec,
            timeout_s=300,
        )
    )


def test_planted_harness_at_the_root_is_not_read_by_iverilog(planted) -> None:
    _, workspace, case = planted
    result = crc_run(Icarus(workspace), case, trace=False)
    assert result.status != Status.PASS, result.summary


@pytest.mark.slow
def test_planted_harness_at_the_root_is_not_read_by_verilator(planted) -> None:
    _, workspace, case = planted
    tool = Verilator(workspace)
    if not tool.tool.available:
        pytest.skip("verilator is not installed")
    result = crc_run(tool, case, trace=False)
    assert result.status == Status.SIM_FAIL, result.summary


def test_with_a_trace_the_planted_harness_run_is_no_pass(planted) -> None:
    # Icarus compiles the real harness, so the mutant fails and the trace agrees; had the
    # planted one been read, the trace judge would have withheld its PASS.
    _, workspace, case = planted
    result = crc_run(Icarus(workspace), case, trace=True)
    assert result.status in (Status.SIM_FAIL, Status.INVALID_INPUT), result.summary
    assert result.trace is not None, result.summary


# Designs on the counter that reach for the testbench's side through includes.
INCLUDES: dict[str, dict[str, str]] = {
    # An include that walks up out of the workspace.
    "include_walks_up": {"rt2i/a.sv": wrong_counter('`include "../../../../etc/hostname"')},
    # An include through a link that leads into the suite's state folder.
    "include_through_link_into_state": {"rt2i/b.sv": wrong_counter('`include "rt2i/state/x"')},
    # An include of a file under /proc, which the server would read outside the sandbox.
    "include_of_proc_file": {"rt2i/c.sv": wrong_counter('`include "/proc/self/environ"')},
    # A macro-built include name (the closure only sees the literal).
    "include_name_from_macro": {
        "rt2i/d.sv": '`define P "/etc/hostname"\n' + wrong_counter("`include `P"),
    },
    # An include of a directory.
    "include_of_directory": {"rt2i/e.sv": wrong_counter('`include "rt2i"')},
}


@pytest.mark.parametrize("sim", ["iverilog", "verilator"])
@pytest.mark.parametrize("name", sorted(INCLUDES))
def test_design_includes_are_refused_before_any_read(
    name: str, sim: str, workspace: Workspace, adv_root: Path
) -> None:
    tool = Icarus(workspace) if sim == "iverilog" else Verilator(workspace)
    if not tool.tool.available:
        pytest.skip(f"{sim} is not installed")
    link = adv_root / "rt2i" / "state"
    (adv_root / "rt2i").mkdir(exist_ok=True)
    (adv_root / "rt2i").chmod(0o755)
    if not link.is_symlink():
        link.symlink_to(workspace.keep_dir("hidden"))
    (workspace.keep_dir("hidden") / "x").write_text("  initial #1 $finish;\n")
    files = INCLUDES[name]
    for relative, text in files.items():
        put(adv_root, relative, text)
    result = asyncio.run(tool.run_testbench(list(files), [TB_COUNTER], timeout_s=180))
    # Refused before any tool (or slang, in the server) reads the file; nothing of it quoted.
    assert result.status == Status.INVALID_INPUT, (name, result.summary)
    assert "include" in result.summary
    assert "PATH=" not in result.model_dump_json()
