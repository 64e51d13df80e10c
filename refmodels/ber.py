"""Monte-Carlo BER/FER of the rate-1/3 LTE turbo code (TS 36.212 5.1.3.2) on BPSK-AWGN."""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel

from silicon_agent.refmodels.fixed_point import LLR, quantise
from silicon_agent.refmodels.turbo_decoder import turbo_decode
from silicon_agent.refmodels.turbo_encoder import turbo_encode


class BerPoint(BaseModel):
    """Counts at one Eb/N0."""

    ebn0_db: float
    blocks: int
    bit_errors: int
    block_errors: int
    bits: int
    mean_iterations: float

    @property
    def ber(self) -> float:
        """Ber (TS 36.212 5.1.3.2 decoder statistics)."""
        return self.bit_errors / self.bits

    @property
    def fer(self) -> float:
        """Fer (TS 36.212 5.1.3.2 decoder statistics)."""
        return self.block_errors / self.blocks


def channel_llrs(
    k: int, ebn0_db: float, n_blocks: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Random info blocks and their exact channel LLRs 2y/sigma^2 (BPSK 0 -> -1, 1 -> +1) (TS 36.212
    5.1.3.2 code on BPSK-AWGN).

    Eb/N0 counts information bits: rate R = K / (3(K+4)) including the 12 tail bits.
    """
    rate = k / (3 * (k + 4))
    sigma2 = 1.0 / (2.0 * rate * 10 ** (ebn0_db / 10))
    info = rng.integers(0, 2, (n_blocks, k)).astype(np.uint8)
    d = np.stack([turbo_encode(c) for c in info])
    y = (2.0 * d - 1.0) + rng.normal(0.0, np.sqrt(sigma2), d.shape)
    return info, 2.0 * y / sigma2


def simulate_point(
    k: int,
    ebn0_db: float,
    n_blocks: int,
    iters: int = 8,
    fixed: bool = False,
    seed: int = 0,
    batch: int = 32,
) -> BerPoint:
    """BER/FER of ``n_blocks`` code blocks at one Eb/N0 (float or bit-true fixed decoder) (TS 36.212
    5.1.3.2)."""
    rng = np.random.default_rng([seed, round(ebn0_db * 1000), k])
    bit_err = blk_err = 0
    it_sum = 0
    done = 0
    while done < n_blocks:
        nb = min(batch, n_blocks - done)
        info, llr = channel_llrs(k, ebn0_db, nb, rng)
        if fixed:
            llr = quantise(llr, LLR)
        res = turbo_decode(llr, iters, fixed=fixed)
        errs = (res.bits != info).sum(axis=1)
        bit_err += int(errs.sum())
        blk_err += int((errs > 0).sum())
        it_sum += int(res.iterations.sum())
        done += nb
    return BerPoint(
        ebn0_db=ebn0_db,
        blocks=n_blocks,
        bit_errors=bit_err,
        block_errors=blk_err,
        bits=n_blocks * k,
        mean_iterations=it_sum / n_blocks,
    )
