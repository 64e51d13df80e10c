"""CRC checker block (TS 36.212 clause 5.1.1): syndrome check of decoded code blocks (CRC-24B)
and of the reassembled transport block (CRC-24A)."""

from __future__ import annotations

import numpy as np

from silicon_agent.refmodels.crc import CrcName, crc_check, crc_check_batch, crc_remainder


def check_block(bits_with_crc: np.ndarray, name: CrcName) -> bool:
    """True if the block's CRC (5.1.1) checks."""
    return crc_check(bits_with_crc, name)


def check_batch(blocks: np.ndarray, name: CrcName) -> np.ndarray:
    """Row-wise check of a (B, K) batch of blocks ending with their CRC (5.1.1)."""
    return crc_check_batch(blocks, name)


def syndrome(bits_with_crc: np.ndarray, name: CrcName) -> int:
    """The CRC register after the whole block, 0 when it checks: what the RTL compares (TS 36.212
    5.1.1)."""
    return crc_remainder(bits_with_crc, name)
