"""Bad input and hostile designs: clear INVALID_INPUT results, confinement, no forged PASS."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Category, Status
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from tests.conftest import processes_mentioning

pytestmark = pytest.mark.anyio
COUNTER = ["examples/counter/counter.sv"]
COUNTER_TB = ["examples/counter/tb_counter.sv"]


@pytest.fixture
def icarus(workspace_dir: Path) -> Icarus:
    return Icarus(Workspace.open(workspace_dir))


def write(root: Path, name: str, text: str) -> str:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o644)
    return name


@pytest.mark.parametrize(
    ("sources", "argument", "words"),
    [
        (["../../etc/passwd"], "sources", "outside the workspace"),
        (["/etc/hostname"], "sources", "outside the workspace"),
        (["missing.sv"], "sources", "does not exist"),
        ("examples/counter/counter.sv", "sources", "list of file paths"),
        ([], "sources", "at least one"),
    ],
)
async def test_invalid_paths(icarus: Icarus, sources: object, argument: str, words: str) -> None:
    result = await icarus.compile(sources)  # type: ignore[arg-type]
    assert result.status == Status.INVALID_INPUT
    assert words in result.summary
    assert result.diagnostics[0].category == Category.INVALID_INPUT
    assert result.diagnostics[0].code == argument


async def test_symlink_escape(icarus: Icarus) -> None:
    (icarus.workspace.root / "evil.sv").symlink_to("/etc/passwd")
    result = await icarus.compile(["evil.sv"])
    assert result.status == Status.INVALID_INPUT and "outside" in result.summary


async def test_option_like_file_name(icarus: Icarus) -> None:
    write(icarus.workspace.root, "-o.sv", "module m; endmodule\n")
    write(icarus.workspace.root, "+incdir+x.sv", "module m; endmodule\n")
    for name in ("-o.sv", "+incdir+x.sv"):
        result = await icarus.compile([name])
        assert result.status == Status.INVALID_INPUT and "option" in result.summary


async def test_binary_garbage_source(icarus: Icarus) -> None:
    path = icarus.workspace.root / "garbage.sv"
    path.write_bytes(os.urandom(4096) + b"\x00\x00")
    result = await icarus.compile(["garbage.sv"])
    assert result.status == Status.INVALID_INPUT and "binary" in result.summary


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"defines": {"A; rm": "1"}}, "not a macro name"),
        ({"top": "tb; rm -rf /"}, "not a module name"),
        ({"plusargs": ["-vcd"]}, "plusargs"),
        ({"timeout_s": -1}, "timeout_s"),
        ({"timeout_s": 1e9}, "timeout_s"),
        ({"waves": "lxt"}, "waves"),
        ({"include_dirs": ["/etc"]}, "outside"),
    ],
)
async def test_invalid_options(icarus: Icarus, kwargs: dict, words: str) -> None:
    result = await icarus.run_testbench(COUNTER, COUNTER_TB, **kwargs)
    assert result.status == Status.INVALID_INPUT and words in result.summary


async def test_never_ending_simulation_times_out(icarus: Icarus) -> None:
    tb = write(
        icarus.workspace.root,
        "forever_tb.sv",
        "module forever_tb; logic clk = 0; always #1 clk = ~clk; endmodule\n",
    )
    result = await icarus.run_testbench(COUNTER, [tb], top="forever_tb", timeout_s=2)
    assert result.status == Status.TIMEOUT and result.timed_out
    assert result.diagnostics[0].category == Category.TIMEOUT
    await asyncio.sleep(0.3)
    image = str(icarus.workspace.state_dir)
    alive = processes_mentioning(image)
    assert alive == []


async def test_flooding_testbench_is_capped(icarus: Icarus) -> None:
    tb = write(
        icarus.workspace.root,
        "flood_tb.sv",
        """module flood_tb;
  initial begin
    for (int i = 0; i < 1000000; i++) $display("%0100d", i);
    $display("Mismatches: 0 in 10 samples");
    $finish;
  end
endmodule
""",
    )
    result = await icarus.run_testbench(COUNTER, [tb], top="flood_tb", timeout_s=120)
    assert result.truncated
    assert result.status == Status.PASS, result.summary
    log = icarus.workspace.root / result.artifacts["log"]
    assert log.stat().st_size < 4 * 1024 * 1024


async def test_fopen_outside_scratch_writes_nothing(icarus: Icarus) -> None:
    outside = Path(f"/tmp/sa-escape-{os.getpid()}.txt")
    inside_ws = icarus.workspace.root / "written.txt"
    tb = write(
        icarus.workspace.root,
        "fopen_tb.sv",
        f"""module fopen_tb;
  integer fd;
  initial begin
    fd = $fopen("{outside}", "w");
    if (fd != 0) $fdisplay(fd, "escaped");
    fd = $fopen("{inside_ws}", "w");
    if (fd != 0) $fdisplay(fd, "escaped");
    $display("Mismatches: 0 in 1 samples");
    $finish;
  end
