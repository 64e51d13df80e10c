"""Blocks synthesise with the openlane server's ``synthesize``; the README table is current."""

from __future__ import annotations

import pytest

from silicon_agent.hdl.registry import HDL_DIR, Registry
from silicon_agent.hdl.synth_table import BEGIN, END, synth_block

pytestmark = pytest.mark.anyio

# The small blocks synthesise in seconds; the memory-heavy ones take minutes and are covered by
# `python -m silicon_agent.hdl.synth_table`, whose output the README check below holds
# to the registry.
QUICK = ["crc_checker", "descrambler", "resource_demapper", "dl_sch_processor"]


@pytest.mark.slow
@pytest.mark.parametrize("name", QUICK)
async def test_block_synthesises(name: str, registry: Registry) -> None:
    row = await synth_block(registry.block(name), registry.clock_period_ns)
    assert row.status == "PASS", row
    assert row.cells and row.cells > 50
    assert row.area_um2 and row.area_um2 > 0
    assert row.slack_ns is not None
    # These have no multiplier or memory: with ABC buffering they close timing at 100 MHz.
    assert row.slack_ns > 0, row


def test_readme_table_lists_every_verified_block(registry: Registry) -> None:
    text = (HDL_DIR / "README.md").read_text()
    table = text[text.index(BEGIN) : text.index(END)]
    for block in registry.verified():
        row = next(
            (line for line in table.splitlines() if line.startswith(f"| {block.name} |")), None
        )
        assert row is not None, f"{block.name} missing from the synthesis table"
        assert "| PASS |" in row, row
