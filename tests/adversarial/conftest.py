"""A shared workspace for the attacks: each attack writes its own uniquely named files."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from tests.conftest import EXAMPLES, make_world_readable_dir

TB_COUNTER = "examples/counter/tb_counter.sv"

# The counter with a functional bug (adds 2): tb_counter reports ~594 mismatches for it.
# Every attack below is glued onto this body, so a PASS can only come from the attack.
WRONG_COUNTER = """`default_nettype none
module counter #(parameter int WIDTH = 8) (
    input  logic             clk,
    input  logic             rst_n,
    input  logic             en_i,
    output logic [WIDTH-1:0] count_o
);
  logic [WIDTH-1:0] count_r = '0;
  always_ff @(posedge clk) if (!rst_n) count_r <= '0; else if (en_i) count_r <= count_r + 2'd2;
  assign count_o = count_r;
{extra}
endmodule
`default_nettype wire
"""


def wrong_counter(extra: str = "", head: str = "") -> str:
    return head + WRONG_COUNTER.format(extra=extra)


def put(root: Path, relative: str, text: str | bytes) -> str:
    """Write an attacker file readable by the sandbox uid; returns the workspace path."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    for parent in path.relative_to(root).parents:
        (root / parent).chmod(0o755)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    path.chmod(0o644)
    return relative


@pytest.fixture(scope="module")
def adv_root() -> Iterator[Path]:
    root = make_world_readable_dir("sa-adv-")
    shutil.copytree(EXAMPLES, root / "examples")
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            Path(dirpath, name).chmod(0o755)
        for name in filenames:
            Path(dirpath, name).chmod(0o644)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def workspace(adv_root: Path) -> Workspace:
    return Workspace.open(adv_root)


@pytest.fixture(scope="module")
def icarus(workspace: Workspace) -> Icarus:
    return Icarus(workspace)
