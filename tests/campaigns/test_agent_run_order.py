"""Runs of one design on different executors commit their concurrent blocks' steps in
different orders; the checkpoint (and so the status and the report) keeps the design's order."""

from __future__ import annotations

from pathlib import Path

from silicon_agent.host.state import BlockState, BlockStatus, StateStore


def test_blocks_stay_in_design_order_whichever_commits_last(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state.sqlite")
    try:
        store.init_blocks(["counter", "counter_fix", "gray"])
        store.put_blocks([BlockState(name="gray", status=BlockStatus.PASSED)])
        store.put_blocks([BlockState(name="counter", status=BlockStatus.FAILING, iteration=2)])
        blocks = store.blocks()
    finally:
        store.close()
    assert list(blocks) == ["counter", "counter_fix", "gray"]
    assert blocks["gray"].status == BlockStatus.PASSED
    assert (blocks["counter"].status, blocks["counter"].iteration) == (BlockStatus.FAILING, 2)
