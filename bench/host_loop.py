"""Host benchmark, measured side by side in one run (scripted team, real servers in-process):

1. Parallel blocks: four independent blocks with parallel_blocks=2 vs 1, each model call
   taking --latency seconds as a real model would: the wall-time ratio (ideal 0.5).
2. The host's own cost per step: the loop's wall time minus model latency and tool time,
   against the tool time (how much the host adds on top of the servers).
3. Checkpoint cost: SQLite commits (fsync per step) as a share of the run's wall time.
4. The Verification Engineer's smoke testbench: the serial run with it vs without (wall
   time, model calls, hidden-testbench runs, code submissions).

`python bench/host_loop.py [--latency 0.3]`
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from silicon_agent.host.run_setup import create_run  # noqa: E402
from silicon_agent.host.runs import execute_run  # noqa: E402
from silicon_agent.host.state import StateStore  # noqa: E402
from silicon_agent.servers.core.workspace import Workspace  # noqa: E402
from silicon_agent.servers.iverilog.server import build as build_iverilog  # noqa: E402
from silicon_agent.servers.vcd.server import build as build_vcd  # noqa: E402
from silicon_agent.servers.verilator.server import build as build_verilator  # noqa: E402
from tests.host.scenario import make_workspace, write_config, write_mcp_json  # noqa: E402

BLOCKS = ["counter", "gray", "counter_fix", "stuck"]


def one_run(parallel: int, latency: float, smoke: bool = False) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix="host-bench-"))
    # gray depends on counter only when both are present; keep the four independent.
    design = make_workspace(root, BLOCKS)
    text = design.read_text().replace("depends_on:\n  - counter", "depends_on: []")
    design.write_text(text)
    config = write_config(root, BLOCKS, parallel=parallel, delay_s=latency, smoke=smoke)
    mcp = write_mcp_json(root, [])
    run = create_run(design, root / "runs", str(config), str(mcp), run_id="bench")
    workspace = Workspace.open(root)
    servers = {
        "iverilog": build_iverilog(workspace),
        "verilator": build_verilator(workspace),
        "vcd": build_vcd(workspace),
    }
    started = time.perf_counter()
    asyncio.run(execute_run(run, in_process=servers))
    wall = time.perf_counter() - started
    store = StateStore(run / "state.sqlite")
    steps = store.steps()
    events = store.events()
    store.close()
    step_wall = sum(float(r.detail.get("wall_s", 0.0)) for _, r in steps)
    llm_time = sum(e.latency_s for _, e in events)
    probe = StateStore(root / "probe.sqlite")
    from silicon_agent.host.llm.gateway import Ledger

    t0 = time.perf_counter()
    for _, record in steps:
        state = probe.blocks().get(record.block)
        if state is None:
            probe.init_blocks([record.block])
            state = probe.blocks()[record.block]
        probe.commit_step(record, state, Ledger(), (0, 0.0))
    commit_time = time.perf_counter() - t0
    probe.close()
    return {
        "wall_s": wall,
        "steps": len(steps),
        "llm_calls": len(events),
        "llm_s": llm_time,
        "in_steps_s": step_wall,
        "commit_s": commit_time,
        "hidden_runs": sum(1 for _, r in steps if r.kind == "simulate"),
        "smoke_runs": sum(1 for _, r in steps if r.kind == "smoke"),
        "submissions": sum(1 for _, r in steps if r.outcome == "submitted"),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.3)
    args = parser.parse_args()
    one_run(1, 0.0)  # warm-up: imports and first simulator builds are not the host's
    serial = one_run(1, args.latency)
    parallel = one_run(2, args.latency)
    print(f"steps={serial['steps']} llm_calls={serial['llm_calls']} latency={args.latency}s")
    print(
        f"parallel_blocks=1: {serial['wall_s']:.2f} s   parallel_blocks=2: "
        f"{parallel['wall_s']:.2f} s   ratio 2/1 = {parallel['wall_s'] / serial['wall_s']:.2f}"
    )
    # Outside the steps: server start-up, scheduling, checkpoint commits, file export.
    own = serial["wall_s"] - serial["in_steps_s"]
    tools = serial["in_steps_s"] - serial["llm_s"]
    print(
        f"serial run: model {serial['llm_s']:.2f} s, tools {tools:.2f} s, host outside steps "
        f"{own:.2f} s -> host/(model+tools) ratio {own / max(serial['in_steps_s'], 1e-9):.3f}"
    )
    print(
        f"checkpoint commits: {serial['commit_s'] * 1000:.1f} ms for {serial['steps']} steps "
        f"= {serial['commit_s'] / serial['wall_s'] * 100:.2f} % of the serial run"
    )
    smoke = one_run(1, args.latency, smoke=True)
    print(
        f"smoke testbench: wall {smoke['wall_s']:.2f} s vs {serial['wall_s']:.2f} s "
        f"(ratio {smoke['wall_s'] / serial['wall_s']:.2f}), model calls {smoke['llm_calls']} "
        f"vs {serial['llm_calls']}, hidden-testbench runs {smoke['hidden_runs']} vs "
        f"{serial['hidden_runs']}, smoke runs {smoke['smoke_runs']}, code submissions "
        f"{smoke['submissions']} vs {serial['submissions']}"
    )


if __name__ == "__main__":
    main()
