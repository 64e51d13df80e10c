"""Modem design-loop benchmark, side by side in one run (real servers over MCP stdio):

1. The receiver's registry (`hdl/blocks.yaml`) run by the host with a scripted RTL Engineer
   answering each block's reference RTL, once with every hidden run on Verilator and once on
   Icarus: per block the wall time of its steps and the share spent in the tools (the MCP
   calls: lint, compile, simulations) against the host (staging, prompts, checkpoints).
2. `--gemma`: the same blocks with the embedded Gemma 3 270M model (llama.cpp in process) as
   every role: per block the outcome, iterations and tokens.

`python bench/modem_loop.py [--blocks a,b] [--simulators verilator,iverilog] [--gemma]`
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from silicon_agent.host.demo import local_model_config  # noqa: E402
from silicon_agent.host.run_setup import create_run  # noqa: E402
from silicon_agent.host.runs import execute_run  # noqa: E402
from silicon_agent.host.state import StateStore  # noqa: E402
from tests.host.modem_scenario import write_config, write_rules  # noqa: E402
from tests.host.scenario import write_mcp_json  # noqa: E402


def design_on(simulator: str, root: Path) -> Path:
    """blocks.yaml with every judge run on one simulator."""
    data = yaml.safe_load((REPO / "hdl" / "blocks.yaml").read_text())
    data["workspace"] = str(REPO)
    for block in data["blocks"]:
        if block.get("judge"):
            block["judge"]["simulators"] = [simulator]
    path = root / f"blocks-{simulator}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def per_block(run: Path) -> dict[str, dict[str, float]]:
    store = StateStore(run / "state.sqlite")
    try:
        steps = store.steps()
        calls = store.tool_calls()
        events = store.events()
        states = store.blocks()
    finally:
        store.close()
    out: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for _, record in steps:
        row = out[record.block]
        row["wall_s"] += float(record.detail.get("wall_s") or 0)
        row["model_s"] += float(record.detail.get("llm_s") or 0)
    for _, call in calls:
        block = str(call.get("correlation_id", "")).split("/")[0]
        if block in out:
            out[block]["tools_s"] += float(call.get("duration_s") or 0)
    step_block = {seq: r.block for seq, r in steps}
    for seq, event in events:
        out[step_block.get(seq, "?")]["tokens"] += event.input_tokens + event.output_tokens
    for name, state in states.items():
        if name in out:
            out[name]["iterations"] = state.iteration
            out[name]["passed"] = float(str(state.status) == "PASSED")
    return out


def replay(simulator: str, blocks: list[str], root: Path) -> tuple[dict, float]:
    config = write_config(root, write_rules(blocks), parallel=1)
    mcp = write_mcp_json(root, ["iverilog", "verilator", "vcd"])
    started = time.monotonic()
    run = create_run(design_on(simulator, root), root / "runs", str(config), str(mcp), blocks)
    asyncio.run(execute_run(run))
    return per_block(run), time.monotonic() - started


def gemma(blocks: list[str], root: Path) -> dict:
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)
    config = local_model_config(root / "gemma.yaml")
    mcp = write_mcp_json(root, ["iverilog", "verilator", "vcd"])
    run = create_run(REPO / "hdl" / "blocks.yaml", root / "gemma", str(config), str(mcp), blocks)
    asyncio.run(execute_run(run))
    store = StateStore(run / "state.sqlite")
    states = store.blocks()
    store.close()
    figures = per_block(run)
    return {
        name: {
            "status": str(states[name].status),
            "iterations": states[name].iteration,
            "tokens": int(figures[name]["tokens"]),
            "escalation": (states[name].escalation or {}).get("reason"),
        }
        for name in blocks
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", help="comma-separated (default: every block)")
    parser.add_argument("--simulators", default="verilator,iverilog")
    parser.add_argument("--gemma", action="store_true", help="also the embedded model")
    parser.add_argument("--gemma-blocks", default="crc_checker")
    args = parser.parse_args()
    names = [b["name"] for b in yaml.safe_load((REPO / "hdl/blocks.yaml").read_text())["blocks"]]
    blocks = args.blocks.split(",") if args.blocks else names
    root = Path(tempfile.mkdtemp(prefix="modem-bench-"))
    root.chmod(0o755)
    results = {}
    for simulator in [s for s in args.simulators.split(",") if s]:
        folder = root / simulator
        folder.mkdir()
        folder.chmod(0o755)
        results[simulator] = replay(simulator, blocks, folder)
        print(f"{simulator}: {results[simulator][1]:.1f} s for {len(blocks)} blocks", flush=True)
        for name, row in results[simulator][0].items():
            print(f"  {name}: {json.dumps({k: round(v, 2) for k, v in row.items()})}", flush=True)
    sims = list(results)
    head = f"{'block':20s}" + "".join(
        f" {s + ' wall s':>16s} {'tools %':>8s} {'pass':>5s}" for s in sims
    )
    print(head)
    for name in blocks:
        line = f"{name:20s}"
        for sim in sims:
            row = results[sim][0].get(name, {})
            wall = row.get("wall_s", 0.0)
            share = 100 * row.get("tools_s", 0.0) / wall if wall else 0.0
            line += f" {wall:16.1f} {share:8.1f} {int(row.get('passed', 0)):5d}"
        print(line)
    for sim in sims:
        rows = results[sim][0].values()
        wall = sum(r.get("wall_s", 0) for r in rows)
        tools = sum(r.get("tools_s", 0) for r in rows)
        host = wall - tools - sum(r.get("model_s", 0) for r in rows)
        pct = 100 / max(wall, 1e-9)
        print(
            f"{sim}: steps {wall:.1f} s, tools {tools:.1f} s ({tools * pct:.1f} %), "
            f"host {host:.1f} s ({host * pct:.1f} %), run {results[sim][1]:.1f} s"
        )
    if args.gemma:
        print(json.dumps(gemma(args.gemma_blocks.split(","), root / "gemma-run"), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
