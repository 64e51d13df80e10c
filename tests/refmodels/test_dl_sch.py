"""DL-SCH encode -> AWGN -> decode (36.212 5.3.2 and inverse) and MAC PDUs (36.321 6.1.2)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from silicon_agent.refmodels.descrambler import descramble
from silicon_agent.refmodels.dl_sch_encoder import encode_dl_sch
from silicon_agent.refmodels.dl_sch_processor import decode_dl_sch, extract_mac_sdus
from silicon_agent.refmodels.fixed_point import EQ_OUT, NOISE_SCALE, quantise
from silicon_agent.refmodels.mac_pdu import MacSdu, build_mac_pdu, parse_mac_pdu
from silicon_agent.refmodels.modulation import modulate, modulation_for_qm
from silicon_agent.refmodels.qam_demodulator import demodulate, demodulate_fixed
from silicon_agent.refmodels.scrambling import pdsch_c_init, scramble


def test_mac_pdu_by_hand() -> None:
    # Two SDUs: LCID 3 (5 bytes, with 7-bit L) then LCID 4 (last, no L), no padding.
    pdu = build_mac_pdu([MacSdu(lcid=3, payload=b"hello"), MacSdu(lcid=4, payload=b"ab")], 10)
    assert pdu == bytes([0x20 | 3, 5, 4]) + b"hello" + b"ab"
    # One byte of padding goes in front as a padding subheader with E = 1.
    pdu = build_mac_pdu([MacSdu(lcid=1, payload=b"xyz")], 5)
    assert pdu == bytes([0x3F, 0x01]) + b"xyz"
    # Timing advance CE (LCID 29, 1 byte) then SDU, then trailing padding with 15-bit L.
    sdus = [MacSdu(lcid=29, payload=b"\x1f"), MacSdu(lcid=2, payload=bytes(200))]
    pdu = build_mac_pdu(sdus, 220)
    assert pdu[:5] == bytes([0x20 | 29, 0x20 | 2, 0x80, 200, 0x1F])
    assert parse_mac_pdu(pdu) == sdus


@settings(max_examples=50, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 400), min_size=1, max_size=4),
    extra=st.integers(0, 300),
    lcids=st.lists(st.integers(1, 10), min_size=4, max_size=4),
)
def test_mac_pdu_roundtrip(sizes: list[int], extra: int, lcids: list[int]) -> None:
    sdus = [MacSdu(lcid=lcids[i], payload=bytes([i + 1]) * n) for i, n in enumerate(sizes)]
    total = sum(sizes) + 3 * len(sizes) + 1 + extra
    if extra in (1, 2) or extra >= 4:
        assert parse_mac_pdu(build_mac_pdu(sdus, total)) == sdus


@pytest.mark.parametrize(
    ("tbs", "g", "qm", "snr_db"),
    [
        (4392, 13800, 2, 2.0),  # R.2
        (4392, 12960, 2, 2.5),  # R.2 in subframe 0
        (10296, 26100, 6, 15.0),  # R.31-1
        (1544, 3000, 4, 8.0),
        (1008, 3000, 2, 2.0),  # B = 1032 -> K = 1056 with 24 filler bits
        (13000, 20000, 4, 9.0),  # C = 3 with K- and K+ blocks
    ],
)
@pytest.mark.parametrize("fixed", [False, True])
def test_dl_sch_chain(
    tbs: int, g: int, qm: int, snr_db: float, fixed: bool, rng: np.random.Generator
) -> None:
    mod = modulation_for_qm(qm)
    sdus = [MacSdu(lcid=5, payload=rng.integers(0, 256, 64).astype(np.uint8).tobytes())]
    tb = np.unpackbits(np.frombuffer(build_mac_pdu(sdus, tbs // 8), np.uint8))
    f, plan = encode_dl_sch(tb, g, qm)
    c_init = pdsch_c_init(0x4601, 42, 3)
    x = modulate(scramble(f, c_init), mod)
    n0 = 10 ** (-snr_db / 10)
    y = x + np.sqrt(n0 / 2) * (rng.normal(size=x.size) + 1j * rng.normal(size=x.size))
    if fixed:
        llr = demodulate_fixed(
            quantise(y.real, EQ_OUT),
            quantise(y.imag, EQ_OUT),
            mod,
            int(quantise(np.array(1 / n0), NOISE_SCALE)),
        )
    else:
        llr = demodulate(y, mod, n0)
    pre_fec_errors = int(((descramble(llr, c_init) > 0) != f).sum())
    assert pre_fec_errors > 0  # the channel really did corrupt bits
    res = decode_dl_sch(descramble(llr, c_init), plan, fixed=fixed)
    assert res.tb_crc_ok and all(res.cb_crc_ok)
    assert np.array_equal(np.array(res.tb_bits, np.uint8), tb)
    assert extract_mac_sdus(np.array(res.tb_bits, np.uint8)) == sdus


def test_dl_sch_detects_failure(rng: np.random.Generator) -> None:
    tb = rng.integers(0, 2, 4392).astype(np.uint8)
    f, plan = encode_dl_sch(tb, 13800, 2)
    llr = rng.normal(0, 1, f.size)  # pure noise
    res = decode_dl_sch(llr, plan)
    assert not res.tb_crc_ok
    assert res.iterations == [8]


def test_segmentation_cases_used_above() -> None:
    from silicon_agent.refmodels.segmentation import segmentation_params

    assert segmentation_params(1032).F == 24
    seg = segmentation_params(13024)
    assert seg.C == 3 and seg.C_minus > 0 and seg.K_minus < seg.K_plus


def test_harq_soft_combining_rv0_rv2(rng: np.random.Generator) -> None:
    from silicon_agent.refmodels.rate_dematcher import rate_dematch
    from silicon_agent.refmodels.turbo_decoder import turbo_decode

    tbs, g = 4392, 7000  # high code rate: a single transmission at this SNR fails
    tb = rng.integers(0, 2, tbs).astype(np.uint8)
    n0 = 10 ** (-0.5 / 10)
    soft = None
    results = []
    for rv in (0, 2):
        f, plan = encode_dl_sch(tb, g, 2, rv)
        x = modulate(f, "QPSK")
        y = x + np.sqrt(n0 / 2) * (rng.normal(size=x.size) + 1j * rng.normal(size=x.size))
        cb = plan.blocks[0]
        soft = rate_dematch(demodulate(y, "QPSK", n0), cb.K, cb.F, rv, cb.N_cb, soft)
        res = turbo_decode(soft, 8, crc="24A")
        results.append(bool(res.crc_ok[0]))
    assert results == [False, True]
