"""Blocks synthesise with the openlane server's ``synthesize``; the README table is current."""

from __future__ import annotations

import pytest

from silicon_agent.hdl.registry import HDL_DIR, Registry
from silicon_agent.hdl.synth_table import (
    BEGIN,
    END,
    SynthRow,
    memory_bits,
    merge_rows,
    parse_table,
    render,
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
    def row(name: str, n: int, **update: object) -> SynthRow:
        base = SynthRow(
            block=name,
            status="PASS",
            cells=n,
            area_um2=float(n),
            slack_ns=-1.0,
            fmax_mhz=90.0,
            params={},
            library="lib",
            memory_bits=None,
        )
        return base.model_copy(update=update)

    names = ("crc_checker", "turbo_decoder", "pdsch_rx_backend")
    table = render([row(name, n) for n, name in enumerate(names, 1)], 10.0)
    # The table reads back as it was written (a table from before the memory bits column too).
    assert parse_table(table) == [row(name, n) for n, name in enumerate(names, 1)]
    old = "\n".join(line.removesuffix(" - |") for line in table.splitlines())
    assert parse_table(old) == parse_table(table)
    fresh = row(
        "turbo_decoder", 7, slack_ns=0.25, fmax_mhz=104.0, params={"MAX_K": 40}, memory_bits=1257208
    )
    merged = render(merge_rows(parse_table(table), [fresh]), 10.0).splitlines()
    assert len(merged) == len(table.splitlines())
    assert merged[0] == BEGIN and merged[-1] == END
    rows = {line.split("|")[1].strip(): line for line in merged if line.startswith("| ")}
    assert rows["turbo_decoder"] == (
        "| turbo_decoder | PASS | 7 | 7 | 0.25 | 104 | MAX_K=40 | 1257208 |"
    )
    assert rows["crc_checker"] == "| crc_checker | PASS | 1 | 1 | -1.00 | 90 | default | - |"
    assert rows["pdsch_rx_backend"].startswith("| pdsch_rx_backend | PASS | 3 |")
    # A row for a block the table lacks is refused rather than appended out of order.
    with pytest.raises(ValueError, match="equalizer"):
        merge_rows(parse_table(table), [fresh.model_copy(update={"block": "equalizer"})])


async def test_memory_bits_are_counted_by_yosys(registry: Registry) -> None:
    # crc_checker has no memory; rate_dematcher's defaults (MAX_K = 6144, N_PROC = 1) give one
    # soft-buffer RAM per stream of CB_MAX (2) x (MAX_K + 4) LLRs of 8 bits.
    assert await memory_bits(registry.block("crc_checker")) == 0
    assert await memory_bits(registry.block("rate_dematcher")) == 3 * 2 * (6144 + 4) * 8
