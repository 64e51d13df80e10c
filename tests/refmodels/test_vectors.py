"""Golden vector CLI: determinism, $readmemh round trip, and expected = model(stimulus)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from silicon_agent.refmodels.cli import main
from silicon_agent.refmodels.descrambler import descramble
from silicon_agent.refmodels.hexio import read_hex
from silicon_agent.refmodels.qam_demodulator import demodulate_fixed
from silicon_agent.refmodels.rate_dematcher import rate_dematch_fixed
from silicon_agent.refmodels.turbo_decoder import turbo_decode
from silicon_agent.refmodels.vectors import BLOCKS, DEFAULT_CASES


def _load(case_dir: Path, block: str) -> tuple[dict, dict[str, np.ndarray]]:
    meta = json.loads((case_dir / f"{block}.json").read_text())
    data = {}
    for f in meta["files"]:
        data[f["file"].removesuffix(".hex")] = read_hex(
            case_dir / f["file"], f["width"], f["signed"]
        )
    return meta, data


@pytest.mark.parametrize(
    "block", ["qam_demodulator", "descrambler", "rate_dematcher", "equalizer", "crc_checker"]
)
def test_same_seed_same_bytes(block: str, tmp_path: Path) -> None:
    for run in ("a", "b"):
        assert main(["vectors", block, "--out", str(tmp_path / run), "--seed", "7"]) == 0
    files_a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*.*"))
    files_b = sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*.*"))
    assert files_a == files_b and files_a
    for rel in files_a:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()
    main(["vectors", block, "--out", str(tmp_path / "c"), "--seed", "8"])
    differs = any(
        (tmp_path / "a" / rel).read_bytes() != (tmp_path / "c" / rel).read_bytes()
        for rel in files_a
        if rel.suffix == ".hex"
    )
    assert differs


def test_default_cases_cover_classes() -> None:
    assert {c["mod"] for c in DEFAULT_CASES["qam_demodulator"].values()} == {
        "QPSK",
        "16QAM",
        "64QAM",
    }
    assert {c.get("rv", 0) for c in DEFAULT_CASES["rate_dematcher"].values()} == {0, 1, 2, 3}
    ks = {c["K"] for c in DEFAULT_CASES["turbo_decoder"].values()}
    # One size from each K step class of Table 5.1.3-3 (8, 16, 32, 64) and both ends.
    assert {40, 6144} <= ks and {528, 1056, 2112} <= ks
    assert set(BLOCKS) >= {
        "qam_demodulator",
        "descrambler",
        "rate_dematcher",
        "turbo_decoder",
        "crc_checker",
        "dl_sch_processor",
    }


def test_vectors_replay_through_models(tmp_path: Path) -> None:
    main(["vectors", "qam_demodulator", "--out", str(tmp_path / "q"), "--seed", "1"])
    for case, params in DEFAULT_CASES["qam_demodulator"].items():
        meta, d = _load(tmp_path / "q" / case, "qam_demodulator")
        iq = d["stimulus_eq_iq"] & 0xFFFFFFFF
        yi = ((iq >> 16) ^ 0x8000) - 0x8000
        yq = ((iq & 0xFFFF) ^ 0x8000) - 0x8000
        llr = demodulate_fixed(yi, yq, params["mod"], d["stimulus_llr_scale"])
        assert np.array_equal(llr, d["expected_llr"])
        assert np.abs(llr).max() <= 127
    main(["vectors", "descrambler", "--out", str(tmp_path / "d")])
    meta, d = _load(tmp_path / "d" / "r2_sf1", "descrambler")
    assert np.array_equal(
        descramble(d["stimulus_llr_in"], meta["params"]["c_init"]), d["expected_llr_out"]
    )
    main(
        [
            "vectors",
            "rate_dematcher",
            "--out",
            str(tmp_path / "r"),
            "--params",
            "K=40",
            "E=900",
            "rv=2",
        ]
    )
    meta, d = _load(tmp_path / "r" / "custom", "rate_dematcher")
    p = meta["params"]
    out = rate_dematch_fixed(d["stimulus_e_llr"], p["K"], p["F"], p["rv"], p["N_cb"])
    assert np.array_equal(out.reshape(-1), d["expected_d_llr"])


@pytest.mark.slow
def test_turbo_and_dl_sch_vectors(tmp_path: Path) -> None:
    main(["vectors", "turbo_decoder", "--out", str(tmp_path / "t"), "--seed", "2"])
    for case in DEFAULT_CASES["turbo_decoder"]:
        meta, d = _load(tmp_path / "t" / case, "turbo_decoder")
        k = meta["params"]["K"]
        res = turbo_decode(d["stimulus_d_llr"].reshape(3, k + 4), 8, crc="24B", fixed=True)
        assert np.array_equal(res.bits[0], d["expected_bits"])
        assert np.array_equal(res.llr[0], d["expected_app_llr"])
        assert meta["params"]["crc_ok"]
    main(["vectors", "dl_sch_processor", "--out", str(tmp_path / "s")])
    for case in DEFAULT_CASES["dl_sch_processor"]:
        meta, d = _load(tmp_path / "s" / case, "dl_sch_processor")
        assert d["expected_tb_crc_ok"].tolist() == [1]


def _unpack_iq(words: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    mask = (1 << width) - 1
    w = words & ((1 << 2 * width) - 1)
    sign = 1 << (width - 1)
    return (((w >> width) & mask) ^ sign) - sign, ((w & mask) ^ sign) - sign


def test_front_end_vectors_replay(tmp_path: Path) -> None:
    from silicon_agent.refmodels.cell_config import CellConfig
    from silicon_agent.refmodels.channel_estimator import estimate_channel_fixed
    from silicon_agent.refmodels.equalizer import equalize_fixed
    from silicon_agent.refmodels.ofdm_demodulator import ofdm_demodulate_fixed
    from silicon_agent.refmodels.resource_demapper import extract_pdsch

    main(["vectors", "ofdm_demodulator", "--out", str(tmp_path / "o")])
    meta, d = _load(tmp_path / "o" / "r2_sf0_epa", "ofdm_demodulator")
    si, sq = _unpack_iq(d["stimulus_iq"], 16)
    gi, gq = ofdm_demodulate_fixed(si, sq)
    ei, eq = _unpack_iq(d["expected_grid_iq"], 16)
    assert np.array_equal(gi.reshape(-1), ei) and np.array_equal(gq.reshape(-1), eq)

    main(["vectors", "channel_estimator", "--out", str(tmp_path / "c")])
    meta, d = _load(tmp_path / "c" / "eva_cell5", "channel_estimator")
    p = meta["params"]
    cell = CellConfig(n_cell_id=p["cell_id"], cfi=p["cfi"], subframe=p["subframe"])
    yi, yq = _unpack_iq(d["stimulus_grid_iq"], 16)
    hi, hq, n0 = estimate_channel_fixed(yi.reshape(14, 600), yq.reshape(14, 600), cell)
    assert np.array_equal(pack(hi, hq), d["expected_h_iq"] & 0xFFFFFFFF)
    assert n0 == d["expected_n0"][0] & 0xFFFFFF

    main(["vectors", "equalizer", "--out", str(tmp_path / "e")])
    meta, d = _load(tmp_path / "e" / "mmse_r2", "equalizer")
    yi, yq = _unpack_iq(d["stimulus_y_iq"], 16)
    hi, hq = _unpack_iq(d["stimulus_h_iq"], 16)
    xi, xq, sc = equalize_fixed(yi, yq, hi, hq, int(d["stimulus_n0"][0] & 0xFFFFFF), "mmse")
    assert np.array_equal(pack(xi, xq), d["expected_x_iq"] & 0xFFFFFFFF)
    assert np.array_equal(sc, d["expected_llr_scale"])

    main(["vectors", "resource_demapper", "--out", str(tmp_path / "r")])
    meta, d = _load(tmp_path / "r" / "r2_sf0", "resource_demapper")
    p = meta["params"]
    cell = CellConfig(n_cell_id=p["cell_id"], cfi=p["cfi"], subframe=p["subframe"])
    gi, gq = _unpack_iq(d["stimulus_grid_iq"], 16)
    prbs = np.array(p["prbs"])
    got = pack(
        extract_pdsch(gi.reshape(14, 600), cell, prbs),
        extract_pdsch(gq.reshape(14, 600), cell, prbs),
    )
    assert np.array_equal(got, d["expected_pdsch_iq"] & 0xFFFFFFFF)
    assert got.size * 2 == p["G"] == 12960


def pack(i: np.ndarray, q: np.ndarray) -> np.ndarray:
    from silicon_agent.refmodels.hexio import pack_iq

    return pack_iq(np.asarray(i).reshape(-1), np.asarray(q).reshape(-1), 16)
