"""``python -m silicon_agent.refmodels ber``: CSV + PNG output and monotone error rates."""

from __future__ import annotations

import csv
from pathlib import Path

from silicon_agent.refmodels.cli import main


def test_ber_cli_writes_csv_and_png(tmp_path: Path) -> None:
    assert (
        main(
            [
                "ber",
                "--K",
                "256",
                "--ebn0",
                "0.0:1.0:2.0",
                "--iters",
                "4",
                "--blocks",
                "48",
                "--max-errors",
                "1000",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    csv_path = tmp_path / "ber_K256_float_4it.csv"
    png = tmp_path / "ber_K256_float_4it.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = list(csv.DictReader(csv_path.open()))
    assert [float(r["ebn0_db"]) for r in rows] == [0.0, 1.0, 2.0]
    ber = [float(r["ber"]) for r in rows]
    assert ber[0] > ber[2]
    assert all(int(r["blocks"]) == 48 for r in rows)
