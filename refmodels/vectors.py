"""Golden vectors for the RTL blocks: stimulus and expected output as ``$readmemh`` files plus a
JSON sidecar with every parameter, the fixed-point formats and the 3GPP references.

Each block has a default set of cases covering every modulation order / code-block size class
it handles; ``--params k=v`` replaces the defaults with one custom case.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from silicon_agent.refmodels.cell_config import (
    N_FFT,
    N_SC,
    N_SYMB_SF,
    N_SYMB_SLOT,
    SAMPLES_PER_SUBFRAME,
    CellConfig,
    cp_length,
)
from silicon_agent.refmodels.channel import awgn, multipath
from silicon_agent.refmodels.channel_estimator import estimate_channel_fixed
from silicon_agent.refmodels.crc import crc_attach, crc_check, crc_remainder
from silicon_agent.refmodels.crs import crs_subcarriers, crs_values
from silicon_agent.refmodels.descrambler import descramble, descramble_fixed
from silicon_agent.refmodels.dl_sch_encoder import DlSchPlan, encode_dl_sch
from silicon_agent.refmodels.dl_sch_processor import (
    decode_dl_sch,
    decode_soft_blocks,
    dematch_blocks,
)
from silicon_agent.refmodels.equalizer import equalize_fixed
from silicon_agent.refmodels.fixed_point import (
    APP_LLR,
    CHAN_EST,
    EQ_OUT,
    FFT_OUT,
    IQ_SAMPLE,
    LLR,
    NOISE_SCALE,
    NOISE_VAR,
    formats_table,
    quantise,
)
from silicon_agent.refmodels.gold import gold_sequence
from silicon_agent.refmodels.hexio import pack_iq, write_hex
from silicon_agent.refmodels.modulation import BITS_PER_SYMBOL, modulate, modulation_for_qm
from silicon_agent.refmodels.ofdm_demodulator import (
    FFT_ADVANCE,
    SCALED_STAGES,
    ofdm_demodulate_fixed,
    symbol_starts,
)
from silicon_agent.refmodels.ofdm_modulator import ofdm_modulate
from silicon_agent.refmodels.qam_demodulator import FIXED_SHIFT, demodulate_fixed, level_raw
from silicon_agent.refmodels.qpp_table import VALID_K, qpp_params
from silicon_agent.refmodels.rate_dematcher import rate_dematch_fixed
from silicon_agent.refmodels.rate_matching import n_cb, rate_match
from silicon_agent.refmodels.reference_channels import REFERENCE_CHANNELS
from silicon_agent.refmodels.resource_demapper import extract_pdsch
from silicon_agent.refmodels.resource_grid import build_subframe, pdsch_capacity, pdsch_mask
from silicon_agent.refmodels.scrambling import pdsch_c_init, scramble
from silicon_agent.refmodels.segmentation import (
    Segmentation,
    desegment,
    segment,
    segmentation_params,
)
from silicon_agent.refmodels.turbo_decoder import turbo_decode
from silicon_agent.refmodels.turbo_encoder import turbo_encode


class VectorFile(BaseModel):
    """One ``$readmemh`` file of a case."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    role: str  # "stimulus" | "expected"
    width: int
    signed: bool
    description: str
    values: np.ndarray


class FileMeta(BaseModel):
    """JSON description of one ``$readmemh`` file."""

    file: str
    role: str
    width: int
    signed: bool
    words: int
    description: str


class VectorSidecar(BaseModel):
    """The JSON sidecar written next to each case's hex files."""

    block: str
    case: str
    seed: int
    params: dict[str, Any]
    references: list[str]
    files: list[FileMeta]
    formats: list[dict[str, Any]]
    llr_convention: str = "positive LLR = bit 1"
    iq_packing: str = "{I, Q}: I in the upper half of the word"


def _f(name: str, role: str, width: int, signed: bool, desc: str, values: np.ndarray) -> VectorFile:
    """F (tooling, no 3GPP clause)."""
    return VectorFile(
        name=name,
        role=role,
        width=width,
        signed=signed,
        description=desc,
        values=np.asarray(values, dtype=np.int64).reshape(-1),
    )


def _awgn(x: np.ndarray, n0: float, rng: np.random.Generator) -> np.ndarray:
    """Awgn (tooling, no 3GPP clause)."""
    return x + np.sqrt(n0 / 2) * (rng.normal(size=x.size) + 1j * rng.normal(size=x.size))


def _drawn(p: dict, rng: np.random.Generator) -> np.random.Generator:
    """The random stream of a case whose parameters are drawn (``draw`` = k > 0): its own
    stream per k, so the drawn cases of one seed differ (tooling, no 3GPP clause)."""
    if not p.get("draw"):
        return rng
    return np.random.default_rng([int(rng.integers(1 << 32)), int(p["draw"])])


