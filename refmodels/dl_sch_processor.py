"""DL-SCH receive processing (inverse of TS 36.212 clause 5.3.2): code block split of the
codeword, rate dematching, turbo decoding, CRC-24B/24A checks, desegmentation (5.1.2) and MAC PDU
extraction (TS 36.321 6.1.2)."""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel

from silicon_agent.refmodels.crc import crc_check
from silicon_agent.refmodels.dl_sch_encoder import DlSchPlan
from silicon_agent.refmodels.fixed_point import LLR
from silicon_agent.refmodels.mac_pdu import MacSdu, parse_mac_pdu
from silicon_agent.refmodels.rate_dematcher import rate_dematch, rate_dematch_fixed
from silicon_agent.refmodels.segmentation import desegment
from silicon_agent.refmodels.turbo_decoder import turbo_decode


class DlSchResult(BaseModel):
    """Transport block decoding outcome."""

    tb_bits: list[int]
    tb_crc_ok: bool
    cb_crc_ok: list[bool]
    iterations: list[int]
    # A-posteriori LLRs of each code block as the turbo decoder emits them (natural order,
    # bit = LLR > 0; raw APP_LLR integers when fixed): the input of the desegmentation stage.
    cb_app_llr: list[list[float]] = []


def dematch_blocks(
    codeword_llr: np.ndarray,
    plan: DlSchPlan,
    fixed: bool = False,
    combine_with: list[np.ndarray] | None = None,
) -> list[np.ndarray]:
    """Split the G codeword LLRs into code blocks (5.1.5 inverse) and rate-dematch each into its
    soft buffer (5.1.4.1 inverse): (3, K+4) soft d streams per block. With combine_with (the
    buffers a previous transmission of the same transport block left, TS 36.321 5.3.2.2) each
    block is combined into its own buffer (HARQ soft combining, any rv)."""
    llr = np.asarray(codeword_llr)
    soft = []
    pos = 0
    for r, cb in enumerate(plan.blocks):
        e = llr[pos : pos + cb.E]
        pos += cb.E
        dm = rate_dematch_fixed if fixed else rate_dematch
        previous = None if combine_with is None else combine_with[r]
        soft.append(dm(e, cb.K, cb.F, cb.rv, cb.N_cb, soft_buffer=previous))
    return soft


def decode_dl_sch(
    codeword_llr: np.ndarray, plan: DlSchPlan, fixed: bool = False, max_iters: int = 8
) -> DlSchResult:
    """Decode one transport block from its G descrambled codeword LLRs (5.3.2, 5.1.5 inverse)."""
    return decode_soft_blocks(dematch_blocks(codeword_llr, plan, fixed), plan, fixed, max_iters)


def decode_soft_blocks(
    soft_buffers: list[np.ndarray], plan: DlSchPlan, fixed: bool = False, max_iters: int = 8
) -> DlSchResult:
    """Turbo-decode the code blocks' soft buffers, check the CRCs and desegment (5.1.3.2, 5.1.1,
    5.1.2 inverse); the buffers themselves are left as they are (a HARQ process keeps them)."""
    c = plan.seg.C
    crc = "24B" if c > 1 else "24A"
    strong = -LLR.max_raw if fixed else -1e4
    soft = []
    for d, cb in zip(soft_buffers, plan.blocks, strict=True):
        d = np.array(d, copy=True)
        # Filler bits are known zeros (and so is their parity in the first encoder).
        d[0, : cb.F] = strong
        d[1, : cb.F] = strong
        soft.append(d)
    decoded: list[np.ndarray] = [np.empty(0, np.uint8)] * c
    iters = [0] * c
    ok = [False] * c
    app: list[list[float]] = [[] for _ in range(c)]
    for k in sorted({cb.K for cb in plan.blocks}):
        rows = [r for r, cb in enumerate(plan.blocks) if k == cb.K]
        res = turbo_decode(np.stack([soft[r] for r in rows]), max_iters, crc, fixed=fixed)
        for j, r in enumerate(rows):
            decoded[r] = res.bits[j]
            iters[r] = int(res.iterations[j])
            ok[r] = bool(res.crc_ok[j])
            app[r] = res.llr[j].tolist()
    b = desegment(decoded, plan.seg)
    tb_ok = crc_check(b, "24A")
    return DlSchResult(
        tb_bits=b[:-24].tolist(), tb_crc_ok=tb_ok, cb_crc_ok=ok, iterations=iters, cb_app_llr=app
    )


def extract_mac_sdus(tb_bits: np.ndarray) -> list[MacSdu]:
    """MAC SDUs of a transport block (TS 36.321 6.1.2); bits are MSB first per byte."""
    return parse_mac_pdu(np.packbits(np.asarray(tb_bits, np.uint8)).tobytes())
