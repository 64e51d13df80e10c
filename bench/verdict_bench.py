"""What the design rules (one preprocessed text, the allow list, the reach and name checks) add
to run_testbench, measured side by side in one run, cache off, on iverilog:

- `checked`: run_testbench as a client calls it; the design is preprocessed once, checked,
  and the compiler gets the preprocessed text.
- `unchecked`: the same files compiled and simulated with the design handed over among the
  testbench files (a one-line stub stands in as the design), so no design rule runs.
- `preprocess` and `analyze`: the two check steps timed alone on the same design.

On the small example (hdl/examples/counter) and a receiver block (crc_checker on its
refmodels vectors). `python bench/verdict_bench.py [--reps N] [--block NAME]`
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path

from silicon_agent.hdl.registry import PACKAGE_SV, REPO, load_registry
from silicon_agent.hdl.sim import VectorSet, repo_workspace
from silicon_agent.servers.core.cache import NO_CACHE_ENV
from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.sv.one_text import preprocess
from silicon_agent.servers.core.sv.slang_check import analyze
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.suite.design import testbench_side

STUB = ".silicon-agent/bench/verdict_stub.sv"


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def time_runs(icarus: Icarus, reps: int, variants: list[dict]) -> list[float]:
    """Median wall time of each variant; the variants take turns, so load drifts alike."""
    samples: list[list[float]] = [[] for _ in variants]
    for _ in range(reps):
        for index, arguments in enumerate(variants):
            started = time.perf_counter()
            result = asyncio.run(icarus.run_testbench(**arguments))
            samples[index].append(time.perf_counter() - started)
            assert result.status == Status.PASS, (result.summary, result.diagnostics[:3])
    return [median_ms(s) for s in samples]


def time_checks(
    workspace: Workspace,
    icarus: Icarus,
    design: list[str],
    bench: list[str],
    include_dirs: list[str],
    top: str | None,
    reps: int,
) -> tuple[float, float]:
    design_paths = [workspace.root / p for p in design]
    bench_paths = [workspace.root / p for p in bench]
    dirs = [workspace.root / p for p in include_dirs]
    pre, both = [], []
    for _ in range(reps):
        started = time.perf_counter()
        text = preprocess(workspace, design_paths, predefines=icarus.predefines())
        pre.append(time.perf_counter() - started)
        started = time.perf_counter()
        analyze(
            workspace,
            [*design_paths, *bench_paths],
            design=design_paths,
            include_dirs=dirs,
            top=top,
            design_text=text,
        )
        both.append(time.perf_counter() - started)
    return median_ms(pre), median_ms(both)


def measure(
    label: str, workspace: Workspace, reps: int, design: list[str], bench: list[str], **kw
) -> None:
    icarus = Icarus(workspace)
    stub = workspace.root / STUB
    stub.parent.mkdir(parents=True, exist_ok=True)
    stub.write_text("module verdict_bench_stub; endmodule\n")
    stub.chmod(0o644)
    checked, unchecked = time_runs(
        icarus,
        reps,
        [
            {"design": design, "testbench": bench, **kw},
            {"design": [STUB], "testbench": [*design, *bench], **kw},
        ],
    )
    pre, ana = time_checks(
        workspace, icarus, design, bench, list(kw.get("include_dirs", [])), kw.get("top"), reps
    )
    added = checked - unchecked
    print(f"{label}:")
    print(f"  run_testbench checked   {checked:8.1f} ms")
    print(f"  run_testbench unchecked {unchecked:8.1f} ms")
    print(f"  added by the rules      {added:8.1f} ms ({added / unchecked * 100:+.1f} %)")
    print(f"  preprocess alone        {pre:8.1f} ms (before the compile)")
    print(f"  analyze alone           {ana:8.1f} ms (beside the compile)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--block", default="crc_checker")
    args = parser.parse_args()
    os.environ[NO_CACHE_ENV] = "1"
    examples = Workspace.open(REPO / "hdl")
    measure(
        "counter example",
        examples,
        args.reps,
        ["examples/counter/counter.sv"],
        ["examples/counter/tb_counter.sv"],
        timeout_s=60,
    )
    workspace = repo_workspace()
    block = load_registry().block(args.block)
    assert block.testbench is not None
    vectors = VectorSet(workspace, "verdict-bench")
    try:
        case = vectors.generate(block, seed=1)[0]
        design, shared = testbench_side(block.rtl, PACKAGE_SV)
        measure(
            f"receiver block {block.name} (case {case.case})",
            workspace,
            args.reps,
            design,
            [*shared, block.testbench],
            include_dirs=[str(Path(block.testbench).parent)],
            top=block.tb_top,
            plusargs=[*case.plusargs, "SEED=1"],
            timeout_s=300,
        )
    finally:
        vectors.close()


if __name__ == "__main__":
    main()
