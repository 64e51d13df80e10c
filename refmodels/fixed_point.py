"""Fixed-point formats of every RTL block boundary, and the quantise/saturate/round helpers.

This module is the single source of the word lengths; ``hdl/pkg/lte_baseband_pkg.sv`` is to be
written from the same numbers.  ``width`` counts every bit including the sign and ``frac`` the
fractional bits, so a value is ``raw / 2**frac`` with ``raw`` in [-(2**(width-1)-1),
2**(width-1)-1]; ``Qm.n`` below means m integer and n fractional bits plus the sign.
Saturation is symmetric (the most negative code is never produced) so that negating a saturated
LLR never overflows.  Rounding is round-half-up (``floor(x + 0.5)``), which
RTL implements by adding half an LSB before truncating.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel


class FixedFormat(BaseModel):
    """A signed fixed-point word: ``width`` bits including sign, ``frac`` fractional bits."""

    name: str
    width: int
    frac: int
    boundary: str
    note: str = ""

    @property
    def max_raw(self) -> int:
        """Max raw (tooling, no 3GPP clause)."""
        return (1 << (self.width - 1)) - 1

    @property
    def lsb(self) -> float:
        """Lsb (tooling, no 3GPP clause)."""
        return 2.0 ** (-self.frac)

    def q_notation(self) -> str:
        """Q notation (tooling, no 3GPP clause)."""
        return f"Q{self.width - 1 - self.frac}.{self.frac} ({self.width}-bit signed)"


def _fmt(name: str, width: int, frac: int, boundary: str, note: str = "") -> FixedFormat:
    """Fmt (tooling, no 3GPP clause)."""
    return FixedFormat(name=name, width=width, frac=frac, boundary=boundary, note=note)


# One row per block boundary, in receive order.
IQ_SAMPLE = _fmt(
    "iq_sample", 16, 15, "ADC -> ofdm_demodulator", "time-domain I and Q, full scale +-1"
)
FFT_OUT = _fmt(
    "fft_out",
    16,
    11,
    "ofdm_demodulator -> resource_demapper/channel_estimator",
    "FFT output scaled by 1/32 (5 right shifts over 10 radix-2 stages)",
)
CHAN_EST = _fmt("chan_est", 16, 11, "channel_estimator -> equalizer", "H estimate per RE")
NOISE_VAR = _fmt(
    "noise_var",
    24,
    22,
    "channel_estimator -> equalizer",
    "N0 per RE in FFT_OUT LSB^2 units (unsigned use of the word)",
)
EQ_OUT = _fmt("eq_out", 16, 12, "equalizer -> qam_demodulator", "equalised symbol, unit power")
NOISE_SCALE = _fmt(
    "llr_scale", 16, 8, "equalizer -> qam_demodulator", "per-RE 1/noise-variance scale for the LLRs"
)
LLR = _fmt(
    "llr",
    8,
    2,
    "qam_demodulator -> descrambler -> rate_dematcher -> turbo_decoder",
    "channel LLR, positive = bit 1, saturating +-127",
)
EXTRINSIC = _fmt(
    "extrinsic",
    10,
    2,
    "turbo_decoder internal",
    "extrinsic LLR, scaled by 0.75 as x - (x >>> 2), saturating +-511",
)
STATE_METRIC = _fmt(
    "state_metric",
    14,
    2,
    "turbo_decoder internal",
    "alpha/beta, normalised each step by subtracting state 0, saturating",
)
APP_LLR = _fmt("app_llr", 12, 2, "turbo_decoder -> crc_checker", "a-posteriori LLR (sign = bit)")

FORMATS: tuple[FixedFormat, ...] = (
    IQ_SAMPLE,
    FFT_OUT,
    CHAN_EST,
    NOISE_VAR,
    EQ_OUT,
    NOISE_SCALE,
    LLR,
    EXTRINSIC,
    STATE_METRIC,
    APP_LLR,
)

# Extrinsic scaling factor realised as 1 - 1/4.
EXTRINSIC_SCALE = 0.75


def saturate(raw: np.ndarray, width: int) -> np.ndarray:
    """Clip integers to the symmetric signed range of a ``width``-bit word (tooling, no 3GPP
    clause)."""
    m = (1 << (width - 1)) - 1
    return np.clip(raw, -m, m)


def round_half_up(x: np.ndarray) -> np.ndarray:
    """floor(x + 0.5) as int64: what an RTL add-half-LSB-and-truncate produces."""
    return np.floor(np.asarray(x, dtype=np.float64) + 0.5).astype(np.int64)


def quantise(x: np.ndarray, fmt: FixedFormat) -> np.ndarray:
    """Real values -> saturated raw integers of ``fmt`` (round half up) (tooling, no 3GPP
    clause)."""
    return saturate(round_half_up(np.asarray(x) * (1 << fmt.frac)), fmt.width)


def quantise_complex(x: np.ndarray, fmt: FixedFormat) -> tuple[np.ndarray, np.ndarray]:
    """Complex values -> (I raw, Q raw) of ``fmt`` (tooling, no 3GPP clause)."""
    x = np.asarray(x)
    return quantise(x.real, fmt), quantise(x.imag, fmt)


def to_real(raw: np.ndarray, fmt: FixedFormat) -> np.ndarray:
    """Raw integers -> real values (tooling, no 3GPP clause)."""
    return np.asarray(raw, dtype=np.float64) / (1 << fmt.frac)


def shift_round(raw: np.ndarray, shift: int) -> np.ndarray:
    """Arithmetic right shift by ``shift`` with round half up: (x + 2^(s-1)) >> s (tooling, no 3GPP
    clause)."""
    raw = np.asarray(raw, dtype=np.int64)
    if shift <= 0:
        return raw << (-shift)
    return (raw + (1 << (shift - 1))) >> shift


def scale_extrinsic(raw: np.ndarray) -> np.ndarray:
    """0.75 * x as the shift-add x - (x >> 2) (arithmetic shift, rounds toward -inf)."""
    return raw - (raw >> 2)


def formats_table() -> list[dict[str, object]]:
    """All formats as plain dicts (for JSON sidecars and documentation) (tooling, no 3GPP
    clause)."""
    return [dict(f.model_dump(), q=f.q_notation()) for f in FORMATS]
