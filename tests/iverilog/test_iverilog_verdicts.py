"""iverilog verdicts on real designs: PASS, SIM_FAIL with the first mismatch, COMPILE_FAIL
with file/line/column/category for each category we claim, TOOL_ERROR for tool crashes."""

from __future__ import annotations

from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Category, Severity, Status
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from tests.conftest import example_trace

pytestmark = pytest.mark.anyio
COUNTER_TB = ["examples/counter/tb_counter.sv"]
FIFO_TB = ["examples/fifo/tb_fifo.sv"]


@pytest.fixture
def icarus(workspace_dir: Path) -> Icarus:
    return Icarus(Workspace.open(workspace_dir))


async def test_passing_designs_pass(icarus: Icarus) -> None:
    counter = await icarus.run_testbench(
        ["examples/counter/counter.sv"],
        COUNTER_TB,
        top="tb_counter",
        trace=example_trace("counter"),
    )
    fifo = await icarus.run_testbench(
        ["examples/fifo/fifo.sv"], FIFO_TB, top="tb_fifo", trace=example_trace("fifo")
    )
    for result in (counter, fifo):
        assert result.status == Status.PASS, result.summary
        # The trace judge agrees: its own beats matched (the counter's ramp, the FIFO's input).
        assert result.trace and result.trace.passed and result.trace.agrees, result.trace
        assert result.trace.beats > 100
        assert result.mismatch_count == 0 and result.samples and result.samples > 100
        assert result.exit_code == 0 and not result.timed_out
        assert result.tool == "iverilog" and result.tool_version
        assert (icarus.workspace.root / result.artifacts["log"]).is_file()


async def test_functional_bug_gives_first_mismatch(icarus: Icarus) -> None:
    result = await icarus.run_testbench(
        ["examples/counter/counter_broken.sv"],
        COUNTER_TB,
        top="tb_counter",
        trace=example_trace("counter"),
    )
    assert result.status == Status.SIM_FAIL
    assert result.trace and not result.trace.passed and result.trace.agrees
    assert result.trace.first_mismatch and result.trace.first_mismatch.actual == "07"
    assert result.first_mismatch is not None
    assert result.first_mismatch.signal == "count_o"
    # The broken counter jumps 5 -> 7: the first wrong value is 07 where 06 was due.
    assert (result.first_mismatch.expected, result.first_mismatch.actual) == ("06", "07")
    assert result.mismatch_count and result.mismatch_count > 1
    assert result.diagnostics[0].category == Category.SIM_MISMATCH


async def test_backpressure_bug_is_caught(icarus: Icarus) -> None:
    result = await icarus.run_testbench(
        ["examples/fifo/fifo_broken.sv"], FIFO_TB, top="tb_fifo", trace=example_trace("fifo")
    )
    assert result.status == Status.SIM_FAIL
    assert result.trace and not result.trace.passed and result.trace.agrees
    assert result.first_mismatch and result.first_mismatch.signal == "m_axis_tdata_o"


@pytest.mark.parametrize(
    ("fixture", "category", "line", "column"),
    [
        ("syntax_error.sv", Category.SYNTAX_ERROR, 2, 15),
        ("undeclared.sv", Category.UNDECLARED_IDENTIFIER, 3, 21),
        ("missing_module.sv", Category.MISSING_MODULE, 2, 3),
        ("port_mismatch.sv", Category.PORT_MISMATCH, 5, 23),
        ("unsupported_inside.sv", Category.UNSUPPORTED_CONSTRUCT, 2, 16),
    ],
)
async def test_compile_errors_are_located_and_categorised(
    icarus: Icarus, fixture: str, category: Category, line: int, column: int
) -> None:
    result = await icarus.compile([f"sv/{fixture}"])
    assert result.status == Status.COMPILE_FAIL
    first = next(d for d in result.diagnostics if d.severity == Severity.ERROR)
    assert (first.category, first.file, first.line, first.column) == (
        category,
        f"sv/{fixture}",
        line,
        column,
    )
    assert first.hint and first.snippet and f">{line:5d} |" in first.snippet


async def test_undeclared_hint_suggests_the_near_name(icarus: Icarus) -> None:
    result = await icarus.compile(["sv/undeclared.sv"])
    assert "did you mean 'a_in'" in (result.diagnostics[0].hint or "")


@pytest.mark.parametrize(
    ("fixture", "category"),
    [
        ("width_mismatch.sv", Category.WIDTH_MISMATCH),
        ("multiple_drivers.sv", Category.MULTIPLE_DRIVERS),
        ("latch.sv", Category.LATCH_INFERRED),
    ],
)
async def test_warning_categories(icarus: Icarus, fixture: str, category: Category) -> None:
    result = await icarus.compile([f"sv/{fixture}"])
    assert result.status == Status.PASS
    found = [d for d in result.diagnostics if d.category == category]
    assert found and found[0].line and found[0].column and found[0].file == f"sv/{fixture}"


async def test_tool_crash_is_not_blamed_on_the_design(icarus: Icarus) -> None:
    result = await icarus.compile(["sv/crash_struct_array.sv"])
    assert result.status == Status.TOOL_ERROR
    crash = result.diagnostics[0]
    assert crash.category == Category.TOOL_CRASH
    assert "not an error in your code" in (crash.hint or "")
    assert crash.file == "sv/crash_struct_array.sv" and crash.line


async def test_compile_then_simulate(icarus: Icarus) -> None:
    compiled = await icarus.compile(["examples/counter/counter.sv", *COUNTER_TB], top="tb_counter")
    assert compiled.status == Status.PASS
    ran = await icarus.simulate(compiled.artifacts["image"], plusargs=["CYCLES=100"], waves="vcd")
    assert ran.status == Status.PASS
    assert ran.samples and ran.samples < 100
    waves = icarus.workspace.root / ran.artifacts["waves"]
    assert waves.read_text().startswith("$date") or "$timescale" in waves.read_text()[:2000]
    assert "tb_counter" in waves.read_text()[:20000]


async def test_simulate_refuses_a_non_image(icarus: Icarus) -> None:
    result = await icarus.simulate("examples/counter/counter.sv")
    assert result.status == Status.INVALID_INPUT and "not a vvp image" in result.summary


async def test_fst_waves(icarus: Icarus) -> None:
    result = await icarus.run_testbench(
        ["examples/counter/counter.sv"], COUNTER_TB, plusargs=["CYCLES=40"], waves="fst"
    )
    assert result.status == Status.PASS
    dump = icarus.workspace.root / result.artifacts["waves"]
    assert dump.suffix == ".fst" and dump.stat().st_size > 100
    from silicon_agent.servers.vcd.reader import WaveFile

    waves = WaveFile(dump)
    count = waves.resolve("tb_counter.dut.count_r")
    assert count.width == 8
    assert waves.change_count(count) > 10
