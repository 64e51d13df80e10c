"""What every waveform tool shares: the workspace, opening a dump (cached), resolving
signals and clocks, bounds, and turning refusals into ok=false results."""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np

from silicon_agent.servers.core.progress import Progress, no_progress
from silicon_agent.servers.core.workspace import InvalidInput, Workspace

from .fanin import DriverGraph
from .models import (
    WaveIssue,
    WaveResult,
)
from .reader import SignalInfo, WaveFile, open_wave
from .values import Radix, Raw, format_value

R = TypeVar("R", bound=WaveResult)
Sample = Literal["before", "after"]
Edge = Literal["rising", "falling"]

MAX_SIGNALS = 64
MAX_ROWS = 5000
GRAPH_TIMEOUT_S = 60.0  # slang elaborating the sources of explain_mismatch
MAX_POINTS = 20_000
MAX_SCAN = 5_000_000
MAX_DIVERGENCES = 20
MISMATCH_CAP = 100_000
CHUNK = 65536
CLOCK_NAMES = ("clk", "clock", "aclk", "clk_i", "clk_in", "i_clk", "sys_clk", "core_clk")


class WaveSession:
    """Waveform queries confined to one workspace; parsed dumps are shared in-process."""

    def __init__(self, workspace: Workspace):
        self.workspace = workspace
        self._graphs: dict[tuple[str, ...], DriverGraph] = {}

    # ------------------------------------------------------------------ plumbing
    async def _run(
        self,
        model: type[R],
        fn: Callable[[], R],
        file: str | None = None,
        progress: Progress = no_progress,
    ) -> R:
        # The work runs in a thread: a cold parse of a big dump must not stall the event loop
        # (other calls, progress notifications, job polling keep being served).
        try:
            await progress(None, f"reading {file}")
            result = await asyncio.to_thread(fn)
            await progress(1.0, "done")
            return result
        except InvalidInput as exc:
            return model(
                ok=False,
                file=file if isinstance(file, str) else None,
                error=WaveIssue(message=str(exc), argument=exc.argument, hint=exc.hint),
            )

    def _open(self, file: str, argument: str = "file") -> tuple[WaveFile, bool]:
        path = self.workspace.resolve(file, argument=argument)
        # Parse what was checked: the opened file, not a name a link could be swapped under.
        with self.workspace.open_confined(path, argument=argument) as handle:
            try:
                return open_wave(path, Path(f"/proc/self/fd/{handle.fileno()}"))
            except InvalidInput as exc:
                exc.argument = argument
                raise

    def _base(self, wave: WaveFile, cached: bool) -> dict[str, Any]:
        return {
            "file": self.workspace.relative(wave.path),
            "timescale": wave.timescale,
            "warnings": list(wave.warnings),
            "cached": cached,
        }

    def _signals(self, wave: WaveFile, names: Sequence[str], argument: str = "signals"):
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, list | tuple) or not names:
            raise InvalidInput(
                f"{argument}: give a non-empty list of signal names", argument=argument
            )
        if len(names) > MAX_SIGNALS:
            raise InvalidInput(
                f"{argument}: {len(names)} signals, at most {MAX_SIGNALS} per call",
                argument=argument,
            )
        infos = [wave.resolve(n, argument) for n in names]
        wave.prefetch(infos)
        return infos

    def _clock(self, wave: WaveFile, clock: str | None, near: SignalInfo | None = None):
        found = self._find_clock(wave, clock, near)
        if found is not None:
            wave.prefetch([found])
        return found

    def _find_clock(self, wave: WaveFile, clock: str | None, near: SignalInfo | None):
        if clock:
            return wave.resolve(clock, "clock")
        if near is None:
            return None
        scope = wave.scope_of(near)
        while True:
            for name in CLOCK_NAMES:
                found = wave.in_scope(scope, name)
                if found is not None and found.width == 1:
                    return found
            if not scope:
                return None
            scope = scope.rsplit(".", 1)[0] if "." in scope else ""

    @staticmethod
    def _limit(value: int, argument: str, cap: int = MAX_ROWS) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidInput(f"{argument}: must be a positive integer", argument=argument)
        return min(value, cap)

    @staticmethod
    def _fmt(info: SignalInfo, raw: Raw, radix: Radix = "hex") -> str:
        return format_value(raw, info.width, radix, info.is_real)

    @staticmethod
    def _sample_times(edges: np.ndarray, sample: str) -> np.ndarray:
        return edges - 1 if sample == "before" else edges

    def _values(
        self, wave: WaveFile, infos: list[SignalInfo], times: np.ndarray
    ) -> list[list[Raw]]:
        """Per signal, the values at each time: point lookups for a few, one pass for many."""
        if len(times) <= 64:
            return [[wave.value_at(i, int(t)) for t in times] for i in infos]
        return [wave.trace(i).sample(times) for i in infos]

    def _changes(self, wave: WaveFile, info: SignalInfo, start: int, end: int):
        """(initial value at start, changes in (start, end]) without decoding the whole signal
        into Python objects: the signal is bisected in place."""
        sig = wave.signal(info)
        lo = bisect.bisect_right(sig, start, key=lambda p: p[0])
        hi = bisect.bisect_right(sig, end, key=lambda p: p[0])
        initial = sig[lo - 1][1] if lo > 0 else None
        return initial, lo, hi, sig
