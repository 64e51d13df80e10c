"""blocks.yaml is complete and agrees with the RTL; the RTL keeps the house style."""

from __future__ import annotations

import re

import pytest
import yaml

from silicon_agent.hdl.registry import (
    BLOCKS_YAML,
    PACKAGE_SV,
    REPO,
    BlockStatus,
    Registry,
    block_trace,
    load_registry,
)
from silicon_agent.refmodels.vectors import BLOCKS

PORT = re.compile(r"^\s*(input|output)\s+logic\s*(\[[^\]]*\])?\s*(\w+)\s*,?\s*$", re.M)
WIDTH = re.compile(r"\[\s*(.+?)\s*:\s*0\s*\]")
PKG_PARAM = re.compile(r"localparam\s+int\s+(\w+)\s*=\s*([^;]+);")
VERIFIED = [b.name for b in load_registry().verified()]
FORBIDDEN = (
    "$display",
    "$write",
    "$finish",
    "$fopen",
    "$info",
    "$warning",
    "$stop",
    "always @(",
    "always@(",
    " inside ",
    "priority if",
    "'{",
)


def _package_values() -> dict[str, int]:
    values: dict[str, int] = {}
    for name, expr in PKG_PARAM.findall((REPO / PACKAGE_SV).read_text()):
        values[name] = int(
            eval(
                expr.replace("_", "") if expr.strip().isdigit() else expr,
                {"__builtins__": {}},
                dict(values),
            )
        )
    return values


def _module_ports(text: str) -> dict[str, tuple[str, int]]:
    start = re.search(r"^module ", text, re.M)
    assert start
    header = text[start.start() : text.index(");", start.start())]
    values = _package_values()
    ports = {}
    for direction, rng, name in PORT.findall(header):
        width = 1
        if rng:
            expr = WIDTH.search(rng)
            assert expr, rng
            msb = eval(
                expr[1].replace("lte_baseband_pkg::", ""), {"__builtins__": {}}, dict(values)
            )
            width = int(msb) + 1
        ports[name] = (direction, width)
    return ports


def test_priority_blocks_are_verified() -> None:
    assert {"crc_checker", "descrambler", "qam_demodulator", "rate_dematcher"} <= set(VERIFIED)


def test_every_refmodels_block_is_registered(registry: Registry) -> None:
    names = {b.name for b in registry.blocks}
    assert set(BLOCKS) <= names
    assert "lte_baseband_top" in names
    assert registry.package == PACKAGE_SV


def test_dependencies_name_registered_blocks(registry: Registry) -> None:
    names = {b.name for b in registry.blocks}
    for block in registry.blocks:
        assert set(block.depends_on) <= names, block.name
        assert block.clauses and block.spec.strip()


@pytest.mark.parametrize("name", VERIFIED)
def test_verified_block_ports_match_rtl(registry: Registry, name: str) -> None:
    block = registry.block(name)
    assert block.status == BlockStatus.VERIFIED
    assert block.rtl[0] == PACKAGE_SV and block.testbench and block.tb_top
    for path in [*block.rtl, block.testbench]:
        assert (REPO / path).is_file(), path
    rtl = _module_ports((REPO / block.rtl_file).read_text())
    declared = {p.name: (p.direction, p.width) for p in block.ports}
    assert declared == rtl


@pytest.mark.parametrize("name", VERIFIED)
def test_rtl_house_style(registry: Registry, name: str) -> None:
    for path in registry.block(name).rtl:
        text = (REPO / path).read_text()
        code = "\n".join(line.split("//")[0] for line in text.splitlines())
        assert text.startswith("`default_nettype none"), path
        assert text.rstrip().endswith("`default_nettype wire"), path
        for bad in FORBIDDEN:
            assert bad not in code, (path, bad)
        assert "TS 36.21" in text, f"{path}: no 3GPP clause comment"
        if path != PACKAGE_SV:
            # Every clocked process starts with the synchronous active-low reset, except the
            # write port of a large memory (named *mem_r, exempt from reset).
            for body in code.split("always_ff @(posedge clk) begin")[1:]:
                first = body.split("\n  end", 1)[0]
                writes = set(re.findall(r"(\w+)(?:\[[^\]]*\])?\s*<=", first))
                assert body.lstrip().startswith("if (!rst_n) begin") or (
                    writes and all(w.endswith("mem_r") for w in writes)
                ), (path, writes)


def test_every_verified_block_is_traced_and_its_ports_are_checked() -> None:
    from silicon_agent.hdl.trace_expect import EXPECTED

    registry = load_registry()
    for block in registry.verified():
        assert block.trace is not None and block.name in EXPECTED, block.name
    raw = yaml.safe_load(BLOCKS_YAML.read_text())
    first = raw["blocks"][0]
    first["trace"]["streams"][0]["data"] = "s_axis_tdata_i"
    with pytest.raises(ValueError, match="trace port s_axis_tdata_i is not an output"):
        block_trace(Registry.model_validate(raw).blocks[0])