def _llr_stream(
    n_bits: int, snr_db: float, rng: np.random.Generator, bits: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """QPSK-AWGN channel LLRs quantised to LLR for given (or random) bits (TS 36.211 7.1 QPSK)."""
    if bits is None:
        bits = rng.integers(0, 2, n_bits).astype(np.uint8)
    pad = (-bits.size) % 2
    b = np.concatenate([bits, np.zeros(pad, np.uint8)])
    n0 = 10 ** (-snr_db / 10)
    y = _awgn(modulate(b, "QPSK"), n0, rng)
    llr = np.empty(b.size)
    # Exact QPSK max-log LLR: 2*sqrt(2)*y/N0 per axis, positive = bit 1 (symbol -1/sqrt 2).
    llr[0::2] = -2 * np.sqrt(2) * y.real / n0
    llr[1::2] = -2 * np.sqrt(2) * y.imag / n0
    return bits, quantise(llr[: bits.size], LLR)


# ---------------------------------------------------------------- per-block generators


def _qam_demodulator(p: dict, rng: np.random.Generator) -> tuple[list[VectorFile], list[str]]:
    """Qam demodulator (TS 36.211 7.1)."""
    rng = _drawn(p, rng)
    mod = str(p.get("mod", "QPSK"))
    base_snr = {"QPSK": 4.0, "16QAM": 10.0, "64QAM": 16.0}[mod]
    drawn = bool(p.get("draw"))
    # Drawn: the symbol count, the SNR (LLRs from small to saturated) and a wider 1/N0 spread.
    n = int(p.get("n_symbols", rng.integers(200, 700) if drawn else 600))
    snr = float(p.get("snr_db", round(base_snr + rng.uniform(-6, 10), 2) if drawn else base_snr))
    qm = BITS_PER_SYMBOL[mod]
    bits = rng.integers(0, 2, qm * n).astype(np.uint8)
    n0 = 10 ** (-snr / 10)
    # Per-RE 1/N0 spread as after a frequency-selective channel and a ZF equaliser.
    gain = rng.uniform(0.25, 2.0, n) if drawn else rng.uniform(0.5, 1.5, n)
    y = _awgn(modulate(bits, mod), n0 / gain**2, rng)
    yi, yq = quantise(y.real, EQ_OUT), quantise(y.imag, EQ_OUT)
    scale = quantise(gain**2 / n0, NOISE_SCALE)
    llr = demodulate_fixed(yi, yq, mod, scale)
    p.update(
        mod=mod,
        n_symbols=n,
        snr_db=snr,
        fixed_shift=FIXED_SHIFT,
        levels_raw=level_raw(mod).tolist(),
    )
    return [
        _f(
            "eq_iq",
            "stimulus",
            2 * EQ_OUT.width,
            False,
            "equalised symbol {I,Q}, I in bits [31:16], each EQ_OUT",
            pack_iq(yi, yq, EQ_OUT.width),
        ),
        _f("llr_scale", "stimulus", NOISE_SCALE.width, True, "1/N0 per symbol, NOISE_SCALE", scale),
        _f("llr", "expected", LLR.width, True, "LLRs b0..b(Qm-1) per symbol, LLR format", llr),
    ], ["TS 36.211 7.1", "max-log LLR, positive = bit 1"]


def _descrambler(p: dict, rng: np.random.Generator) -> tuple[list[VectorFile], list[str]]:
    """Descrambler (TS 36.211 6.3.1): one codeword, or with ``draw`` 2 to 4 codewords back to
    back, each with its own RNTI, cell, subframe and codeword index q drawn from the case's
    seed, and raw -128 words among the LLRs (the negation saturates)."""
    rng = _drawn(p, rng)
    if p.get("draw"):
        n_cw = int(p.get("n_codewords", rng.integers(2, 5)))
        lengths = [int(rng.integers(200, 2000)) for _ in range(n_cw)]
        qs = [int(q) for q in rng.permutation([0, 1] + [int(rng.integers(2))] * (n_cw - 2))]
        configs = [
            (int(rng.integers(1, 1 << 16)), int(rng.integers(504)), int(rng.integers(10)), q)
            for q in qs
        ]
    else:
        n_cw = 1
        lengths = [int(p.get("n_bits", 13800))]
        configs = [
            (int(p.get("rnti", 0x003D)), int(p.get("cell_id", 0)), int(p.get("subframe", 1)), 0)
        ]
    llr_in, llr_out, gold, words = [], [], [], []
    for n, (rnti, cell, sf, q) in zip(lengths, configs, strict=True):
        c_init = pdsch_c_init(rnti, cell, sf, q)
        _, llr = _llr_stream(n, 5.0, rng)
        if p.get("draw"):
            llr[rng.random(n) < 0.02] = -(LLR.max_raw + 1)
        llr_in.append(llr)
        llr_out.append(descramble_fixed(llr, c_init))
        gold.append(gold_sequence(c_init, n))
        words.append((n << 32) | c_init)
    rnti, cell, sf, _ = configs[0]
    p.update(
        n_bits=sum(lengths),
        n_codewords=n_cw,
        rnti=rnti,
        cell_id=cell,
        subframe=sf,
        c_init=words[0] & 0xFFFFFFFF,
        codewords=[
            {"n": n, "rnti": r, "cell_id": c, "subframe": s, "q": q}
            for n, (r, c, s, q) in zip(lengths, configs, strict=True)
        ],
    )
    return [
        _f("llr_in", "stimulus", LLR.width, True, "scrambled LLRs", np.concatenate(llr_in)),
        _f(
            "codewords",
            "stimulus",
            48,
            False,
            "per codeword {n[15:0], c_init[31:0]}: c_init = rnti*2^14 + q*2^13 + sf*2^9 + cell",
            np.array(words),
        ),
        _f("gold", "expected", 1, False, "c(n) of 36.211 7.2 (debug aid)", np.concatenate(gold)),
        _f("llr_out", "expected", LLR.width, True, "descrambled LLRs", np.concatenate(llr_out)),
    ], ["TS 36.211 6.3.1", "TS 36.211 7.2"]


def _saturate_some(llr: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """About 5 % of the LLRs at +-LLR.max_raw, their sign kept (tooling, no 3GPP clause)."""
    out = llr.copy()
    hit = rng.random(llr.size) < 0.05
    out[hit] = np.where(llr[hit] < 0, -LLR.max_raw, LLR.max_raw)
    return out


def _rate_dematcher(p: dict, rng: np.random.Generator) -> tuple[list[VectorFile], list[str]]:
    """Rate dematcher (TS 36.212 5.1.4.1). With ``draw`` = k the case is a drawn HARQ pair: K of
    any QPP size, E and E2 from a fraction of N_cb to three times it, saturated LLRs among them;
    case 1 with N_cb limited and filler bits or none, case 2 with N_cb = K_w and filler bits;
    redundancy versions rv = (r + 2k - 2) mod 4 and rv2 = rv + 1 with r drawn once per seed, so
    cases 1 and 2 of a seed send all four."""
    if p.get("draw"):
        shared = int(rng.integers(1 << 32))  # the seed's word, the same for each drawn case
        rng = np.random.default_rng([shared, int(p["draw"])])
        p.setdefault("K", int(rng.choice(VALID_K)))
        kw = 3 * 32 * -(-(int(p["K"]) + 4) // 32)
        first = int(p["draw"]) % 2 == 1
        # Case 1: N_cb limited (floor(N_IR / C) of a larger transport block) down to 0.55 K_w,
        # filler bits or none; case 2: N_cb = K_w and filler bits.
        filler = int(rng.integers(1, min(64, int(p["K"]) // 2)))
        p.setdefault("F", filler if not first or rng.random() < 0.5 else 0)
        p.setdefault("N_cb", int(rng.integers(kw * 11 // 20, kw)) if first else kw)
        cap = min(3 * int(p["N_cb"]), 24000)
        # Case 1's first transmission is longer than N_cb: it wraps.
        low = int(p["N_cb"]) if first else kw // 4
        p.setdefault("E", int(rng.integers(min(low, cap - 1), cap)))
        p.setdefault("E2", int(rng.integers(min(kw // 4, cap - 1), cap)))
        p.setdefault("rv", (shared + 2 * int(p["draw"]) - 2) % 4)
        p.setdefault("rv2", (int(p["rv"]) + 1) % 4)
        # The retransmission's own buffer (testbench): after the first's in process 0 (case 1),
        # or in process 1 over the first's words (case 2).
        d_len = int(p["K"]) + 4
        if first:
            p.setdefault("proc2", 0)
            p.setdefault("off2", int(rng.integers(d_len, 2 * (6144 + 4) - d_len + 1)))
        else:
            p.setdefault("proc2", 1)
            p.setdefault("off2", int(rng.integers(0, d_len)))
    k = int(p.get("K", 4416))
    f = int(p.get("F", 0))
    c = int(p.get("C", 1))
    e = int(p.get("E", 13800))
    rv = int(p.get("rv", 0))
    ncb = int(p.get("N_cb", n_cb(k, c)))
    cbits = rng.integers(0, 2, k).astype(np.uint8)
    cbits[:f] = 0
    # HARQ: a retransmission (redundancy version rv2, E2 LLRs) combined into the soft buffer
    # the first transmission left; rv2 = -1 means none.
    rv2 = int(p.get("rv2", -1))
    e2 = int(p.get("E2", e)) if rv2 >= 0 else 0
    d = turbo_encode(cbits)
    tx = rate_match(d, f, e, rv, ncb)
    _, llr = _llr_stream(e, 3.0, rng, tx)
    if p.get("draw"):  # saturated LLRs (about 5 %), so that combined ones saturate the sum
        llr = _saturate_some(llr, rng)
    out = rate_dematch_fixed(llr, k, f, rv, ncb)
    p.setdefault("proc2", 0)
    p.setdefault("off2", 6144 + 4)
    p.update(K=k, F=f, C=c, E=e, rv=rv, N_cb=ncb, rv2=rv2, E2=e2)
    if p.get("draw"):  # what the case sends, for the coverage map's needs
        limited = ncb < 3 * 32 * -(-(k + 4) // 32)
        p.update(
            rvs=[rv, rv2],
            n_cb_kind="limited" if limited else "full",
            filler_kind="filler" if f > 0 else "none",
        )
    files = [
        _f("e_llr", "stimulus", LLR.width, True, "E rate-matched LLRs of one code block", llr),
        _f(
            "d_llr",
            "expected",
            LLR.width,
            True,
            "soft d0[0..K+3], d1[..], d2[..] (stream-major), saturating accumulate",
            out,
        ),
    ]
    if rv2 >= 0:
        _, llr2 = _llr_stream(e2, 3.0, rng, rate_match(d, f, e2, rv2, ncb))
        if p.get("draw"):
            llr2 = _saturate_some(llr2, rng)
        combined = rate_dematch_fixed(llr2, k, f, rv2, ncb, soft_buffer=out)
        alone = rate_dematch_fixed(llr2, k, f, rv2, ncb)
        files += [
            _f("e2_llr", "stimulus", LLR.width, True, "E2 LLRs of the retransmission", llr2),
            _f(
                "d2_alone_llr",
                "expected",
                LLR.width,
                True,
                "soft d streams of the retransmission alone, into a cleared buffer",
                alone,
            ),
            _f(
                "d2_llr",
                "expected",
                LLR.width,
                True,
                "soft d streams after combining the retransmission into d_llr",
                combined,
            ),
        ]
    refs = ["TS 36.212 5.1.4.1"]
    return files, refs + (["TS 36.321 5.3.2.2 soft combining"] if rv2 >= 0 else [])


def _turbo_decoder(p: dict, rng: np.random.Generator) -> tuple[list[VectorFile], list[str]]:
    """Turbo decoder (TS 36.212 5.1.3.2)."""
    k = int(p.get("K", 6144))
    iters = int(p.get("iters", 8))
    ebn0 = float(p.get("ebn0_db", 1.0))
    crc = str(p.get("crc", "24B"))
    info = rng.integers(0, 2, k - 24).astype(np.uint8)
    c = crc_attach(info, crc)  # type: ignore[arg-type]
    d = turbo_encode(c)
    rate = k / (3 * (k + 4))
    n0 = 1.0 / (rate * 10 ** (ebn0 / 10))
    y = (2.0 * d - 1.0) + rng.normal(0, np.sqrt(n0 / 2), d.shape)
    llr = quantise(4.0 * y / n0, LLR)
    res = turbo_decode(llr, iters, crc=crc, fixed=True)
    p.update(
        K=k,
        iters=iters,
        ebn0_db=ebn0,
        crc=crc,
        iterations_used=int(res.iterations[0]),
        crc_ok=bool(res.crc_ok[0]),
        extrinsic_scale="x - (x >>> 2)",
        # The interleaver's QPP parameters for this K (TS 36.212 Table 5.1.3-3), so a
        # testbench reads them from the sidecar like any other parameter.
        f1=qpp_params(k)[0],
        f2=qpp_params(k)[1],
    )
    return [
        _f("d_llr", "stimulus", LLR.width, True, "d0[0..K+3], d1[..], d2[..] (stream-major)", llr),
        _f("bits", "expected", 1, False, "decoded c_0..c_{K-1}", res.bits[0]),
        _f(
            "app_llr",
            "expected",
            APP_LLR.width,
            True,
            "a-posteriori LLR, natural order",
            res.llr[0],
        ),
        _f("iterations", "expected", 4, False, "full iterations run", res.iterations[:1]),
    ], ["TS 36.212 5.1.3.2", "max-log-MAP, early stop on CRC"]


def _crc_checker(p: dict, rng: np.random.Generator) -> tuple[list[VectorFile], list[str]]:
    """Crc checker (TS 36.212 5.1.1)."""
    rng = _drawn(p, rng)
    crc = str(p.get("crc", "24B"))
    drawn = bool(p.get("draw"))
    if drawn and "K" not in p:
        # A code block size of Table 5.1.3-3 for CRC-24B, any whole-byte transport block for 24A.
        k = int(rng.choice(VALID_K)) if crc == "24B" else 8 * int(rng.integers(2, 765)) + 24
    else:
        k = int(p.get("K", 6144))
    n_blocks = int(rng.integers(4, 8)) if drawn else 4
    blocks = [
        crc_attach(rng.integers(0, 2, k - 24).astype(np.uint8), crc)  # type: ignore[arg-type]
        for _ in range(n_blocks)
    ]
    blocks[1] = blocks[1].copy()
    blocks[1][rng.integers(k)] ^= 1
    blocks[3] = blocks[3].copy()
    blocks[3][:2] ^= 1
    if drawn:  # and a burst in a drawn block, parity bits included
        hit = int(rng.integers(n_blocks))
        start = int(rng.integers(k - 8))
        blocks[hit] = blocks[hit].copy()
        blocks[hit][start : start + 8] ^= rng.integers(0, 2, 8).astype(np.uint8)
    syn = [crc_remainder(b, crc) for b in blocks]  # type: ignore[arg-type]
    p.update(crc=crc, K=k, n_blocks=n_blocks)
    return [
        _f("bits", "stimulus", 1, False, "blocks of K bits, CRC last", np.concatenate(blocks)),
        _f("syndrome", "expected", 24, False, "CRC register after each block", np.array(syn)),
        _f(
            "pass",
            "expected",
            1,
            False,
            "1 when the syndrome is zero",
            np.array([int(s == 0) for s in syn]),
        ),
    ], ["TS 36.212 5.1.1"]


def _segments(seg: Segmentation, app: np.ndarray) -> dict[str, int]:
    """What the DL-SCH testbench reads of a transport block's segmentation (TS 36.212 5.1.2)."""
    return {
        "C": seg.C,
        "F": seg.F,
        "K_plus": seg.K_plus,
        "K_minus": seg.K_minus,
        "C_minus": seg.C_minus,
        "n_app": int(app.size),
    }


def _dl_sch_drawn(p: dict, rng: np.random.Generator) -> tuple[list[VectorFile], list[str]]:
    """A drawn DL-SCH back-end case (TS 36.212 5.1.2, 5.1.1): ``draw`` 1 and 3 one code block
    (A = 16 to 6120), 2 two to eight, K- blocks and filler bits among them; a random transport
    block, CRC-24A, segmented; the APP LLRs of its code blocks signed by their bits (LLR > 0 for
    a 1; 0 and the most negative word among the 0s), the filler positions random, and 1 to 3
    data bits flipped so that the CRC-24A fails in one of draws 1 and 3 and, by the seed, in
    draw 2 or not (tooling, no 3GPP clause)."""
    shared = int(rng.integers(1 << 32))  # the seed's word, the same for each drawn case
    rng = np.random.default_rng([shared, int(p["draw"])])
    if int(p["draw"]) != 2:
        a = 8 * int(rng.integers(2, 6120 // 8 + 1))
    else:  # with K- blocks and filler bits
        a = 0
        while (
            not a or segmentation_params(a + 24).C_minus == 0 or not segmentation_params(a + 24).F
        ):
            c = int(rng.integers(2, 9))
            a = 8 * int(rng.integers(((c - 1) * 6120 - 24) // 8 + 1, (c * 6120 - 24) // 8 + 1))
    b = crc_attach(rng.integers(0, 2, a).astype(np.uint8), "24A")
    blocks, seg = segment(b)
    top = APP_LLR.max_raw
    llrs = []
    for blk in blocks:
        mag = rng.integers(1, top + 1, blk.size)
        mag[rng.random(blk.size) < 0.02] = 0  # LLR 0 is a 0
        llr = np.where(blk == 1, np.maximum(mag, 1), -mag)
        llr[rng.random(blk.size) < 0.01] = -top - 1
        llr[blk == 1] = np.maximum(llr[blk == 1], 1)
        llrs.append(llr.astype(np.int64))
    llrs[0][: seg.F] = rng.integers(-top - 1, top + 1, seg.F)  # filler: dropped, any value
    fail = (shared + min(int(p["draw"]), 2) + (int(p["draw"]) == 2 and shared >> 1)) % 2 == 0
    if fail:
        for _ in range(int(rng.integers(1, 4))):
            r = int(rng.integers(seg.C))
            k = int(rng.integers(seg.filler(r), blocks[r].size - seg.L))
            llrs[r][k] = -llrs[r][k] if llrs[r][k] > 0 else int(rng.integers(1, top + 1))
    hard = desegment([(x > 0).astype(np.uint8) for x in llrs], seg)
    ok = crc_check(hard, "24A")
    app = np.concatenate(llrs)
    p.update(
        tbs=a,
        **_segments(seg, app),
        tb_crc_ok=ok,
        corners=sorted(
            {"llr_zero" for x in llrs if np.any(x == 0)}
            | {"llr_min" for x in llrs if np.any(x == -top - 1)}
            | ({"k_minus"} if seg.C_minus > 0 else set())
            | ({"filler"} if seg.F > 0 else set())
            | {"one_cb" if seg.C == 1 else "cb_crc24b"}
            | ({"one_cb_pass"} if seg.C == 1 and ok else set())
        ),
    )
    return [
        _f("cb_app_llr", "stimulus", APP_LLR.width, True, "per code block APP_LLR", app),
        _f(
            "tb_bytes",
            "expected",
            8,
            False,
            "transport block, MSB first",
            np.packbits(hard[:-24]),
        ),
        _f("tb_crc_ok", "expected", 1, False, "CRC-24A pass", np.array([int(ok)])),
    ], ["TS 36.212 5.1.2", "TS 36.212 5.1.1"]


def _dl_sch_processor(p: dict, rng: np.random.Generator) -> tuple[list[VectorFile], list[str]]:
    """Dl sch processor (TS 36.212 5.3.2); with ``draw`` the APP LLRs of `_dl_sch_drawn`."""
    if p.get("draw"):
        return _dl_sch_drawn(p, rng)
    tbs = int(p.get("tbs", 4392))
    g = int(p.get("G", 13800))
    qm = int(p.get("Qm", 2))
    rv = int(p.get("rv", 0))
    snr = float(p.get("snr_db", 3.0))
    tb = rng.integers(0, 2, tbs).astype(np.uint8)
    f, plan = encode_dl_sch(tb, g, qm, rv)
    _, llr = _llr_stream(g, snr, rng, f)
    res = decode_dl_sch(llr, plan, fixed=True)
    seg = plan.seg
    # The desegmentation stage's input: every code block's APP LLRs as the turbo decoder
    # emits them (K_r each, the C- smaller blocks first); its hard decisions are LLR > 0.
    app = np.concatenate([np.asarray(a, np.int64) for a in res.cb_app_llr])
    assert app.size == sum(seg.block_sizes())
    p.update(
        tbs=tbs,
        G=g,
        Qm=qm,
        rv=rv,
        snr_db=snr,
        plan=plan.model_dump(),
        **_segments(seg, app),
        tb_crc_ok=res.tb_crc_ok,
        cb_crc_ok=res.cb_crc_ok,
        iterations=res.iterations,
    )
    tb_out = np.packbits(np.array(res.tb_bits, np.uint8))
    return [
        _f("codeword_llr", "stimulus", LLR.width, True, "G descrambled codeword LLRs", llr),
        _f(
            "cb_app_llr",
            "stimulus",
            APP_LLR.width,
            True,
            "turbo decoder output per code block, APP_LLR, natural order, C- blocks first",
            app,
        ),
        _f("tb_bytes", "expected", 8, False, "decoded transport block, MSB first", tb_out),
        _f(
            "cb_crc_ok",
            "expected",
            1,
            False,
            "CRC pass per code block",
            np.array(res.cb_crc_ok, np.int64),
        ),
        _f("tb_crc_ok", "expected", 1, False, "CRC-24A pass", np.array([int(res.tb_crc_ok)])),
    ], ["TS 36.212 5.3.2", "TS 36.212 5.1.2", "TS 36.212 5.1.4.1"]


def _through_channel(
    tx: np.ndarray, chan: str, doppler: float, snr: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Time-domain samples through a TS 36.101 B.2 profile (none for "awgn") and AWGN at snr dB,
    scaled by the AGC and quantised to IQ_SAMPLE as the receiver's ADC delivers them."""
    from silicon_agent.refmodels.e2e import AGC_TARGET_RMS

    faded = tx if chan == "awgn" else multipath(tx, chan, doppler, rng)  # type: ignore[arg-type]
    rx = awgn(faded, 10 ** (-snr / 10), rng)
    gain = AGC_TARGET_RMS / np.sqrt(np.mean(np.abs(rx) ** 2))
    return quantise(rx.real * gain, IQ_SAMPLE), quantise(rx.imag * gain, IQ_SAMPLE)


def _rx_grid(p: dict, rng: np.random.Generator) -> tuple:
    """A received subframe (EPA or AWGN) quantised as the fixed receiver sees it (TS 36.211 6.12, TS
    36.101 B.2)."""

    ref = REFERENCE_CHANNELS[str(p.get("rc", "R.2"))]
    qm, cfi, prbs = ref.qm, ref.cfi, ref.prb_array()
    rng = _drawn(p, rng)
    if p.get("draw"):
        # Drawn from the case's seed: cell, subframe, CFI, modulation and any set of RBs
        # (from one RB to all 50), over AWGN unless the case names a channel.
        p.setdefault("cell_id", int(rng.integers(504)))
        p.setdefault("subframe", int(rng.integers(10)))
        p.setdefault("channel", "awgn")
        cfi = int(p.get("cfi", rng.integers(1, 4)))
        qm = int(rng.choice([2, 4, 6]))
        n_rb = int(rng.choice([int(rng.integers(1, 50)), 50]))
        prbs = np.sort(rng.choice(50, n_rb, replace=False)).astype(np.int64)
        if int(p["subframe"]) in (0, 5):
            # PSS/SSS and the PBCH sit in RBs 22..27 (k = 264..335): both edge RBs allocated,
            # so every such call shows where the blocks that drop them start and end.
            prbs = np.union1d(prbs, [22, 27]).astype(np.int64)
    sf = int(p.get("subframe", 1))
    snr = float(p.get("snr_db", 20.0))
    chan = str(p.get("channel", "epa"))
    cell = CellConfig(n_cell_id=int(p.get("cell_id", 1)), cfi=cfi, subframe=sf)
    g = pdsch_capacity(cell, prbs, qm)
    bits = rng.integers(0, 2, g).astype(np.uint8)
    grid = build_subframe(cell, prbs, modulate(bits, modulation_for_qm(qm)), rng)
    doppler = float(p.get("doppler_hz", 5.0))
    si, sq = _through_channel(ofdm_modulate(grid), chan, doppler, snr, rng)
    p.update(
        rc=ref.name,
        subframe=sf,
        snr_db=snr,
        channel=chan,
        cell_id=cell.n_cell_id,
        cfi=cell.cfi,
        prbs=[int(r) for r in prbs],
        Qm=qm,
        G=g,
    )
    return cell, prbs, si, sq


def _ofdm_strong(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A subframe of IQ_SAMPLE words that drives the demodulator to its limits: the even
    symbols' windows two bin-centred tones on used subcarriers (0.55 to 0.7 of full scale, past
    FFT_OUT's +-16 after the FFT, and 0.2 to 0.3), the first tone's phase turning a quarter per
    symbol so that I and Q saturate at both ends; the odd symbols random words over the whole
    range, -32768 and 32767 included (tooling, no 3GPP clause)."""
    lim = 1 << (IQ_SAMPLE.width - 1)
    si = rng.integers(-lim, lim, SAMPLES_PER_SUBFRAME)
    sq = rng.integers(-lim, lim, SAMPLES_PER_SUBFRAME)
    si[rng.integers(SAMPLES_PER_SUBFRAME, size=8)] = -lim
    sq[rng.integers(SAMPLES_PER_SUBFRAME, size=8)] = lim - 1
    n = np.arange(N_FFT)
    used = np.r_[N_FFT - N_SC // 2 : N_FFT, 1 : N_SC // 2 + 1]
    for sym, start in enumerate(symbol_starts()):
        if sym % 2:
            continue
        bins = rng.choice(used, 2, replace=False)
        amp = (rng.uniform(0.55, 0.7), rng.uniform(0.2, 0.3))
        phase = (sym // 2 % 4 * np.pi / 2 + rng.uniform(-0.3, 0.3), rng.uniform(0, 2 * np.pi))
        x = sum(
            a * np.exp(1j * (2 * np.pi * b * n / N_FFT + ph))
            for a, b, ph in zip(amp, bins, phase, strict=True)
        )
        si[start : start + N_FFT] = quantise(x.real, IQ_SAMPLE)
        sq[start : start + N_FFT] = quantise(x.imag, IQ_SAMPLE)
    return si, sq


def _ofdm_demodulator(p: dict, rng: np.random.Generator) -> tuple[list[VectorFile], list[str]]:
    """Ofdm demodulator (TS 36.211 6.12): one received subframe, or with ``draw`` two: one of
    `_ofdm_strong` (the one cut by the reset and then run whole), then a received one (its cell,
    subframe, channel AWGN or EPA, 0 to 30 dB and an input gain of 1/8 to 8 drawn, clipped to
    IQ_SAMPLE), and the sample at which the reset cuts the first pass (tooling for the drawn
    parts, no 3GPP clause)."""
    if p.get("draw"):
        rng = _drawn(p, rng)
        rx = {
            "cell_id": int(rng.integers(504)),
            "subframe": int(rng.integers(10)),
            "channel": str(rng.choice(["awgn", "epa"])),
            "snr_db": round(float(rng.uniform(0, 30)), 2),
        }
        _, _, ri, rq = _rx_grid(rx, rng)
        gain = round(float(2 ** rng.uniform(-3, 3)), 3)
        lim = 1 << (IQ_SAMPLE.width - 1)
        ri, rq = (np.clip(np.round(x * gain), -lim, lim - 1).astype(np.int64) for x in (ri, rq))
        subframes = [_ofdm_strong(rng), (ri, rq)]
        # The reset cuts pass 0 anywhere but at a symbol's first two samples, so that a design
        # that keeps its place in the symbol across the reset shows it.
        firsts = np.cumsum([0] + [cp_length(sym % N_SYMB_SLOT) + N_FFT for sym in range(13)])
        cut = np.setdiff1d(np.arange(1, SAMPLES_PER_SUBFRAME), np.r_[firsts, firsts + 1])
        p.update(rx, gain=gain, abort_at=int(rng.choice(cut)))
    else:
        _, _, si, sq = _rx_grid(p, rng)
        subframes = [(si, sq)]
    grids = [ofdm_demodulate_fixed(si, sq) for si, sq in subframes]
    si, sq = (np.concatenate([np.asarray(s[c]) for s in subframes]) for c in (0, 1))
    gi, gq = (np.concatenate([np.asarray(g[c]) for g in grids]) for c in (0, 1))
    p.update(
        n_sf=len(subframes),
        fft_advance=FFT_ADVANCE,
        scaled_stages=list(SCALED_STAGES),
        output_order="symbol-major, subcarrier k = 0..599 (DC skipped)",
    )
    p.setdefault("abort_at", SAMPLES_PER_SUBFRAME // 3)
    if p.get("draw"):
        top = FFT_OUT.max_raw
        p.update(
            corners=sorted(
                {
                    f"{c}_{s}"
                    for c, g in (("i", gi), ("q", gq))
                    for s, v in (("pos", top), ("neg", -top))
                    if np.any(g == v)
                }
                | {"in_min" for x in (si, sq) if np.any(x == -(1 << (IQ_SAMPLE.width - 1)))}
            )
        )
    return [
        _f(
            "iq",
            "stimulus",
            2 * IQ_SAMPLE.width,
            False,
            "per subframe 15360 samples {I,Q}, IQ_SAMPLE",
            pack_iq(si, sq, IQ_SAMPLE.width),
        ),
        _f(
            "grid_iq",
            "expected",
            2 * FFT_OUT.width,
            False,
            "per subframe 14 x 600 REs {I,Q}, FFT_OUT",
            pack_iq(gi, gq, FFT_OUT.width),
        ),
    ], ["TS 36.211 6.12", "radix-2 DIT, see ofdm_demodulator.py"]


CHEST_KINDS = ("channel", "static", "full")


def _chest_subframe(
    kind: str, cell: CellConfig, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """One drawn channel-estimator subframe, FFT_OUT raw (14, 600) I and Q grids: "channel" a
    received subframe through AWGN or EPA at 0 to 30 dB; "static" random data around pilots that
    are the same channel value V at l and l + 7 and noiseless (Y = V r sqrt2, so the LS estimate
    is 2V 23170 / 2^15 and the noise sum is zero: N0 clamped to 1), V at up to 32000 (estimates
    that saturate); "full" random words over the whole range (noise sum clamped at the top,
    estimates that saturate) (tooling, no 3GPP clause)."""
    lim = 1 << (FFT_OUT.width - 1)
    if kind == "channel":
        p = {
            "cell_id": cell.n_cell_id,
            "subframe": cell.subframe,
            "channel": str(rng.choice(["awgn", "epa"])),
            "snr_db": round(float(rng.uniform(0, 30)), 2),
        }
        _, _, si, sq = _rx_grid(p, rng)
        gi, gq = ofdm_demodulate_fixed(si, sq)
        return np.asarray(gi, np.int64), np.asarray(gq, np.int64)
    if kind == "full":
        return rng.integers(-lim, lim, (N_SYMB_SF, N_SC)), rng.integers(
            -lim, lim, (N_SYMB_SF, N_SC)
        )
    gi = rng.integers(-lim // 4, lim // 4, (N_SYMB_SF, N_SC))
    gq = rng.integers(-lim // 4, lim // 4, (N_SYMB_SF, N_SC))
    n_pilot = 2 * N_SC // 12
    for first in (0, 4):  # l and l + 7 share their pilots' subcarriers
        walk = np.cumsum(rng.normal(0, 600, (n_pilot, 2)), axis=0)
        v = np.clip(np.round(walk - walk.mean(axis=0)), -12000, 12000).astype(np.int64)
        big = rng.random(n_pilot) < 0.1  # |V_I| past 23170: the estimate saturates
        v[big, 0] = rng.choice([-1, 1], int(big.sum())) * rng.integers(23200, 32000, int(big.sum()))
        v[big, 1] = rng.integers(-500, 500, int(big.sum()))
        for sym in (first, first + N_SYMB_SLOT):
            k = crs_subcarriers(sym % N_SYMB_SLOT, cell.n_cell_id)
            r = crs_values(cell.subframe, sym, cell.n_cell_id)
            a = np.where(r.real > 0, 1, -1)
            b = np.where(r.imag > 0, 1, -1)
            gi[sym, k] = a * v[:, 0] - b * v[:, 1]
            gq[sym, k] = a * v[:, 1] + b * v[:, 0]
    return gi, gq


def _channel_estimator(p: dict, rng: np.random.Generator) -> tuple[list[VectorFile], list[str]]:
    """Channel estimator (TS 36.211 6.10.1): one received subframe, or with ``draw`` the three
    kinds of `_chest_subframe` back to back in a drawn order, each with its own cell (0..503)
    and subframe (0..9)."""
    if p.get("draw"):
        rng = _drawn(p, rng)
        kinds = [str(k) for k in rng.permutation(CHEST_KINDS)]
        cells = [
            CellConfig(n_cell_id=int(rng.integers(504)), subframe=int(rng.integers(10)))
            for _ in kinds
        ]
        grids = [_chest_subframe(kind, cell, rng) for kind, cell in zip(kinds, cells, strict=True)]
    else:
        cell, _, si, sq = _rx_grid(p, rng)
        gi, gq = ofdm_demodulate_fixed(si, sq)
        kinds, cells, grids = [], [cell], [(gi, gq)]
    est = [
        estimate_channel_fixed(gi, gq, cell) for (gi, gq), cell in zip(grids, cells, strict=True)
    ]
    n0s = [n0 for _, _, n0 in est]
    p.update(n_sf=len(cells))
    if not p.get("draw"):
        p.update(n0_raw=n0s[0])
    else:
        sat = CHAN_EST.max_raw
        p.update(
            cell_ids=[c.n_cell_id for c in cells],
            subframes=[c.subframe for c in cells],
            kinds=kinds,
            n0s=n0s,
            corners=sorted(
                {"n0_low" for n in n0s if n == 1}
                | {"n0_top" for n in n0s if n == NOISE_VAR.max_raw}
                | {"n0_mid" for n in n0s if 1 < n < NOISE_VAR.max_raw}
                | {"h_saturated" for hi, hq, _ in est if np.any(np.abs(np.stack([hi, hq])) == sat)}
            ),
        )

    def cat(parts: list[np.ndarray]) -> np.ndarray:
        return np.concatenate([np.asarray(x).reshape(-1) for x in parts])

    return [
        _f(
            "grid_iq",
            "stimulus",
            2 * FFT_OUT.width,
            False,
            "per subframe 14 x 600 REs {I,Q}, FFT_OUT",
            cat([pack_iq(gi, gq, FFT_OUT.width) for gi, gq in grids]),
        ),
        _f(
            "cfg",
            "stimulus",
            9 + 4,
            False,
            "per subframe {cell_id_i, subframe_i}",
            np.array([c.n_cell_id << 4 | c.subframe for c in cells]),
        ),
        _f(
            "h_iq",
            "expected",
            2 * CHAN_EST.width,
            False,
            "per subframe 14 x 600 estimates {I,Q}, CHAN_EST",
            cat([pack_iq(hi, hq, CHAN_EST.width) for hi, hq, _ in est]),
        ),
        _f("n0", "expected", NOISE_VAR.width, False, "per subframe N0, NOISE_VAR", np.array(n0s)),
    ], ["TS 36.211 6.10.1", "LS + linear interpolation, see channel_estimator.py"]


def _equalizer_draw(
    p: dict, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A drawn equaliser case: 400 to 1500 REs of QAM symbols through channel taps from deep
    fades (H = 0 and |H| of a few LSBs, whose quotients saturate) to full scale, some Y and H at
    the words' limits, and N0 (0 to 2^24 - 1, log-uniform) and ZF/MMSE changing from RE to RE
    (tooling, no 3GPP clause)."""
    n = int(rng.integers(400, 1501))
    lim = 1 << (FFT_OUT.width - 1)
    kind = rng.choice(5, n, p=[0.6, 0.12, 0.05, 0.08, 0.15])
    # Every call holds each corner the brief promises: H = 0 under ZF and under MMSE (forced on
    # four REs below), N0 = 0 and the top N0 (forced on one run each).
    forced = rng.choice(n, 4, replace=False)
    kind[forced] = 2
    amp = np.where(kind == 1, rng.uniform(0, 12, n), 2.0**CHAN_EST.frac * rng.uniform(0.05, 4, n))
    h = amp * np.exp(2j * np.pi * rng.random(n))
    h[kind == 2] = 0
    h[kind == 3] = rng.choice([-lim, lim - 1], (int(np.sum(kind == 3)), 2)) @ [1, 1j]
    full = kind == 4
    h[full] = rng.integers(-lim, lim, (int(np.sum(full)), 2)) @ [1, 1j]
    hi = np.clip(np.round(h.real), -lim, lim - 1).astype(np.int64)
    hq = np.clip(np.round(h.imag), -lim, lim - 1).astype(np.int64)
    sym = modulate(rng.integers(0, 2, 6 * n).astype(np.uint8), "64QAM")
    noise = rng.normal(0, rng.uniform(1, 400), n) * np.exp(2j * np.pi * rng.random(n))
    y = (hi + 1j * hq) * sym + noise
    y[full] = rng.integers(-lim, lim, (int(np.sum(full)), 2)) @ [1, 1j]
    yi = np.clip(np.round(y.real), -lim, lim - 1).astype(np.int64)
    yq = np.clip(np.round(y.imag), -lim, lim - 1).astype(np.int64)
    # N0 in runs of 1 to 40 REs, each log-uniform over the word, 0 and the top value among them.
    runs = np.repeat(np.arange(n), rng.integers(1, 41, n))[:n]
    top = (1 << NOISE_VAR.width) - 1
    n0_run = np.minimum(np.floor(2.0 ** rng.uniform(0, NOISE_VAR.width, n)).astype(np.int64), top)
    n0_run[rng.random(n) < 0.04] = 0
    n0_run[rng.random(n) < 0.02] = top
    # At least ten runs (400 REs or more, runs of at most 40): one gets N0 = 0, another the top.
    zero_run, top_run = rng.choice(np.unique(runs), 2, replace=False)
    n0_run[zero_run], n0_run[top_run] = 0, top
    n0 = n0_run[runs]
    mmse = (rng.random(n) < 0.5).astype(np.int64)
    mmse[forced] = [0, 0, 1, 1]
    return yi, yq, hi, hq, n0, mmse


def _equalizer(p: dict, rng: np.random.Generator) -> tuple[list[VectorFile], list[str]]:
    """Equalizer (receiver for TS 36.211 6.3.5): a received subframe's PDSCH REs, or with
    ``draw`` the REs of `_equalizer_draw`."""
    method = str(p.get("method", "zf"))
    if p.get("draw"):
        yi, yq, ei, eq, n0_re, mmse_re = _equalizer_draw(p, _drawn(p, rng))
        xi, xq, sc = (np.empty(yi.size, np.int64) for _ in range(3))
        for n0_one, mmse_one in set(zip(n0_re.tolist(), mmse_re.tolist(), strict=True)):
            at = (n0_re == n0_one) & (mmse_re == mmse_one)
            xi[at], xq[at], sc[at] = equalize_fixed(
                yi[at], yq[at], ei[at], eq[at], n0_one, "mmse" if mmse_one else "zf"
            )
        n0 = int(n0_re[0])
        den = np.where(mmse_re == 1, ei * ei + eq * eq + n0_re, ei * ei + eq * eq)
        sat = (1 << (EQ_OUT.width - 1)) - 1
        corners = {
            "den_zero": bool(np.any(den == 0)),
            "n0_zero": bool(np.any(n0_re == 0)),
            "x_saturated": bool(np.any(np.abs(np.concatenate([xi, xq])) == sat)),
            "scale_saturated": bool(np.any(sc == sat)),
        }
        p.update(
            n_re=int(yi.size),
            methods=sorted({"mmse" if m else "zf" for m in mmse_re.tolist()}),
            corners=sorted(name for name, seen in corners.items() if seen),
        )
        p.pop("method", None)
    else:
        cell, prbs, si, sq = _rx_grid(p, rng)
        gi, gq = ofdm_demodulate_fixed(si, sq)
        hi, hq, n0 = estimate_channel_fixed(gi, gq, cell)
        yi, yq = extract_pdsch(gi, cell, prbs), extract_pdsch(gq, cell, prbs)
        ei, eq = extract_pdsch(hi, cell, prbs), extract_pdsch(hq, cell, prbs)
        xi, xq, sc = equalize_fixed(yi, yq, ei, eq, n0, method)  # type: ignore[arg-type]
        n0_re = np.full(yi.size, n0, np.int64)
        mmse_re = np.full(yi.size, int(method == "mmse"), np.int64)
        p.update(method=method)
    p.update(n0_raw=n0)
    return [
        _f(
            "n0_mmse",
            "stimulus",
            NOISE_VAR.width + 1,
            False,
            "per RE {mmse_i, n0_i}: n0_i (NOISE_VAR raw) in the low 24 bits",
            (mmse_re << NOISE_VAR.width) | n0_re,
        ),
        _f(
            "y_iq",
            "stimulus",
            2 * FFT_OUT.width,
            False,
            "PDSCH REs {I,Q}, FFT_OUT",
            pack_iq(yi, yq, FFT_OUT.width),
        ),
        _f(
            "h_iq",
            "stimulus",
            2 * CHAN_EST.width,
            False,
            "their channel estimates, CHAN_EST",
            pack_iq(ei, eq, CHAN_EST.width),
        ),
        _f("n0", "stimulus", NOISE_VAR.width, False, "noise variance, NOISE_VAR", np.array([n0])),
        _f(
            "x_iq",
            "expected",
            2 * EQ_OUT.width,
            False,
            "equalised symbols {I,Q}, EQ_OUT",
            pack_iq(xi, xq, EQ_OUT.width),
        ),
        _f("llr_scale", "expected", NOISE_SCALE.width, True, "1/N0_eff, NOISE_SCALE", sc),
    ], ["ZF / MMSE one-tap, see equalizer.py"]


def _resource_demapper(p: dict, rng: np.random.Generator) -> tuple[list[VectorFile], list[str]]:
    """Resource demapper (TS 36.211 6.3.5)."""
    cell, prbs, si, sq = _rx_grid(p, rng)
    gi, gq = ofdm_demodulate_fixed(si, sq)
    mask = pdsch_mask(cell, prbs)
    return [
        _f(
            "grid_iq",
            "stimulus",
            2 * FFT_OUT.width,
            False,
            "per subframe 14 x 600 REs {I,Q}, FFT_OUT",
            pack_iq(gi, gq, FFT_OUT.width),
        ),
        _f(
            "pdsch_mask",
            "expected",
            1,
            False,
            "1 where the RE carries PDSCH (debug aid)",
            mask.astype(np.int64),
        ),
        _f(
            "pdsch_iq",
            "expected",
            2 * FFT_OUT.width,
            False,
            "PDSCH REs in mapping order (k first, then l)",
            pack_iq(extract_pdsch(gi, cell, prbs), extract_pdsch(gq, cell, prbs), FFT_OUT.width),
        ),
    ], ["TS 36.211 6.3.5", "TS 36.211 6.10.1.2", "TS 36.211 6.11", "TS 36.211 6.6.4"]


# Configuration word map of lte_baseband_top (hdl/rtl/lte_baseband_top.sv, cfg_* write port): what
# a modem's DCI decoding and TS 36.213 7.1.7 / TS 36.212 5.1.2, 5.1.4 arithmetic produce per
# subframe, written as 32-bit registers, then committed for one subframe by a write of word
# TOP_CFG_COMMIT (the top keeps a committed configuration per subframe in flight).
TOP_CFG_CB_BASE = 4  # words 4 + 4r .. 7 + 4r describe code block r
TOP_CFG_WORDS = 16  # the address space; unused code-block words are written as 0
TOP_CFG_COMMIT = 15  # any data
TOP_CFG_MAX_CB = 2  # a Cat-1 transport block (<= 10296 bits) has at most two code blocks
TOP_MAX_ITERS = 8


def top_config_words(
    cell: CellConfig,
    prbs: np.ndarray,
    qm: int,
    tbs: int,
    plan: DlSchPlan,
    max_iters: int,
    method: str = "zf",
    ndi: int = 0,
    harq_id: int = 0,
) -> np.ndarray:
    """Register words of lte_baseband_top for one subframe (TS 36.211 7.2, TS 36.212 5.1.2,
    5.1.3.2.3, 5.1.4.1.2, TS 36.321 5.3.2): word 0 = {HARQ process, NDI, MMSE, C, max_iter, rv,
    modulation, CFI, subframe, cell},
    word 1 = {TBS, RNTI}, words 2-3 = RB bitmap, then K/F, E, N_cb, {f2, f1} per code block,
    zeros, and the last word (TOP_CFG_COMMIT) commits them for the next subframe."""
    from silicon_agent.refmodels.qpp_table import qpp_params

    mod_code = {2: 0, 4: 1, 6: 2}[qm]
    words = [
        cell.n_cell_id
        | cell.subframe << 9
        | cell.cfi << 13
        | mod_code << 15
        | plan.rv << 17
        | max_iters << 19
        | plan.seg.C << 23
        | int(method == "mmse") << 27
        | (ndi & 1) << 28
        | harq_id << 29,
        cell.n_rnti | tbs << 16,
    ]
    mask = sum(1 << int(rb) for rb in prbs)
    words += [mask & 0xFFFFFFFF, mask >> 32]
    for cb in plan.blocks:
        f1, f2 = qpp_params(cb.K)
        words += [cb.K | cb.F << 13, cb.E, cb.N_cb, f1 | f2 << 10]
    words += [0] * (TOP_CFG_COMMIT - len(words)) + [1]
    return np.array(words, np.int64)


class _Reception(BaseModel):
    """One subframe as the fixed-point receiver saw it: IQ samples, PDSCH REs, equalised
    symbols with their 1/N0 scales, and the descrambled codeword LLRs."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    si: np.ndarray
    sq: np.ndarray
    yi: np.ndarray
    yq: np.ndarray
    xi: np.ndarray
    xq: np.ndarray
    scale: np.ndarray
    llr: np.ndarray
    n0: int


def _receive_subframe(
    cell: CellConfig,
    prbs: np.ndarray,
    mod: str,
    codeword: np.ndarray,
    channel: tuple[str, float, float, str],
    rng: np.random.Generator,
) -> _Reception:
    """Transmit a codeword in one subframe, pass it through the channel (profile, Doppler, SNR)
    and receive it with the fixed-point chain of refmodels.e2e.run_e2e (fixed=True), step by
    step up to the descrambled codeword LLRs (TS 36.211 6.3-6.12, TS 36.101 B.2)."""

    chan, doppler, snr, method = channel
    c_init = pdsch_c_init(cell.n_rnti, cell.n_cell_id, cell.subframe)
    grid = build_subframe(cell, prbs, modulate(scramble(codeword, c_init), mod), rng)
    si, sq = _through_channel(ofdm_modulate(grid), chan, doppler, snr, rng)
    gi, gq = ofdm_demodulate_fixed(si, sq)
    hi, hq, n0 = estimate_channel_fixed(gi, gq, cell)
    yi, yq = extract_pdsch(gi, cell, prbs), extract_pdsch(gq, cell, prbs)
    ei, eq = extract_pdsch(hi, cell, prbs), extract_pdsch(hq, cell, prbs)
    xi, xq, scale = equalize_fixed(yi, yq, ei, eq, n0, method)  # type: ignore[arg-type]
    llr = descramble(demodulate_fixed(xi, xq, mod, scale), c_init)
    return _Reception(si=si, sq=sq, yi=yi, yq=yq, xi=xi, xq=xq, scale=scale, llr=llr, n0=n0)


# FDD HARQ round trip: a retransmission comes 8 subframes after the first transmission (TS
# 36.213 8 / 7).
HARQ_RTT_SUBFRAMES = 8


def _lte_baseband_top(p: dict, rng: np.random.Generator) -> tuple[list[VectorFile], list[str]]:
    """One subframe of a TS 36.101 reference channel through the transmitter, AWGN (after a TS
    36.101 B.2 fading profile when `channel` names one) and the bit-true fixed-point receiver
    (TS 36.211 6.3-6.12, TS 36.212 5.3.2) with the ZF or MMSE equaliser (`method`): the 15360
    IQ samples, the configuration words, the receiver's intermediate values and the MAC PDU.
    With `harq_rv` >= 0 the transport block is sent twice: first with rv 0, then (8 subframes
    later, redundancy version harq_rv) as a retransmission that the receiver combines into the
    first transmission's soft buffers (TS 36.321 5.3.2.2); the second must decode."""
    from silicon_agent.refmodels.mac_pdu import MacSdu, build_mac_pdu, parse_mac_pdu

    ref = REFERENCE_CHANNELS[str(p.get("rc", "R.2"))]
    # A small allocation (n_rb RBs from RB 0, own Qm and TBS) keeps slow simulators quick.
    n_rb = int(p.get("n_rb", 0))
    prbs = np.arange(n_rb, dtype=np.int64) if n_rb else ref.prb_array()
    qm = int(p.get("Qm", ref.qm))
    tbs = int(p.get("tbs", ref.tbs))
    sf = int(p.get("subframe", 1))
    snr = float(p.get("snr_db", 20.0))
    chan = str(p.get("channel", "awgn"))
    doppler = float(p.get("doppler_hz", 5.0))
    method = str(p.get("method", "zf"))
    harq_rv = int(p.get("harq_rv", -1))
    max_iters = int(p.get("iters", TOP_MAX_ITERS))
    # Subframes the testbench sends back to back after its reset (lte_baseband_top's PASSES).
    passes = int(p.get("passes", 2))
    if passes < 2 or (harq_rv >= 0 and passes != 2):
        raise ValueError(f"passes={passes}: at least 2, and 2 with a HARQ retransmission")
    channel = (chan, doppler, snr, method)
    cell = CellConfig(
        n_cell_id=int(p.get("cell_id", 1)), cfi=int(p.get("cfi", ref.cfi)), subframe=sf
    )
    mod = modulation_for_qm(qm)
    g = pdsch_capacity(cell, prbs, qm)
    # A MAC PDU (TS 36.321 6.1.2): one RLC SDU on logical channel 3 and padding.
    n_bytes = tbs // 8
    sdu = MacSdu(lcid=3, payload=rng.integers(0, 256, n_bytes - 16).astype(np.uint8).tobytes())
    pdu = build_mac_pdu([sdu], n_bytes)
    assert parse_mac_pdu(pdu) == [sdu]
    tb = np.unpackbits(np.frombuffer(pdu, np.uint8))
    f, plan = encode_dl_sch(tb, g, qm)
    if plan.seg.C > TOP_CFG_MAX_CB:
        raise ValueError(f"{plan.seg.C} code blocks; lte_baseband_top holds {TOP_CFG_MAX_CB}")
    first = _receive_subframe(cell, prbs, mod, f, channel, rng)
    llr1 = first.llr
    soft = dematch_blocks(first.llr, plan, fixed=True)
    res1 = decode_soft_blocks(soft, plan, fixed=True, max_iters=max_iters)
    res = res1
    cfg = top_config_words(cell, prbs, qm, tbs, plan, max_iters, method)
    # The same subframe as new data again (NDI toggled), for back-to-back passes.
    cfg_ndi = top_config_words(cell, prbs, qm, tbs, plan, max_iters, method, ndi=1)
    files: list[VectorFile] = []
    if harq_rv >= 0:
        cell2 = CellConfig(
            n_cell_id=cell.n_cell_id, cfi=cell.cfi, subframe=(sf + HARQ_RTT_SUBFRAMES) % 10
        )
        if pdsch_capacity(cell2, prbs, qm) != g:
            raise ValueError("the retransmission's subframe must carry as many PDSCH bits")
        f2, plan2 = encode_dl_sch(tb, g, qm, rv=harq_rv)
        second = _receive_subframe(cell2, prbs, mod, f2, channel, rng)
        combined = dematch_blocks(second.llr, plan2, fixed=True, combine_with=soft)
        res = decode_soft_blocks(combined, plan2, fixed=True, max_iters=max_iters)
        # The same HARQ process and NDI as the first transmission: a retransmission.
        cfg2 = top_config_words(cell2, prbs, qm, tbs, plan2, max_iters, method)
        tb1_out = np.packbits(np.array(res1.tb_bits, np.uint8))
        files = [
            _iq_file("iq2", second, "the retransmission's subframe"),
            _f("config2", "stimulus", 32, False, "configuration words, retransmission", cfg2),
            _eq_file("eq_iq2", second, "retransmission"),
            _f("llr_scale2", "stimulus", NOISE_SCALE.width, True, "1/N0_eff", second.scale),
            _f("tb1_bytes", "expected", 8, False, "first transmission's decode", tb1_out),
        ]
    tb_out = np.packbits(np.array(res.tb_bits, np.uint8))
    if not res.tb_crc_ok or tb_out.tobytes() != pdu:
        raise ValueError(
            f"{ref.name} at {snr} dB ({chan}, {method}) does not decode in the fixed-point model"
        )
    p.update(
        rc=ref.name,
        subframe=sf,
        snr_db=snr,
        channel=chan,
        doppler_hz=None if chan == "awgn" else doppler,
        method=method,
        harq=int(harq_rv >= 0),
        harq_rv=harq_rv,
        passes=passes,
        cell_id=cell.n_cell_id,
        rnti=cell.n_rnti,
        cfi=cell.cfi,
        prbs=prbs.tolist(),
        Qm=qm,
        tbs=tbs,
        G=g,
        C=plan.seg.C,
        iters=max_iters,
        plan=plan.model_dump(),
        n0_raw=first.n0,
        n_cfg=int(cfg.size),
        n_re=int(first.xi.size),
        n_bytes=n_bytes,
        tb_crc_ok=res.tb_crc_ok,
        cb_crc_ok=res.cb_crc_ok,
        iterations=res.iterations,
        tb1_crc_ok=res1.tb_crc_ok,
    )
    return [
        _iq_file("iq", first, "the subframe"),
        _f("config", "stimulus", 32, False, "lte_baseband_top configuration words", cfg),
        _f("config_ndi", "stimulus", 32, False, "the same with the NDI toggled", cfg_ndi),
        _eq_file("eq_iq", first, "back-end entry point"),
        _f("llr_scale", "stimulus", NOISE_SCALE.width, True, "1/N0_eff per PDSCH RE", first.scale),
        _f(
            "pdsch_iq",
            "expected",
            2 * FFT_OUT.width,
            False,
            "PDSCH REs in mapping order, FFT_OUT (debug aid)",
            pack_iq(first.yi, first.yq, FFT_OUT.width),
        ),
        _f("codeword_llr", "expected", LLR.width, True, "G descrambled LLRs (debug aid)", llr1),
        _f("tb_bytes", "expected", 8, False, "MAC PDU = transport block, MSB first", tb_out),
        _f(
            "cb_crc_ok",
            "expected",
            1,
            False,
            "CRC pass per code block",
            np.array(res.cb_crc_ok, np.int64),
        ),
        _f("tb_crc_ok", "expected", 1, False, "CRC-24A pass", np.array([int(res.tb_crc_ok)])),
        *files,
    ], ["TS 36.211 6.3-6.12", "TS 36.212 5.3.2", "TS 36.321 6.1.2", "TS 36.101 A.3"] + (
        ["TS 36.321 5.3.2.2 soft combining"] if harq_rv >= 0 else []
    )


def _iq_file(name: str, rx: _Reception, what: str) -> VectorFile:
    return _f(
        name,
        "stimulus",
        2 * IQ_SAMPLE.width,
        False,
        f"15360 samples {{I,Q}} of {what}, IQ_SAMPLE",
        pack_iq(rx.si, rx.sq, IQ_SAMPLE.width),
    )


def _eq_file(name: str, rx: _Reception, what: str) -> VectorFile:
    return _f(
        name,
        "stimulus",
        2 * EQ_OUT.width,
        False,
        f"equalised PDSCH symbols {{I,Q}}, EQ_OUT ({what})",
        pack_iq(rx.xi, rx.xq, EQ_OUT.width),
    )


Generator = Callable[[dict, np.random.Generator], tuple[list[VectorFile], list[str]]]

GENERATORS: dict[str, Generator] = {
    "ofdm_demodulator": _ofdm_demodulator,
    "channel_estimator": _channel_estimator,
    "equalizer": _equalizer,
    "resource_demapper": _resource_demapper,
    "qam_demodulator": _qam_demodulator,
    "descrambler": _descrambler,
    "rate_dematcher": _rate_dematcher,
    "turbo_decoder": _turbo_decoder,
    "crc_checker": _crc_checker,
    "dl_sch_processor": _dl_sch_processor,
    # The receive back end (equalised symbols -> MAC PDU) is checked on the same subframes.
    "pdsch_rx_backend": _lte_baseband_top,
    "lte_baseband_top": _lte_baseband_top,
}

DEFAULT_CASES: dict[str, dict[str, dict[str, object]]] = {
    "ofdm_demodulator": {"r2_sf0_epa": {"subframe": 0}, "r2_sf1_awgn": {"channel": "awgn"}},
    "channel_estimator": {
        "epa_cell1": {},
        "eva_cell5": {"channel": "eva", "cell_id": 5, "doppler_hz": 70.0},
    },
    "equalizer": {
        "zf_r2": {},
        "mmse_r2": {"method": "mmse"},
        "zf_r31_1": {"rc": "R.31-1", "snr_db": 25.0},
    },
    "resource_demapper": {
        "r2_sf0": {"subframe": 0},
        "r2_sf5": {"subframe": 5},
        "r31_1_sf1": {"rc": "R.31-1"},
    },
    "qam_demodulator": {m.lower(): {"mod": m} for m in ("QPSK", "16QAM", "64QAM")},
    "descrambler": {"r2_sf1": {}, "sf0_cell503": {"cell_id": 503, "subframe": 0, "n_bits": 12960}},
    "rate_dematcher": {
        **{f"r2_rv{rv}": {"rv": rv} for rv in range(4)},
        "k40_wrap": {"K": 40, "E": 600},
        "r31_1_cb": {"K": 5184, "C": 2, "E": 13050},
        "k6144_ncb_limited": {"K": 6144, "C": 2, "E": 20000, "rv": 1},
        "filler": {"K": 1056, "F": 32, "E": 2000, "rv": 3},
        "harq_ncb_rv1_rv3": {"K": 6144, "C": 2, "E": 9000, "rv": 1, "rv2": 3, "E2": 14000},
        "harq_rv0_rv2": {"K": 1056, "F": 32, "E": 2000, "rv": 0, "rv2": 2, "E2": 3500},
    },
    "turbo_decoder": {
        f"k{k}": {"K": k, "ebn0_db": 1.0 if k >= 1024 else 2.0}
        for k in (40, 512, 528, 1024, 1056, 2048, 2112, 4416, 5184, 6144)
    },
    "crc_checker": {
        "crc24a_k4416": {"crc": "24A", "K": 4416},
        "crc24b_k6144": {"crc": "24B", "K": 6144},
        "crc24b_k40": {"crc": "24B", "K": 40},
    },
    "dl_sch_processor": {
        "r2": {"snr_db": -1.0},
        "r2_sf0": {"G": 12960, "snr_db": -0.5},
        "r31_1": {"tbs": 10296, "G": 26100, "Qm": 6, "snr_db": 1.5},
        "16qam_3cb": {"tbs": 14112, "G": 28800, "Qm": 4, "snr_db": 2.5},
        "r2_rv2": {"rv": 2, "snr_db": 0.0},
        "c1_filler": {"tbs": 1008, "G": 3000, "snr_db": 0.5},
        "c3_filler_kminus": {"tbs": 13000, "G": 20000, "snr_db": 4.0},
    },
    "pdsch_rx_backend": {"r2_awgn20": {"rc": "R.2"}, "r31_1_awgn20": {"rc": "R.31-1"}},
    "lte_baseband_top": {
        "r2_awgn20": {"rc": "R.2"},
        "r31_1_awgn20": {"rc": "R.31-1"},
        # TS 36.101 B.2 EPA, 5 Hz Doppler, through the MMSE equaliser.
        "r2_epa5_mmse20": {"rc": "R.2", "channel": "epa", "method": "mmse"},
    },
}

BLOCKS = tuple(GENERATORS)


def parse_params(items: list[str]) -> dict[str, object]:
    """``k=v`` strings -> dict, converting ints and floats where possible (tooling, no 3GPP
    clause)."""
    out: dict[str, object] = {}
    for item in items:
        key, _, val = item.partition("=")
        conv: object = val
        for typ in (int, float):
            try:
                conv = typ(val)
                break
            except ValueError:
                continue
        out[key] = conv
    return out


def generate(
    block: str,
    out: Path,
    seed: int = 0,
    params: dict[str, object] | None = None,
    only: Collection[str] | None = None,
) -> list[Path]:
    """Write the cases of ``block`` (those named in ``only``, when given) under ``out/<case>/``;
    returns the JSON sidecar paths (tooling, no 3GPP clause)."""
    if block not in GENERATORS:
        raise ValueError(f"unknown block {block!r}; choose from {', '.join(BLOCKS)}")
    cases = {"custom": dict(params)} if params else DEFAULT_CASES[block]
    written = []
    for idx, (name, case_params) in enumerate(cases.items()):
        if only is not None and name not in only:
            continue  # a case's random stream depends on its index, so skip, never renumber
        rng = np.random.default_rng([seed, idx])
        p = dict(case_params)
        files, refs = GENERATORS[block](p, rng)
        case_dir = out / name
        case_dir.mkdir(parents=True, exist_ok=True)
        meta_files = []
        for vf in files:
            fname = f"{vf.role}_{vf.name}.hex"
            count = write_hex(case_dir / fname, vf.values, vf.width)
            meta_files.append(
                FileMeta(
                    file=fname,
                    role=vf.role,
                    width=vf.width,
                    signed=vf.signed,
                    words=count,
                    description=vf.description,
                )
            )
        sidecar = VectorSidecar(
            block=block,
            case=name,
            seed=seed,
            params=json.loads(json.dumps(p, sort_keys=True, default=_json_default)),
            references=refs,
            files=meta_files,
            formats=formats_table(),
        )
        path = case_dir / f"{block}.json"
        path.write_text(sidecar.model_dump_json(indent=2) + "\n")
        written.append(path)
    return written


def _json_default(o: object) -> object:
    """Json default (tooling, no 3GPP clause)."""
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(type(o))


__all__ = ["BLOCKS", "DEFAULT_CASES", "generate", "parse_params"]
