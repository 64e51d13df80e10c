"""A real local Ray cluster for tests: ``ray start --head`` plus worker nodes, each with its own
resources, bound to 127.0.0.1, a private temp dir, one CPU and a small object store; stopped
by killing what runs from its temp dir and their children."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))
OBJECT_STORE_BYTES = 100_000_000
# Every cluster of this test process takes this token and so does the driver (ray.init reads
# the environment), rather than a token file in the home directory that other clusters share.
# Ray reads them once, at import: so here, before any test imports ray.
AUTH = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
os.environ.update(AUTH)
START_TIMEOUT_S = 180


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalCluster:
    def __init__(self, temp_dir: Path) -> None:
        self.temp_dir = temp_dir
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"

    def _start(self, args: list[str], env: dict[str, str] | None) -> None:
        argv = [
            RAY,
            "start",
            *args,
            # Ray 2.60 turns a loopback address into the machine's own where it finds one:
            # the tests start their cluster on a private loopback-only network
            # (private_network.py); the token (AUTH) keeps other clients out.
            "--node-ip-address=127.0.0.1",
            "--num-cpus=1",
            f"--object-store-memory={OBJECT_STORE_BYTES}",
            f"--temp-dir={self.temp_dir}",
            "--disable-usage-stats",
        ]
        run_env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", **(env or {})}
        run_env.pop("RAY_ADDRESS", None)
        done = subprocess.run(
            argv, env=run_env, capture_output=True, text=True, timeout=START_TIMEOUT_S
        )
        if done.returncode != 0:
            raise RuntimeError(f"ray start failed: {done.stdout[-2000:]}\n{done.stderr[-2000:]}")

    def start_head(self, resources: dict[str, float], env: dict[str, str] | None = None) -> None:
        self._start(
            [
                "--head",
                f"--port={self.port}",
                f"--ray-client-server-port={free_port()}",
                "--include-dashboard=false",
                f"--resources={json.dumps(resources)}",
            ],
            env,
        )

    def add_node(self, resources: dict[str, float], env: dict[str, str] | None = None) -> None:
        self._start([f"--address={self.address}", f"--resources={json.dumps(resources)}"], env)

    def processes(self) -> dict[int, str]:
        """Every process of this cluster (pid: command line): those started with its temp dir
        and all their descendants."""
        table = _process_table()
        mine = {pid for pid, (_, cmd) in table.items() if str(self.temp_dir) in cmd}
        grew = True
        while grew:
            more = {pid for pid, (ppid, _) in table.items() if ppid in mine} - mine
            mine |= more
            grew = bool(more)
        return {pid: table[pid][1] for pid in mine}

    def task_workers(self, prefix: str = "ray::campaign:") -> dict[int, str]:
        """Worker processes of this cluster now running a campaign task (Ray names the process
        after the task while it runs)."""
        return {pid: cmd for pid, cmd in self.processes().items() if cmd.startswith(prefix)}

    def stop(self) -> None:
        """Kill this cluster's processes, and only them: `ray stop` would end every Ray
        instance on the machine, other test runs' clusters and benches included."""
        import ray

        if ray.is_initialized():
            ray.shutdown()
        deadline = time.monotonic() + 10
        while (left := self.processes()) and time.monotonic() < deadline:
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.2)


def _process_table() -> dict[int, tuple[int, str]]:
    """pid: (parent pid, command line) of every process, from /proc."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name in stat may hold spaces and parentheses: the ppid follows the last ")".
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        table[int(entry.name)] = (ppid, cmd.strip())
    return table
