"""Second red team, the trace judge: can a design make the server's own trace agree with a
forged report, stand in for a module the server compiles, or read the expected beats; and can
a trace argument smuggle text into the module the server writes."""

from __future__ import annotations

import asyncio
import copy
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Category, Status, ToolResult
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.verilator.api import Verilator
from tests.conftest import EXAMPLES, example_trace

from .conftest import TB_COUNTER, put
from .test_rt2_design_text import counter
from .test_rt_trace_judge import RIGHT_COUNTER

GOOD = RIGHT_COUNTER.format(extra="  assign count_o = count_r;")


def tool(name: str, workspace: Workspace) -> Icarus | Verilator:
    sim = Icarus(workspace) if name == "iverilog" else Verilator(workspace)
    if not sim.tool.available:
        pytest.skip(f"{name} is not installed")
    return sim


def run(sim: Icarus | Verilator, design: list[str], **kw: object) -> ToolResult:
    return asyncio.run(
        sim.run_testbench(design, [TB_COUNTER], top="tb_counter", timeout_s=180, **kw)  # type: ignore[arg-type]
    )


@pytest.mark.slow
def test_trace_judge_catches_a_design_that_starves_its_stream(
    workspace: Workspace, adv_root
) -> None:
    sim = tool("verilator", workspace)
    design = put(adv_root, "rt2t/starve.sv", counter("ref logic", "  always @(en_i) en_i <= 1'b0;"))
    result = run(sim, [design], trace=example_trace("counter"))
    assert result.status != Status.PASS, (result.summary, result.trace)


@pytest.mark.parametrize("sim", ["iverilog", pytest.param("verilator", marks=pytest.mark.slow)])
def test_design_cannot_stand_in_for_the_wave_dump_module(
    sim: str, workspace: Workspace, adv_root, request: pytest.FixtureRequest
) -> None:
    text = GOOD + "module sa_wave_dump;\nendmodule\n"
    design = put(adv_root, f"rt2t/dump_{sim}.sv", text)
    result = run(tool(sim, workspace), [design], waves="vcd")
    assert result.status != Status.PASS, result.summary


@pytest.fixture(scope="module")
def private_root() -> Iterator[Path]:
    """A workspace only its owner enters (mode 0700, as mkdtemp makes it), with tb_counter."""
    root = Path(tempfile.mkdtemp(prefix="sa-rt2-tj-"))
    put(root, TB_COUNTER, (EXAMPLES / "counter" / "tb_counter.sv").read_text())
    root.chmod(0o700)
    yield root
    shutil.rmtree(root, ignore_errors=True)


# Right only when the ROM read gave the hidden file's 00: a PASS proves the design read it.
ROM_READER = RIGHT_COUNTER.format(
    extra='  logic [7:0] m[0:0];\n  initial $readmemh("rt2t/beats.hex", m);\n'
    "  assign count_o = (m[0] === 8'h00) ? count_r : ~count_r;"
)


@pytest.mark.parametrize("kind", ["open", "private"])
def test_hidden_beats_through_a_link_are_not_read_as_a_rom(
    kind: str, adv_root: Path, private_root: Path, request: pytest.FixtureRequest
) -> None:
    root = adv_root if kind == "open" else private_root
    workspace = Workspace.open(root)
    # As hdl/sim.py keeps expected beats: a 0700 folder under .silicon-agent/hidden.
    folder = workspace.keep_dir("hidden") / f"rt2-{uuid.uuid4().hex[:8]}"
    folder.mkdir(mode=0o700)
    (folder / "beats.hex").write_text("00\n")
    (root / "rt2t").mkdir(exist_ok=True)
    link = root / "rt2t" / "beats.hex"
    link.unlink(missing_ok=True)
    link.symlink_to(folder / "beats.hex")
    (root / "rt2t" / "rom.sv").write_text(ROM_READER)
    (root / "rt2t").chmod(0o755)
    (root / "rt2t" / "rom.sv").chmod(0o644)
    result = run(Icarus(workspace), ["rt2t/rom.sv", "rt2t/beats.hex"])
    assert result.status != Status.PASS, result.summary


def spec_with(**changes: object) -> dict:
    spec = copy.deepcopy(example_trace("counter"))
    stream = changes.pop("stream", None)
    if stream:
        spec["streams"][0].update(stream)
    spec.update(changes)
    return spec


# Trace arguments that would put text of the caller's into the module the server compiles, or
# point its reads outside the workspace.
SPECS = {
    "dut_path_closes_the_statement": spec_with(dut='dut); initial $display("x'),
    "data_port_reads_the_model": spec_with(stream={"data": "count_o, tb_counter.model_r"}),
    "clock_through_root": spec_with(clock="$root.tb_counter.clk"),
    "expected_outside_workspace": spec_with(expected="/etc/passwd"),
    "expected_walks_up": spec_with(expected="../../../../etc/hostname"),
    "valid_is_a_comment": spec_with(stream={"valid": "en_i //"}),
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_trace_argument_cannot_inject_or_escape(name: str, workspace: Workspace, adv_root) -> None:
    design = put(adv_root, "rt2t/good.sv", GOOD)
    result = run(Icarus(workspace), [design], trace=SPECS[name])
    assert result.status == Status.INVALID_INPUT, (name, result.summary)
    assert result.diagnostics[0].category == Category.INVALID_INPUT
    assert "trace" in result.diagnostics[0].message
