"""The vector contracts the dl_sch_processor and the rate_dematcher HARQ testbenches rely on.

The testbenches only compare the RTL with the files; these tests tie the files back to the
refmodels functions, so a generator that stopped exercising filler bits, K- blocks or
cross-transmission combining would be noticed here rather than pass silently.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from silicon_agent.refmodels.crc import crc_check
from silicon_agent.refmodels.hexio import read_hex
from silicon_agent.refmodels.rate_dematcher import rate_dematch_fixed
from silicon_agent.refmodels.segmentation import desegment, segmentation_params
from silicon_agent.refmodels.vectors import generate


def _case(out: Path, block: str, params: dict[str, object]) -> tuple[dict, dict[str, np.ndarray]]:
    (sidecar,) = generate(block, out, seed=3, params=params)
    meta = json.loads(sidecar.read_text())
    where = sidecar.parent
    data = {
        f["file"].removesuffix(".hex"): read_hex(where / f["file"], f["width"], f["signed"])
        for f in meta["files"]
    }
    return meta, data


def test_dl_sch_stimulus_desegments_to_the_expected_bytes(tmp_path: Path) -> None:
    # C = 3 with two K- blocks and 24 filler bits: every desegmentation rule is in play.
    meta, d = _case(tmp_path, "dl_sch_processor", {"tbs": 13000, "G": 20000, "snr_db": 4.0})
    p = meta["params"]
    seg = segmentation_params(p["tbs"] + 24)
    assert (p["C"], p["F"], p["C_minus"]) == (seg.C, seg.F, seg.C_minus) == (3, 24, 2)
    assert p["n_app"] == sum(seg.block_sizes()) == d["stimulus_cb_app_llr"].size
    hard = (d["stimulus_cb_app_llr"] > 0).astype(np.uint8)
    blocks = np.split(hard, np.cumsum(seg.block_sizes())[:-1])
    b = desegment(blocks, seg)
    assert b.size == p["tbs"] + 24
    assert np.array_equal(np.packbits(b[:-24]), d["expected_tb_bytes"] & 0xFF)
    assert crc_check(b, "24A") == bool(d["expected_tb_crc_ok"][0]) is True


def test_dl_sch_failing_case_really_fails(tmp_path: Path) -> None:
    meta, d = _case(tmp_path, "dl_sch_processor", {"tbs": 1008, "G": 3000, "snr_db": -3.0})
    assert meta["params"]["F"] == 24 and meta["params"]["C"] == 1
    assert d["expected_tb_crc_ok"].tolist() == [0]


def test_harq_case_combines_a_retransmission(tmp_path: Path) -> None:
    params = {"K": 1056, "F": 32, "E": 2000, "rv": 0, "rv2": 2, "E2": 3500}
    meta, d = _case(tmp_path, "rate_dematcher", params)
    p = meta["params"]
    first = d["expected_d_llr"]
    combined = rate_dematch_fixed(d["stimulus_e2_llr"], p["K"], p["F"], 2, p["N_cb"], first)
    assert np.array_equal(combined.reshape(-1), d["expected_d2_llr"])
    # Combining must matter: the retransmission alone gives a different soft buffer.
    alone = rate_dematch_fixed(d["stimulus_e2_llr"], p["K"], p["F"], 2, p["N_cb"])
    assert (alone.reshape(-1) != d["expected_d2_llr"]).sum() > 1000
    # E2 > N_cb: the retransmission also wraps round the circular buffer.
    assert p["E2"] > p["N_cb"]
