"""Modulation mapper: QPSK, 16QAM, 64QAM (TS 36.211 clause 7.1)."""

from __future__ import annotations

from typing import Literal

import numpy as np

Modulation = Literal["QPSK", "16QAM", "64QAM"]
BITS_PER_SYMBOL: dict[str, int] = {"QPSK": 2, "16QAM": 4, "64QAM": 6}
_NORM = {"QPSK": np.sqrt(2.0), "16QAM": np.sqrt(10.0), "64QAM": np.sqrt(42.0)}


def modulation_for_qm(qm: int) -> Modulation:
    """Name of the 36.211 7.1 constellation with Q_m bits per symbol."""
    return {2: "QPSK", 4: "16QAM", 6: "64QAM"}[qm]  # type: ignore[return-value]


def pam_amplitude(axis_bits: np.ndarray) -> np.ndarray:
    """Integer Gray-PAM level of one axis (odd integers) from its bits, MSB first.

    Per 7.1 the I axis carries b0, b2, b4 and Q carries b1, b3, b5: the first bit gives the sign,
    each further bit folds the magnitude around the next power of two.
    """
    nb = axis_bits.shape[-1]
    sign = 1 - 2 * axis_bits[..., 0].astype(np.int64)
    mag = np.ones(axis_bits.shape[:-1], dtype=np.int64)
    for j in range(nb - 1, 0, -1):
        mag = (1 << (nb - j)) - (1 - 2 * axis_bits[..., j].astype(np.int64)) * mag
    return sign * mag


def pam_levels(qm: int) -> np.ndarray:
    """The 2^(Qm/2) integer PAM levels indexed by their axis bit pattern (MSB first) (TS 36.211
    7.1)."""
    nb = qm // 2
    pats = ((np.arange(1 << nb)[:, None] >> np.arange(nb - 1, -1, -1)) & 1).astype(np.uint8)
    return pam_amplitude(pats)


def modulate(bits: np.ndarray, modulation: Modulation) -> np.ndarray:
    """Complex symbols d(i) of TS 36.211 7.1 with unit average power."""
    qm = BITS_PER_SYMBOL[modulation]
    b = np.asarray(bits, dtype=np.uint8).reshape(-1, qm)
    i_amp = pam_amplitude(b[:, 0::2])
    q_amp = pam_amplitude(b[:, 1::2])
    return (i_amp + 1j * q_amp) / _NORM[modulation]


def norm_factor(modulation: Modulation) -> float:
    """Normalisation 1/sqrt(2), 1/sqrt(10), 1/sqrt(42) of 7.1 expressed as its inverse."""
    return float(_NORM[modulation])
