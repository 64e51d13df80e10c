"""The main job (`make run`): the suite end to end on this machine, nothing faked.

1. The example designs through the MCP servers, started as mcp.json says.
2. The LTE reference chain: R.2 and R.31-1 through AWGN at 20 dB, float and fixed point.
3. The agent host driving a real (tiny) local model, Gemma 3 270M in-process through
   llama.cpp, on the counter block against its hidden testbench, then on one LTE block of
   the receiver's registry (`hdl/blocks.yaml`) through the modem loop: fresh vectors, the
   hidden testbench, the reference RTL out of sight. A 270M model writes poor RTL (the LTE
   block is expected to escalate): what this shows is the loop, the verdicts and the
   costing, not design skill.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import anyio
import yaml

from silicon_agent.servers import demo as server_demo

REPO = Path(__file__).resolve().parents[1]
RUNS = REPO / "runs" / "demo"

COUNTER_SPEC = (
    "An 8-bit up-counter. On every rising edge of clk: when rst_n is low the count becomes 0 "
    "(synchronous, active-low reset); otherwise when en_i is high the count increments by one, "
    "wrapping from 255 to 0; otherwise it holds. count_o shows the current count."
)
COUNTER_INTERFACE = (
    "module counter #(parameter int WIDTH = 8) (input logic clk, input logic rst_n, "
    "input logic en_i, output logic [WIDTH-1:0] count_o);"
)


def banner(text: str) -> None:
    print(f"\n== {text}", flush=True)


def reference_chain() -> int:
    failures = 0
    for rc in ("R.2", "R.31-1"):
        for extra in ([], ["--fixed"]):
            done = subprocess.run(
                [sys.executable, "-m", "refmodels", "e2e", "--rc", rc, "--snr", "20",
                 "--channel", "awgn", *extra],
                cwd=REPO, capture_output=True, text=True, check=False,
            )  # fmt: skip
            print(done.stdout.strip() or done.stderr.strip(), flush=True)
            failures += done.returncode != 0 or "CRC PASS" not in done.stdout
    return failures


def agent_workspace() -> Path:
    """A fresh workspace holding the counter's hidden testbench and a design file."""
    shutil.rmtree(RUNS, ignore_errors=True)
    workspace = RUNS / "workspace"
    (workspace / "verif").mkdir(parents=True)
    shutil.copy(REPO / "hdl/examples/counter/tb_counter.sv", workspace / "verif/tb_counter.sv")
    for path in (RUNS, workspace, workspace / "verif"):
        path.chmod(0o755)
    design = {
        "name": "demo",
        "workspace": ".",
        "blocks": [
            {
                "name": "counter",
                "top": "counter",
                "rtl_file": "rtl/counter.sv",
                "spec": COUNTER_SPEC,
                "interface": COUNTER_INTERFACE,
                "depends_on": [],
                "verification": {
                    "testbench": ["verif/tb_counter.sv"],
                    "top": "tb_counter",
                    "simulator": "iverilog",
                },
            }
        ],
    }
    (workspace / "design.yaml").write_text(yaml.safe_dump(design, sort_keys=False))
    return workspace


def local_model_config(path: Path) -> Path:
    model = {"provider": "gemma", "model": "gemma-3-270m-q4_k_m"}
    config = {
        "providers": {
            "gemma": {
                "kind": "llamacpp_inproc",
                "model_path": "gemma3-270m",
                "n_ctx": 2048,
                "n_threads": max(1, min(2, os.cpu_count() or 1)),
            }
        },
        "roles": {
            "default": {"model": model, "temperature": 0.0, "max_tokens": 256},
            "rtl_engineer": {
                "model": model,
                "temperature": 0.0,
                "max_tokens": 384,
                "max_tool_calls": 1,
            },
        },
        "pricing": {"gemma-3-270m-q4_k_m": {"input_per_mtok": 0.0, "output_per_mtok": 0.0}},
        # A 270M model cannot write a useful testbench: the demo skips the smoke step.
        "limits": {"max_iterations": 2, "parallel_blocks": 1, "smoke_testbench": False},
        "retry": {"attempts": 1},
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


LTE_BLOCK = "crc_checker"


def host_run(design: Path, run_id: str, config: Path, extra: list[str]) -> int:
    """`agent-host run` (which prints the run's block table once it ends), then where its
    report is."""
    host = [sys.executable, "-m", "silicon_agent.host.cli", "--runs-dir", str(RUNS / "runs")]
    started = time.monotonic()
    run = subprocess.run(
        [*host, "run", str(design), "--config", str(config),
         "--mcp-config", str(REPO / "mcp.json"), "--run-id", run_id, *extra],
        cwd=REPO, check=False,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    report = subprocess.run(
        [*host, "report", run_id], cwd=REPO, check=False, capture_output=True, text=True
    )
    print(f"wall time of the run: {elapsed:.0f} s", flush=True)
    print(f"report: {report.stdout.strip() or report.stderr.strip()}", flush=True)
    return 0 if run.returncode == 0 and report.returncode == 0 else 1


def agent_run() -> int:
    if importlib.util.find_spec("llama_cpp") is None:
        print("skipped: llama-cpp-python is not installed (make setup builds it)")
        return 0
    workspace = agent_workspace()
    config = local_model_config(RUNS / "gemma.yaml")
    failures = host_run(workspace / "design.yaml", "gemma", config, [])
    banner(f"LTE block {LTE_BLOCK} through the modem loop (hdl/blocks.yaml; expected to escalate)")
    failures += host_run(REPO / "hdl" / "blocks.yaml", "gemma-lte", config, ["--block", LTE_BLOCK])
    return failures


def main() -> int:
    banner("1/3 example designs through the MCP servers (iverilog and Verilator)")
    failures = anyio.run(server_demo.main)
    banner("2/3 LTE reference chain: TX -> AWGN 20 dB -> RX, float and fixed point")
    failures += reference_chain()
    banner("3/3 agent host with a real local model (Gemma 3 270M, llama.cpp in-process)")
    failures += agent_run()
    banner("done" if not failures else f"{failures} stage(s) did not go as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
