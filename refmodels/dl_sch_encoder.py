"""DL-SCH transport channel encoding (TS 36.212 clause 5.3.2): TB CRC-24A, segmentation,
turbo coding, rate matching and code block concatenation (5.1.1-5.1.5)."""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel

from silicon_agent.refmodels.crc import crc_attach
from silicon_agent.refmodels.rate_matching import code_block_e, n_cb, rate_match
from silicon_agent.refmodels.segmentation import Segmentation, segment
from silicon_agent.refmodels.turbo_encoder import turbo_encode


class CodeBlockPlan(BaseModel):
    """Per code block rate-matching parameters (TS 36.212 5.1.4.1.2)."""

    K: int
    F: int
    E: int
    N_cb: int
    rv: int


class DlSchPlan(BaseModel):
    """Everything the receiver needs to invert DL-SCH encoding for one transport block."""

    tbs: int
    G: int
    Qm: int
    rv: int
    seg: Segmentation
    blocks: list[CodeBlockPlan]


def plan_dl_sch(tbs: int, g: int, qm: int, rv: int = 0, n_ir: int | None = None) -> DlSchPlan:
    """Derive segmentation, E_r and N_cb for a transport block of ``tbs`` bits (5.1.2, 5.1.4)."""
    from silicon_agent.refmodels.segmentation import segmentation_params

    seg = segmentation_params(tbs + 24)
    blocks = []
    for r, k_r in enumerate(seg.block_sizes()):
        blocks.append(
            CodeBlockPlan(
                K=k_r,
                F=seg.filler(r),
                E=code_block_e(g, seg.C, r, qm),
                N_cb=n_cb(k_r, seg.C, n_ir),
                rv=rv,
            )
        )
    return DlSchPlan(tbs=tbs, G=g, Qm=qm, rv=rv, seg=seg, blocks=blocks)


def encode_dl_sch(tb: np.ndarray, g: int, qm: int, rv: int = 0) -> tuple[np.ndarray, DlSchPlan]:
    """Codeword f_0..f_{G-1} for transport block a_0..a_{A-1} (TS 36.212 5.3.2, 5.1.5)."""
    tb = np.asarray(tb, dtype=np.uint8)
    plan = plan_dl_sch(tb.size, g, qm, rv)
    blocks, _ = segment(crc_attach(tb, "24A"))
    out = [
        rate_match(turbo_encode(c), cb.F, cb.E, cb.rv, cb.N_cb)
        for c, cb in zip(blocks, plan.blocks, strict=True)
    ]
    f = np.concatenate(out)
    assert f.size == g
    return f, plan
