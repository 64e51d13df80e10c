"""Blocks synthesise with the openlane server's ``synthesize``; the README table is current."""

from __future__ import annotations

import pytest

from silicon_agent.hdl.registry import HDL_DIR, Registry
from silicon_agent.hdl.synth_table import (
    BEGIN,
    END,
    SynthRow,
    merge_rows,
    render,
    render_row,
    synth_block,
)

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


def test_only_rows_replace_their_own_rows_and_keep_the_others() -> None:
    table = render(
        [
            SynthRow(
                block=name,
                status="PASS",
                cells=n,
                area_um2=float(n),
                slack_ns=-1.0,
                fmax_mhz=90.0,
                params={},
                library="lib",
            )
            for name, n in (("crc_checker", 1), ("turbo_decoder", 2), ("pdsch_rx_backend", 3))
        ],
        10.0,
    )
    fresh = SynthRow(
        block="turbo_decoder",
        status="PASS",
        cells=7,
        area_um2=7.0,
        slack_ns=0.25,
        fmax_mhz=104.0,
        params={"MAX_K": 40},
        library="lib",
    )
    merged = merge_rows(table, [render_row(fresh)]).splitlines()
    assert len(merged) == len(table.splitlines())
    assert merged[0] == BEGIN and merged[-1] == END
    rows = {line.split("|")[1].strip(): line for line in merged if line.startswith("| ")}
    assert rows["turbo_decoder"] == "| turbo_decoder | PASS | 7 | 7 | 0.25 | 104 | MAX_K=40 |"
    assert rows["crc_checker"] == "| crc_checker | PASS | 1 | 1 | -1.00 | 90 | default |"
    assert rows["pdsch_rx_backend"].startswith("| pdsch_rx_backend | PASS | 3 |")
    # A row for a block the table lacks is refused rather than appended out of order.
    with pytest.raises(ValueError, match="equalizer"):
        merge_rows(table, [render_row(fresh.model_copy(update={"block": "equalizer"}))])
