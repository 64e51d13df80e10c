"""The mutation campaign on the local process pool gives the serial run's summary; a caught
mutant is a result (ok), a task id is never counted twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from silicon_agent.campaigns.executors import PoolExecutor, SerialExecutor
from silicon_agent.hdl.mutate import mutation_tasks, run_mutations
from silicon_agent.hdl.mutations import MUTATIONS

pytestmark = pytest.mark.slow


def test_mutation_campaign_pool_equals_serial(tmp_path: Path) -> None:
    serial = run_mutations(["crc_checker"], SerialExecutor(), tmp_path / "serial")
    pooled = run_mutations(["crc_checker"], PoolExecutor(2), tmp_path / "pool")
    mutants = [m for m in MUTATIONS if m[0] == "crc_checker"]
    assert serial.total == len(mutation_tasks(["crc_checker"])) == len(mutants) >= 3
    assert serial.totals["caught"] == len(mutants) and serial.totals["survived"] == []
    for name in ("summary.json", "summary.txt"):
        assert (tmp_path / "pool" / name).read_bytes() == (tmp_path / "serial" / name).read_bytes()
    assert pooled == serial


def test_unknown_block_is_refused() -> None:
    with pytest.raises(ValueError, match="INVALID_INPUT: no mutants for block nonesuch"):
        mutation_tasks(["nonesuch"])
