"""Small value rules shared by the run-folder readers."""

from __future__ import annotations

import math

MAX_ERROR_LINES = 20
MAX_METRICS = 2000


def finite(value: float | None) -> float | None:
    """Infinity (an unconstrained slack) and NaN read as 'not reported'."""
    return value if value is not None and math.isfinite(value) else None


def count_or_none(value: float | None) -> int | None:
    """A count; negative values are the flows' 'did not run' marker."""
    value = finite(value)
    return int(value) if value is not None and value >= 0 else None
