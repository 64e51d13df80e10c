"""The waveform tools as a plain Python API: every method takes workspace paths and returns a
bounded result model; bad input becomes ok=false with a message, never an exception. `Waves`
is the tools of the modules beside it, one module per kind of question."""

from __future__ import annotations

from .wave_base import (
    CLOCK_NAMES,
    MAX_DIVERGENCES,
    MAX_POINTS,
    MAX_ROWS,
    MAX_SCAN,
    MAX_SIGNALS,
    Edge,
    Sample,
)
from .wave_fanin import ExplainTools
from .wave_handshake import HandshakeTools
from .wave_render import RenderTools
from .wave_values import ValueTools
from .wave_windows import WindowTools

__all__ = [
    "CLOCK_NAMES",
    "MAX_DIVERGENCES",
    "MAX_POINTS",
    "MAX_ROWS",
    "MAX_SCAN",
    "MAX_SIGNALS",
    "Edge",
    "Sample",
    "Waves",
]


class Waves(ValueTools, WindowTools, HandshakeTools, ExplainTools, RenderTools):
    """Waveform queries confined to one workspace; parsed dumps are shared in-process."""
