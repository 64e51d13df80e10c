"""Code block segmentation and desegmentation (TS 36.212 clause 5.1.2)."""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel

from silicon_agent.refmodels.crc import crc_attach
from silicon_agent.refmodels.qpp_table import VALID_K

Z_MAX = 6144  # maximum code block size Z of 5.1.2


class Segmentation(BaseModel):
    """Segmentation parameters of TS 36.212 5.1.2 for an input of B bits (TB + CRC-24A)."""

    B: int
    C: int
    L: int
    K_plus: int
    K_minus: int
    C_plus: int
    C_minus: int
    F: int

    def block_sizes(self) -> list[int]:
        """K_r for r = 0..C-1: the C_minus smaller blocks come first (5.1.2)."""
        return [self.K_minus] * self.C_minus + [self.K_plus] * self.C_plus

    def filler(self, r: int) -> int:
        """Number of filler bits at the head of code block r (only block 0 carries them) (TS 36.212
        5.1.2)."""
        return self.F if r == 0 else 0


def segmentation_params(b: int) -> Segmentation:
    """Compute C, K+, K-, C+, C-, F and L of TS 36.212 5.1.2 for B input bits."""
    if b < 1:
        raise ValueError("B must be positive")
    if b <= Z_MAX:
        crc_len, c = 0, 1
        b_prime = b
    else:
        crc_len = 24
        c = -(-b // (Z_MAX - crc_len))
        b_prime = b + c * crc_len
    # Minimum K+ in Table 5.1.3-3 with C*K >= B'.
    k_plus = next(k for k in VALID_K if c * k >= b_prime)
    if c == 1:
        c_plus, k_minus, c_minus = 1, 0, 0
    else:
        k_minus = max(k for k in VALID_K if k < k_plus)
        delta = k_plus - k_minus
        c_minus = (c * k_plus - b_prime) // delta
        c_plus = c - c_minus
    f = c_plus * k_plus + c_minus * k_minus - b_prime
    return Segmentation(
        B=b, C=c, L=crc_len, K_plus=k_plus, K_minus=k_minus, C_plus=c_plus, C_minus=c_minus, F=f
    )


def segment(bits: np.ndarray) -> tuple[list[np.ndarray], Segmentation]:
    """Split b_0..b_{B-1} into code blocks c_rk, filler bits first, CRC-24B if C > 1 (5.1.2).

    Filler bits are returned as 0: the CRC and the turbo encoder treat them as zeros, and the
    rate matcher drops them by position (``Segmentation.filler``).
    """
    b = np.asarray(bits, dtype=np.uint8)
    seg = segmentation_params(b.size)
    blocks: list[np.ndarray] = []
    s = 0
    for r, k_r in enumerate(seg.block_sizes()):
        f = seg.filler(r)
        n_data = k_r - seg.L - f
        blk = np.concatenate([np.zeros(f, np.uint8), b[s : s + n_data]])
        s += n_data
        if seg.C > 1:
            blk = crc_attach(blk, "24B")
        blocks.append(blk)
    assert s == b.size
    return blocks, seg


def desegment(blocks: list[np.ndarray], seg: Segmentation) -> np.ndarray:
    """Inverse of 5.1.2: drop filler bits and per-block CRC-24B, concatenate to b_0..b_{B-1}."""
    parts = []
    for r, blk in enumerate(blocks):
        parts.append(np.asarray(blk, np.uint8)[seg.filler(r) : blk.size - seg.L])
    return np.concatenate(parts)
