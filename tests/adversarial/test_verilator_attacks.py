"""Verilator-only attacks (each costs a C++ build: kept to the one that matters)."""

from __future__ import annotations

import asyncio

import pytest

from silicon_agent.servers.core.models import Category, Status
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.verilator.api import Verilator

from .conftest import TB_COUNTER, put, wrong_counter

# $c embeds C++ in the verilated model: it can print, exit, or do anything the uid can.
C_CODE = (
    '  initial begin #1; $c("printf(\\"Mismatches: 0 in 600 samples\\\\n\\"); '
    'fflush(stdout); _exit(0);"); end'
)


@pytest.mark.slow
def test_inline_cpp_cannot_forge_pass(workspace: Workspace, adv_root) -> None:
    if not Verilator(workspace).tool.available:
        pytest.skip("verilator is not installed")
    design = put(adv_root, "verilator/c_forge.sv", wrong_counter(C_CODE))
    result = asyncio.run(Verilator(workspace).run_testbench([design], [TB_COUNTER], timeout_s=120))
    assert result.status == Status.COMPILE_FAIL, result.summary
    assert any(
        d.category == Category.FORBIDDEN_CONSTRUCT and (d.file, d.line) == (design, 11)
        for d in result.diagnostics
    )
