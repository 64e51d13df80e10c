"""``$readmemh`` file writing and reading: one two's-complement hex word per line."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def to_words(values: np.ndarray, width: int) -> np.ndarray:
    """Signed or unsigned integers -> unsigned ``width``-bit words (two's complement) (tooling, no
    3GPP clause)."""
    v = np.asarray(values, dtype=np.int64).reshape(-1)
    lo, hi = -(1 << (width - 1)), (1 << width) - 1
    if v.size and (v.min() < lo or v.max() > hi):
        raise ValueError(f"value out of range for {width} bits")
    return v & ((1 << width) - 1)


def pack_iq(i_raw: np.ndarray, q_raw: np.ndarray, width: int) -> np.ndarray:
    """{I, Q} in one 2*width word, I in the upper half (tooling, no 3GPP clause)."""
    return (to_words(i_raw, width) << width) | to_words(q_raw, width)


def write_hex(path: Path, values: np.ndarray, width: int) -> int:
    """Write ``values`` as ``ceil(width/4)`` hex digits per line; returns the word count (tooling,
    no 3GPP clause)."""
    words = to_words(values, width)
    digits = -(-width // 4)
    path.write_text("".join(f"{int(w):0{digits}x}\n" for w in words))
    return int(words.size)


def read_hex(path: Path, width: int, signed: bool = True) -> np.ndarray:
    """Read a file written by ``write_hex`` back into integers (tooling, no 3GPP clause)."""
    words = np.array([int(x, 16) for x in path.read_text().split()], dtype=np.int64)
    if signed:
        words = np.where(words >= (1 << (width - 1)), words - (1 << width), words)
    return words
