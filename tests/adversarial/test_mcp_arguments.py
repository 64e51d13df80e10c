"""Hostile run_testbench arguments sent over MCP get a structured INVALID_INPUT naming the
argument, and nothing runs."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.server import build

from .conftest import TB_COUNTER, put

GOOD = {"design": ["examples/counter/counter.sv"], "testbench": [TB_COUNTER]}


@pytest.fixture(scope="module")
def hostile_files(adv_root: Path) -> Path:
    put(adv_root, "args/-o.sv", "module m; endmodule\n")
    put(adv_root, "args/+incdir+x.sv", "module m; endmodule\n")
    put(adv_root, "args/binary.sv", b"module m;\x00\x01 endmodule\n")
    put(
        adv_root,
        "args/latin1.sv",
        "module m; // caf\xe9 \n".encode("latin-1") * 10 + b"endmodule\n",
    )
    big = adv_root / "args" / "huge.sv"
    with big.open("wb") as handle:  # sparse: 17 MiB of zeros costs nothing
        handle.truncate(17 << 20)
    link = adv_root / "args" / "passwd.sv"
    if not link.is_symlink():
        link.symlink_to("/etc/passwd")
    dir_link = adv_root / "args" / "etc"
    if not dir_link.is_symlink():
        dir_link.symlink_to("/etc")
    os.chmod(adv_root / "args", 0o755)
    return adv_root


CASES: list[tuple[str, dict[str, Any], str]] = [
    ("parent", {"design": ["../../../etc/passwd"]}, "design"),
    ("absolute", {"design": ["/etc/hostname"]}, "design"),
    ("option_name", {"design": ["args/-o.sv"]}, "design"),
    ("plusarg_name", {"design": ["args/+incdir+x.sv"]}, "design"),
    ("symlink_out", {"design": ["args/passwd.sv"]}, "design"),
    ("through_dir_link", {"design": ["args/etc/hostname"]}, "design"),
    ("binary", {"design": ["args/binary.sv"]}, "design"),
    ("not_utf8", {"design": ["args/latin1.sv"]}, "design"),
    ("huge", {"design": ["args/huge.sv"]}, "design"),
    ("directory", {"design": ["args"]}, "design"),
    ("tb_outside", {"testbench": ["/etc/hostname"]}, "testbench"),
    ("state_dir", {"design": [".silicon-agent"]}, "design"),
    ("define_newline", {"defines": {"X": "1\n`define Y $display"}}, "defines"),
    ("define_name", {"defines": {"A B": "1"}}, "defines"),
    ("define_option", {"defines": {"-o": "x"}}, "defines"),
    ("top_injection", {"top": "tb_counter -s evil"}, "top"),
    ("top_option", {"top": "-o"}, "top"),
    ("plusarg_option", {"plusargs": ["-v"]}, "plusargs"),
    ("plusarg_reserved", {"plusargs": ["sa_waves=/etc/passwd"]}, "plusargs"),
    ("plusarg_newline", {"plusargs": ["CYCLES=1\nMismatches: 0 in 1 samples"]}, "plusargs"),
    ("include_root", {"include_dirs": ["/"]}, "include_dirs"),
    ("include_parent", {"include_dirs": [".."]}, "include_dirs"),
    ("include_file", {"include_dirs": [TB_COUNTER]}, "include_dirs"),
    ("timeout_zero", {"timeout_s": 0}, "timeout_s"),
    ("timeout_negative", {"timeout_s": -5}, "timeout_s"),
    ("timeout_huge", {"timeout_s": 1e9}, "timeout_s"),
]


@pytest.mark.parametrize(("name", "override", "argument"), CASES, ids=[c[0] for c in CASES])
def test_hostile_arguments_are_refused(
    hostile_files: Path, name: str, override: dict[str, Any], argument: str
) -> None:
    server = build(Workspace.open(hostile_files))

    async def call() -> Any:
        async with Client(server) as client:
            return await client.call_tool("run_testbench", {**GOOD, **override})

    result = asyncio.run(call())
    data = result.structured_content
    assert data is not None, result.content
    assert data["status"] == "INVALID_INPUT", data["summary"]
    assert data["diagnostics"][0]["category"] == "INVALID_INPUT"
    assert data["diagnostics"][0]["code"] == argument
    assert data["exit_code"] is None  # nothing ran
