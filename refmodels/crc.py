"""CRC attachment and checking (TS 36.212 clause 5.1.1): CRC-24A, CRC-24B, CRC-16, CRC-8."""

from __future__ import annotations

from functools import cache
from typing import Literal

import numba
import numpy as np

CrcName = Literal["24A", "24B", "16", "8"]

# Generator polynomials without the leading x^L term, TS 36.212 5.1.1.
_POLYS: dict[str, tuple[int, int]] = {
    "24A": (0x864CFB, 24),  # D^24+D^23+D^18+D^17+D^14+D^11+D^10+D^7+D^6+D^5+D^4+D^3+D+1
    "24B": (0x800063, 24),  # D^24+D^23+D^6+D^5+D+1
    "16": (0x1021, 16),  # D^16+D^12+D^5+1
    "8": (0x9B, 8),  # D^8+D^7+D^4+D^3+D+1
}


def crc_length(name: CrcName) -> int:
    """Number of parity bits L of a CRC of TS 36.212 5.1.1."""
    return _POLYS[name][1]


@cache
def _byte_table(name: CrcName) -> np.ndarray:
    """Byte table (TS 36.212 5.1.1 generator polynomials)."""
    poly, width = _POLYS[name]
    top = 1 << (width - 1)
    mask = (1 << width) - 1
    table = np.zeros(256, dtype=np.int64)
    for byte in range(256):
        reg = byte << (width - 8)
        for _ in range(8):
            reg = ((reg << 1) ^ poly) if reg & top else (reg << 1)
        table[byte] = reg & mask
    return table


@numba.njit(cache=True)
def _crc_bytes(data: np.ndarray, table: np.ndarray, width: int) -> int:
    """Crc bytes (TS 36.212 5.1.1)."""
    reg = 0
    mask = (1 << width) - 1
    for byte in data:
        idx = ((reg >> (width - 8)) ^ byte) & 0xFF
        reg = ((reg << 8) & mask) ^ table[idx]
    return reg


def crc_remainder(bits: np.ndarray, name: CrcName) -> int:
    """Parity register p_0..p_{L-1} (MSB = p_0) of TS 36.212 5.1.1 for a bit sequence a_0..a_{A-1}.

    The register starts at zero, so zero bits prepended to reach a whole number of bytes do not
    change the remainder.
    """
    width = crc_length(name)
    a = np.asarray(bits, dtype=np.uint8)
    pad = (-a.size) % 8
    if pad:
        a = np.concatenate([np.zeros(pad, np.uint8), a])
    return int(_crc_bytes(np.packbits(a), _byte_table(name), width))


def crc_bits(bits: np.ndarray, name: CrcName) -> np.ndarray:
    """Parity bits p_0..p_{L-1} of TS 36.212 5.1.1 as a uint8 array."""
    width = crc_length(name)
    rem = crc_remainder(bits, name)
    return ((rem >> np.arange(width - 1, -1, -1)) & 1).astype(np.uint8)


def crc_attach(bits: np.ndarray, name: CrcName) -> np.ndarray:
    """b_k = a_k followed by the parity bits (TS 36.212 5.1.1)."""
    a = np.asarray(bits, dtype=np.uint8)
    return np.concatenate([a, crc_bits(a, name)])


def crc_check(bits_with_crc: np.ndarray, name: CrcName) -> bool:
    """True when a block with its parity bits appended has a zero syndrome (TS 36.212 5.1.1)."""
    return crc_remainder(bits_with_crc, name) == 0


@numba.njit(cache=True)
def _crc_check_batch(
    bits: np.ndarray, table: np.ndarray, poly: int, width: int, start: int
) -> np.ndarray:
    """Crc check batch (TS 36.212 5.1.1)."""
    nblk, n = bits.shape
    ok = np.zeros(nblk, dtype=np.bool_)
    mask = (1 << width) - 1
    for b in range(nblk):
        reg = 0
        k = start
        # Bit-serial until the remaining length is a whole number of bytes, then bytewise.
        for _ in range((n - start) % 8):
            fb = ((reg >> (width - 1)) & 1) ^ bits[b, k]
            reg = (reg << 1) & mask
            if fb:
                reg ^= poly
            k += 1
        while k < n:
            byte = 0
            for i in range(8):
                byte = (byte << 1) | bits[b, k + i]
            idx = ((reg >> (width - 8)) ^ byte) & 0xFF
            reg = ((reg << 8) & mask) ^ table[idx]
            k += 8
        ok[b] = reg == 0
    return ok


def crc_check_batch(bits: np.ndarray, name: CrcName, start: int = 0) -> np.ndarray:
    """Row-wise CRC check (TS 36.212 5.1.1) of ``bits[:, start:]`` for a batch of blocks.

    ``start`` skips leading filler bits, which the CRC treats as zeros anyway.
    """
    width = crc_length(name)
    poly = _POLYS[name][0]
    return _crc_check_batch(
        np.ascontiguousarray(bits, dtype=np.uint8), _byte_table(name), poly, width, start
    )
