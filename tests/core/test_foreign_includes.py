"""A design judged beside hidden files may include only its own files: every spelling of an
include that names anything else is found on its own line (servers/core/sv/includes.py)."""

from __future__ import annotations

import pytest

from silicon_agent.servers.core.sv.includes import foreign_includes

OWN = {"top.sv": "", "defs.svh": "", "sub/part.svh": ""}


def found(text: str) -> list[tuple[str, int, str]]:
    return foreign_includes({**OWN, "top.sv": text})


@pytest.mark.parametrize(
    "text",
    [
        '`include "../.hidden-vectors/qam/case/expected_llr.hex"',
        '`include "hdl/tb/tb_harness.svh"',
        '`include "/etc/passwd"',
        "`include <defs.svh>",
        '`define F "defs.svh"\n`include `F',
        '`define I `include "other.svh"',
        '` `include "defs.svh"',
        '`\\\ninclude "defs.svh"',
        '`include "sub/../defs.svh"',
    ],
)
def test_an_include_of_anything_but_the_designs_own_files_is_found(text: str) -> None:
    hits = found(text)
    assert hits and {h[0] for h in hits} == {"top.sv"}, hits


def test_the_line_is_the_includes_own() -> None:
    assert found('module top;\nendmodule\n`include "../x.hex"\n') == [("top.sv", 3, '"../x.hex"')]


def test_the_designs_own_headers_and_comments_are_not() -> None:
    text = '`include "defs.svh"\n`include "sub/part.svh"\n// `include "../x"\n/* `include "y" */\n'
    assert found(text) == []
