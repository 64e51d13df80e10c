"""Campaign executors side by side in one run:

1. Per-task overhead of Ray against the local process pool, on a 1 ms and a 1 s task
   (busy CPU): (wall x workers - tasks x task length) / tasks, after a warm-up batch.
2. The regression campaign (3 blocks x 2 seeds x 2 simulators by default, simulator builds
   warmed first) serially, on the pool and on Ray: wall time, speed-up over serial and speed-up
   per core.
3. `agent-host run` of a design with two independent blocks (scripted model, replies
   ``--llm-delay`` s late): its steps in the host's process (the default), each a task on the
   serial executor, and each a Ray task: wall time and speed-up over the serial executor.

Ray here is a private local instance with ``--workers`` CPUs (``ray.init``), run on a private
loopback-only network (as root) so that it reaches no other address; the raw figures are
printed for docs/campaigns.md's scale-out estimate.

`python bench/ray_bench.py [--workers 2] [--short-tasks 200] [--long-tasks 4] [--seeds 2]
[--llm-delay 1.0] [--only overhead|regression|agent-run]`
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pickle
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from silicon_agent.campaigns.calibrate import busy_task  # noqa: F401  (the tasks below name it)
from silicon_agent.campaigns.executors import Executor, PoolExecutor, SerialExecutor
from silicon_agent.campaigns.ray_executor import RayExecutor
from silicon_agent.campaigns.runner import CampaignRun
from silicon_agent.campaigns.task import Task, execute
from silicon_agent.campaigns.tools import PYTHON_PROBES, driver_check
from silicon_agent.hdl.campaign import PROBES, SIMULATORS, regression_tasks, run_regression, select
from silicon_agent.host.run_setup import create_run
from silicon_agent.host.runs import execute_run
from tests.campaigns.agent_run import content, design
from tests.campaigns.private_network import private_loopback_network

REPO = Path(__file__).resolve().parents[1]

SELECTION = ["crc_checker:crc24b_k40", "descrambler:r2_sf1", "qam_demodulator:qpsk"]


def calibration(n: int, seconds: float, tag: str) -> list[Task]:
    return [
        Task(
            id=f"{tag}-{i:05d}",
            fn="silicon_agent.campaigns.calibrate:busy_task",
            args={"seconds": seconds},
        )
        for i in range(n)
    ]


def overhead(executor: Executor, workers: int, n: int, seconds: float) -> dict[str, float]:
    """Per-task overhead in ms, measured after a warm-up batch on the same executor."""
    run = CampaignRun(f"calibrate-{seconds}", executor, PYTHON_PROBES, stream=None)
    run.run(calibration(workers * 2, 0.001, f"warm{seconds}"))
    t0 = time.perf_counter()
    run.run(calibration(n, seconds, f"t{seconds}"))
    wall = time.perf_counter() - t0
    return {
        "tasks": n,
        "wall_s": wall,
        "overhead_ms": (wall * workers - n * seconds) / n * 1000,
        "tasks_per_s": n / wall,
    }


def timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def agent_runs(ray: RayExecutor, delay_s: float) -> dict[str, float]:
    """Wall time of one agent run per way of stepping it; their results must agree."""
    root = Path(tempfile.mkdtemp(prefix="ray-bench-agent-"))
    files = design(root / "design", delay_s)
    walls: dict[str, float] = {}
    results = {}
    for name, executor in (("in-process", None), ("serial", SerialExecutor()), ("ray", ray)):
        run = create_run(files[0], root / "runs", str(files[1]), str(files[2]), run_id=name)
        t0 = time.perf_counter()
        asyncio.run(execute_run(run, executor=executor))
        walls[name] = time.perf_counter() - t0
        results[name] = content(run)
    if results["ray"] != results["serial"] or results["in-process"] != results["serial"]:
        raise SystemExit("agent runs disagree between executors")
    return walls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--short-tasks", type=int, default=200)
    ap.add_argument("--long-tasks", type=int, default=4)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--blocks", nargs="+", default=SELECTION)
    ap.add_argument("--llm-delay", type=float, default=1.0, help="scripted model reply delay")
    ap.add_argument(
        "--only", choices=["overhead", "regression", "agent-run"], help="run one section only"
    )
    ap.add_argument("--json", type=Path, help="also write the raw figures here")
    args = ap.parse_args()
    w = args.workers
    figures: dict[str, object] = {"workers": w}

    ray = RayExecutor(workers=w)
    t0 = time.perf_counter()
    ray.connect(set(SIMULATORS))  # start-up timed apart from the tasks
    figures["ray_start_s"] = time.perf_counter() - t0
    if args.only in (None, "overhead"):
        print(f"== per-task overhead ({w} workers, busy-CPU tasks)")
        pool = PoolExecutor(w)
        rows = []
        for seconds, n in ((0.001, args.short_tasks), (1.0, args.long_tasks)):
            p = overhead(pool, w, n, seconds)
            r = overhead(ray, w, n, seconds)
            rows.append((seconds, p, r))
            figures[f"overhead_{seconds}s"] = {"pool": p, "ray": r}
        pool.close()
        print(f"{'task':>8} {'n':>5} {'pool ms/task':>13} {'ray ms/task':>12} {'ray/pool':>9}")
        for seconds, p, r in rows:
            ratio = r["overhead_ms"] / p["overhead_ms"] if p["overhead_ms"] > 0 else float("nan")
            print(
                f"{seconds * 1000:>6.0f}ms {p['tasks']:>5} {p['overhead_ms']:>13.2f} "
                f"{r['overhead_ms']:>12.2f} {ratio:>9.2f}"
            )
        print(f"(Ray local start-up {figures['ray_start_s']:.1f} s, not counted above)")

    if args.only in (None, "regression"):
        blocks = " ".join(args.blocks)
        print(f"\n== regression campaign: {blocks} x {args.seeds} seeds x 2 simulators")
        selection = select(args.blocks)
        sims = ["iverilog", "verilator"]

        def regression(executor: Executor, out: Path | None = None) -> Callable[[], object]:
            return lambda: run_regression(selection, sims, args.seeds, executor, out, quiet=True)

        serial_out = Path(tempfile.mkdtemp(prefix="ray-bench-"))

        # Builds are cached by content: warm them so every executor runs the same simulations.
        regression(SerialExecutor())()
        walls = {
            "serial": timed(regression(SerialExecutor(), serial_out)),
            "pool": timed(regression(PoolExecutor(w))),
            "ray": timed(regression(ray)),
        }
        cores = {"serial": 1, "pool": w, "ray": w}
        print(f"{'executor':>9} {'cores':>6} {'wall s':>8} {'speed-up':>9} {'per core':>9}")
        for name, wall in walls.items():
            speed = walls["serial"] / wall
            per_core = speed / cores[name]
            print(f"{name:>9} {cores[name]:>6} {wall:>8.1f} {speed:>9.2f} {per_core:>9.2f}")
        figures["regression_wall_s"] = walls
        per_kind: dict[str, list[float]] = {}
        for t in json.loads((serial_out / "run.json").read_text())["tasks"]:
            block, _, sim, _ = t["task_id"].split("/")
            per_kind.setdefault(f"{block}/{sim}", []).append(t["duration_s"])
        figures["serial_task_s"] = {k: sum(v) / len(v) for k, v in sorted(per_kind.items())}
        print(
            "serial task time: "
            + ", ".join(f"{k} {v:.2f} s" for k, v in figures["serial_task_s"].items())
        )
        # What crosses the network per task: the task, the driver's tool versions, the result.
        tasks = regression_tasks(selection, sims, 1)
        check = driver_check(PROBES)
        result = execute(tasks[0], check)
        sizes = {
            "task_bytes": len(pickle.dumps(tasks[0])),
            "tool_check_bytes": len(pickle.dumps(check)),
            "result_bytes": len(pickle.dumps(result)),
            "task_s": result.duration_s,
        }
        figures["per_task"] = sizes
        print(
            f"\nper task on the wire: task {sizes['task_bytes']} B, tool check "
            f"{sizes['tool_check_bytes']} B, result {sizes['result_bytes']} B "
            f"({tasks[0].id}: {sizes['task_s']:.2f} s)"
        )
        figures["regression_tasks"] = sum(len(c) for _, c in selection) * len(sims) * args.seeds

    if args.only in (None, "agent-run"):
        print(f"\n== agent-host run: 2 independent blocks, model replies {args.llm_delay:g} s late")
        walls = agent_runs(ray, args.llm_delay)
        print(f"{'steps':>11} {'wall s':>8} {'speed-up':>9}")
        for name, wall in walls.items():
            print(f"{name:>11} {wall:>8.1f} {walls['serial'] / wall:>9.2f}")
        figures["agent_run_wall_s"] = walls
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    with private_loopback_network():
        main()
