"""``python -m silicon_agent.hdl.run`` as typed: an option that does not apply to what would
run is refused in one line (exit status 2), never ignored and never a traceback. Each refusal
comes before anything is simulated."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

RUN = [sys.executable, "-m", "silicon_agent.hdl.run"]


def hdl_run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    return subprocess.run(
        [*RUN, *args], cwd=cwd, env={**clean, **env}, capture_output=True, text=True, timeout=300
    )


def assert_one_line_refusal(done: subprocess.CompletedProcess[str], *phrases: str) -> str:
    """Exit status 2, no traceback, one error line holding every phrase (Ray's own log lines,
    if any, aside)."""
    assert done.returncode == 2, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    lines = [line for line in done.stderr.splitlines() if "error" in line.lower()]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for phrase in phrases:
        assert phrase in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(
    ("args", "phrases"),
    [
        (["crc_checker", "--simulators", "iverilog"], ["--simulators is a campaign option"]),
        (["crc_checker", "--seeds", "3"], ["--seeds is a campaign option"]),
        (["crc_checker", "--all"], ["BLOCK 'crc_checker' with --all/--blocks"]),
        (["--all", "--lint"], ["--lint lints one BLOCK"]),
        (["--all", "--simulator", "iverilog", "--simulators", "verilator"], ["not both"]),
        (["crc_checker", "--ray", "--lint"], ["--lint runs here, not on an executor"]),
        (["crc_checker", "--workers", "2"], ["--workers needs an executor"]),
        (["crc_checker", "--max-retries", "1"], ["--max-retries apply to Ray only"]),
        (["--all", "--executor", "pool", "--ray-resource", "x=1"], ["--ray-resource"]),
        (["--all", "--executor", "serial", "--ray"], ["--ray with --executor serial"]),
        (["--blocks", "no_such_block"], ["unknown block 'no_such_block'"]),
    ],
)
def test_inapplicable_option_is_refused_in_one_line(
    args: list[str], phrases: list[str], tmp_path: Path
) -> None:
    assert_one_line_refusal(hdl_run(args, tmp_path), *phrases)