endmodule
""",
    )
    await icarus.run_testbench(COUNTER, [tb], top="fopen_tb")
    assert not outside.exists()
    assert not inside_ws.exists()


async def test_design_that_prints_its_own_pass_is_not_pass(icarus: Icarus) -> None:
    design = write(
        icarus.workspace.root,
        "forger.sv",
        """module counter #(parameter int WIDTH = 8) (input logic clk, input logic rst_n,
    input logic en_i, output logic [WIDTH-1:0] count_o);
  assign count_o = '0;
  initial begin
    $display("Mismatches: 0 in 100 samples");
    $finish;
  end
endmodule
""",
    )
    result = await icarus.run_testbench([design], COUNTER_TB)
    assert result.status != Status.PASS
    forbidden = [d for d in result.diagnostics if d.category == Category.FORBIDDEN_CONSTRUCT]
    assert {d.line for d in forbidden} == {5, 6}
    assert all(d.file == "forger.sv" and d.column for d in forbidden)


async def test_design_reaching_into_the_testbench_is_not_pass(icarus: Icarus) -> None:
    design = write(
        icarus.workspace.root,
        "reacher.sv",
        """module counter #(parameter int WIDTH = 8) (input logic clk, input logic rst_n,
    input logic en_i, output logic [WIDTH-1:0] count_o);
  assign count_o = '0;
  always @(posedge clk) tb_counter.errors = 0;
endmodule
""",
    )
    result = await icarus.run_testbench([design], COUNTER_TB)
    assert result.status == Status.COMPILE_FAIL
    assert any(
        d.category == Category.FORBIDDEN_CONSTRUCT and "tb_counter.errors" in d.message
        for d in result.diagnostics
    )


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ('$display("hello"); $finish;', Status.SIM_FAIL, "no summary line"),
        (
            '$display("Mismatches: 0 in 5 samples"); $display("Mismatches: 0 in 5 samples");'
            " $finish;",
            Status.SIM_FAIL,
            "2 summary lines",
        ),
        ('$display("Mismatches: 0 in 0 samples"); $finish;', Status.SIM_FAIL, "0 samples"),
        (
            'assert (1 == 0) else $error("boom"); $display("Mismatches: 0 in 5 samples"); $finish;',
            Status.SIM_FAIL,
            "assertion",
        ),
        (
            '$display("Mismatches: 0 in 5 samples"); $fatal(1, "bad harness");',
            Status.SIM_FAIL,
            "assertion",
        ),
        ('$display("Mismatches: 0 in 5 samples"); $finish;', Status.PASS, "0 mismatches"),
    ],
)
async def test_verdict_rules(icarus: Icarus, body: str, status: Status, words: str) -> None:
    tb = write(
        icarus.workspace.root, "rule_tb.sv", f"module rule_tb; initial begin {body} end endmodule\n"
    )
    result = await icarus.run_testbench(COUNTER, [tb], top="rule_tb")
    assert result.status == status, result.summary
    assert words in result.summary


async def test_fifty_concurrent_calls_do_not_cross_talk(icarus: Icarus) -> None:
    cycles = [60 + 7 * i for i in range(50)]
    results = await asyncio.gather(
        *[icarus.run_testbench(COUNTER, COUNTER_TB, plusargs=[f"CYCLES={n}"]) for n in cycles]
    )
    assert all(r.status == Status.PASS for r in results), [r.summary for r in results]
    samples = [r.samples for r in results]
    assert samples == sorted(samples) and len(set(samples)) == 50
    assert len({r.artifacts["log"] for r in results}) == 50
    for n, result in zip(cycles, results, strict=True):
        log = (icarus.workspace.root / result.artifacts["log"]).read_text()
        assert f"tb: {n} cycles" in log


async def test_cache_hit_and_invalidation_by_vector_file(icarus: Icarus) -> None:
    root = icarus.workspace.root
    write(root, "vec/expected.hex", "05\n")
    tb = write(
        root,
        "vec_tb.sv",
        """module vec_tb;
  logic [7:0] mem [1];
  initial begin
    $readmemh("vec/expected.hex", mem);
    if (mem[0] == 8'h05) $display("Mismatches: 0 in 1 samples");
    else $display("Mismatches: 1 in 1 samples");
    $finish;
  end
endmodule
""",
    )
    first = await icarus.run_testbench(COUNTER, [tb], top="vec_tb")
    again = await icarus.run_testbench(COUNTER, [tb], top="vec_tb")
    assert first.status == again.status == Status.PASS
    assert not first.cache_hit and again.cache_hit
    assert again.duration_s < 0.05
    write(root, "vec/expected.hex", "06\n")
    changed = await icarus.run_testbench(COUNTER, [tb], top="vec_tb")
    assert not changed.cache_hit and changed.status == Status.SIM_FAIL
