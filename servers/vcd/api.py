"""The waveform tools as a plain Python API: every method takes workspace paths and returns a
bounded result model; bad input becomes ok=false with a message, never an exception."""

from __future__ import annotations

import asyncio
import bisect
import fnmatch
import re
import time as _time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np

from servers.core.bounded import CallTimedOut, run_bounded
from servers.core.cache import file_digest
from servers.core.progress import Progress, no_progress
from servers.core.sv.includes import include_closure
from servers.core.workspace import InvalidInput, Workspace, atomic_write

from . import expr, handshake, render, vectors
from .fanin import DriverGraph, driver_graph
from .models import (
    CompareResult,
    ConeSignal,
    Divergence,
    EventResult,
    ExplainResult,
    HandshakeResult,
    HandshakeStats,
    RenderInfo,
    Row,
    SignalEntry,
    SignalList,
    SummaryResult,
    Table,
    Toggle,
    WaveIssue,
    WaveResult,
)
from .reader import SignalInfo, WaveFile, normalise, open_wave, sniff
from .values import Radix, Raw, format_value, same, to_int

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


class Waves:
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
        return [wave.resolve(n, argument) for n in names]

    def _clock(self, wave: WaveFile, clock: str | None, near: SignalInfo | None = None):
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

    # ------------------------------------------------------------------ tools
    async def list_signals(
        self,
        file: str,
        pattern: str | None = None,
        scope: str | None = None,
        limit: int = 200,
    ) -> SignalList:
        def work() -> SignalList:
            wave, cached = self._open(file)
            cap = self._limit(limit, "limit")
            scope_key = normalise(scope) + "." if scope else None
            wildcard = pattern is not None and any(c in pattern for c in "*?[")
            first_of: dict[str, str] = {}
            entries: list[SignalEntry] = []
            total = 0
            for name, info in wave.infos.items():
                key = normalise(name)
                alias = first_of.setdefault(info.ref, name)
                if scope_key and not key.startswith(scope_key):
                    continue
                if pattern:
                    if wildcard:
                        if not fnmatch.fnmatchcase(key.lower(), pattern.lower()) and not (
                            fnmatch.fnmatchcase(key.rsplit(".", 1)[-1].lower(), pattern.lower())
                        ):
                            continue
                    elif pattern.lower() not in key.lower():
                        continue
                total += 1
                if len(entries) < cap:
                    entries.append(
                        SignalEntry(
                            name=name,
                            width=info.width,
                            kind=info.kind,
                            direction=None
                            if info.direction in ("Unknown", "Implicit")
                            else info.direction,
                            alias_of=None if alias == name else alias,
                        )
                    )
            return SignalList(
                **self._base(wave, cached), signals=entries, total=total, truncated=total > cap
            )

        return await self._run(SignalList, work, file)

    async def values_at(
        self,
        file: str,
        signals: list[str],
        times: list[int | str] | None = None,
        cycles: list[int] | None = None,
        clock: str | None = None,
        sample: Sample = "before",
        edge: Edge = "rising",
        radix: Radix = "hex",
    ) -> Table:
        def work() -> Table:
            wave, cached = self._open(file)
            infos = self._signals(wave, signals)
            if (times is None) == (cycles is None):
                raise InvalidInput(
                    "times/cycles: give exactly one of them",
                    argument="times",
                    hint="times are ticks of the dump's timescale; cycles need a clock.",
                )
            points = times if times is not None else cycles
            assert points is not None
            if len(points) > MAX_POINTS:
                raise InvalidInput(
                    f"times/cycles: at most {MAX_POINTS} points per call", argument="times"
                )
            clock_info = None
            cycle_list: list[int | None]
            if cycles is not None:
                clock_info = self._clock(wave, clock, infos[0])
                if clock_info is None:
                    raise InvalidInput("clock: cycles need a clock signal", argument="clock")
                edges = wave.edges(clock_info, edge)
                bad = [c for c in cycles if not isinstance(c, int) or c < 0 or c >= len(edges)]
                if bad:
                    raise InvalidInput(
                        f"cycles: {bad[:5]} outside 0..{len(edges) - 1} ({len(edges)} "
                        f"{edge} edges of {clock_info.name})",
                        argument="cycles",
                    )
                at = self._sample_times(edges[np.array(cycles, dtype=np.int64)], sample)
                cycle_list = list(cycles)
                stamps = [int(edges[c]) for c in cycles]
            else:
                stamps = [wave.parse_time(t, "times") for t in times or []]
                at = np.array(stamps, dtype=np.int64)
                cycle_list = [None] * len(stamps)
            columns = self._values(wave, infos, at)
            rows = [
                Row(
                    time=stamps[j],
                    cycle=cycle_list[j],
                    values={
                        i.name: self._fmt(i, columns[n][j], radix) for n, i in enumerate(infos)
                    },
                )
                for j in range(len(stamps))
            ]
            return Table(
                **self._base(wave, cached),
                signals=[i.name for i in infos],
                clock=clock_info.name if clock_info else None,
                sample=sample if clock_info else None,
                rows=rows,
            )

        return await self._run(Table, work, file)

    async def window(
        self,
        file: str,
        signals: list[str],
        start: int | str = 0,
        end: int | str | None = None,
        clock: str | None = None,
        max_rows: int = 200,
        sample: Sample = "before",
        edge: Edge = "rising",
        radix: Radix = "hex",
    ) -> Table:
        def work() -> Table:
            wave, cached = self._open(file)
            infos = self._signals(wave, signals)
            cap = self._limit(max_rows, "max_rows")
            lo = wave.parse_time(start, "start")
            hi = wave.end_time() if end is None else wave.parse_time(end, "end")
            if hi < lo:
                raise InvalidInput(f"end: {hi} is before start {lo}", argument="end")
            return self._window(wave, cached, infos, lo, hi, clock, cap, sample, edge, radix)

        return await self._run(Table, work, file)

    def _window(
        self,
        wave: WaveFile,
        cached: bool,
        infos: list[SignalInfo],
        lo: int,
        hi: int,
        clock: str | SignalInfo | None,
        cap: int,
        sample: str = "before",
        edge: str = "rising",
        radix: Radix = "hex",
    ) -> Table:
        clock_info = wave.resolve(clock, "clock") if isinstance(clock, str) else clock
        truncated = False
        if clock_info is not None:
            edges = wave.edges(clock_info, edge)
            first = int(np.searchsorted(edges, lo, side="left"))
            last = int(np.searchsorted(edges, hi, side="right"))
            if last - first > cap:
                last, truncated = first + cap, True
            stamps = edges[first:last]
            at = self._sample_times(stamps, sample)
            cycle_ids: list[int | None] = list(range(first, last))
        else:
            found: set[int] = {lo}
            for info in infos:
                _, a, b, sig = self._changes(wave, info, lo, hi)
                for k in range(a, min(b, a + cap + 1)):
                    found.add(int(sig[k][0]))
                if b - a > cap:
                    truncated = True
            ordered = sorted(found)
            if len(ordered) > cap:
                ordered, truncated = ordered[:cap], True
            stamps = np.array(ordered, dtype=np.int64)
            at = stamps
            cycle_ids = [None] * len(stamps)
        columns = self._values(wave, infos, at)
        rows = [
            Row(
                time=int(stamps[j]),
                cycle=cycle_ids[j],
                values={i.name: self._fmt(i, columns[n][j], radix) for n, i in enumerate(infos)},
            )
            for j in range(len(stamps))
        ]
        return Table(
            **self._base(wave, cached),
            signals=[i.name for i in infos],
            clock=clock_info.name if clock_info else None,
            sample=sample if clock_info else None,
            rows=rows,
            truncated=truncated,
        )

    async def find_event(
        self,
        file: str,
        condition: str,
        start: int | str = 0,
        clock: str | None = None,
        sample: Sample = "before",
        edge: Edge = "rising",
        max_points: int = MAX_SCAN,
        progress: Progress = no_progress,
    ) -> EventResult:
        def work() -> EventResult:
            wave, cached = self._open(file)
            cond = expr.parse(condition)
            infos = [wave.resolve(n, "condition") for n in cond.signals]
            lo = wave.parse_time(start, "start")
            scan_cap = self._limit(max_points, "max_points", MAX_SCAN)
            clock_info = wave.resolve(clock, "clock") if clock else None
            base = self._base(wave, cached)
            if clock_info is not None:
                edges = wave.edges(clock_info, edge)
                first = int(np.searchsorted(edges, lo, side="left"))
                stamps = edges
                at_all = self._sample_times(edges, sample)
            else:
                changes = [wave.trace(i).times for i in infos]
                merged = np.unique(np.concatenate(changes)) if changes else np.array([lo])
                # start itself is a point: the condition may already hold there
                merged = np.unique(np.concatenate([merged, np.array([lo])]))
                first = int(np.searchsorted(merged, lo, side="left"))
                stamps = merged
                at_all = merged
            traces = [wave.trace(i) for i in infos]
            widths = [i.width for i in infos]
            scanned = 0
            k = first
            total = len(stamps)
            while k < total and scanned < scan_cap:
                stop = min(total, k + CHUNK, k + (scan_cap - scanned))
                base_k = max(0, k - cond.max_past)
                window_at = at_all[base_k:stop]
                ints = [[to_int(v) for v in t.sample(window_at)] for t in traces]

                def get(index: int, point: int, ints=ints, base_k=base_k) -> expr.Val:
                    return ints[index][point - base_k], widths[index]

                for point in range(k, stop):
                    if cond.holds(get, point):
                        t = int(stamps[point])
                        values = {
                            i.name: self._fmt(i, traces[n].value_at(int(at_all[point])))
                            for n, i in enumerate(infos)
                        }
                        return EventResult(
                            **base,
                            condition=condition,
                            signals=[i.name for i in infos],
                            clock=clock_info.name if clock_info else None,
                            found=True,
                            time=t,
                            cycle=point if clock_info is not None else None,
                            values=values,
                            scanned=scanned + (point - k) + 1,
                        )
                scanned += stop - k
                k = stop
            return EventResult(
                **base,
                condition=condition,
                signals=[i.name for i in infos],
                clock=clock_info.name if clock_info else None,
                found=False,
                scanned=scanned,
                truncated=k < total,
            )

        return await self._run(EventResult, work, file, progress)

    async def compare(
        self,
        file: str,
        reference: str,
        signals: list[str] | None = None,
        clock: str | None = None,
        vector_signal: str | None = None,
        when: str | None = None,
        start: int | str = 0,
        sample: Sample = "before",
        edge: Edge = "rising",
        radix: Radix = "hex",
    ) -> CompareResult:
        def work() -> CompareResult:
            wave, cached = self._open(file)
            ref_path = self.workspace.resolve(reference, argument="reference")
            lo = wave.parse_time(start, "start")
            if vector_signal is not None:
                return self._compare_vectors(
                    wave, cached, ref_path, vector_signal, when, clock, lo, sample, edge, radix
                )
            try:
                with self.workspace.open_confined(ref_path, argument="reference") as handle:
                    sniff(Path(f"/proc/self/fd/{handle.fileno()}"), ref_path.name)
            except InvalidInput as exc:
                raise InvalidInput(
                    f"reference: {exc} (for a $readmemh golden file also give vector_signal)",
                    argument="reference",
                    hint="vector_signal names the dumped signal the words are compared with; "
                    "when is the beat condition, e.g. 'm_tvalid && m_tready'.",
                ) from None
            other, _ = self._open(reference, "reference")
            return self._compare_dumps(wave, cached, other, signals, clock, lo, sample, edge, radix)

        return await self._run(CompareResult, work, file)

    def _compare_dumps(
        self,
        wave: WaveFile,
        cached: bool,
        other: WaveFile,
        signals: list[str] | None,
        clock: str | None,
        lo: int,
        sample: str,
        edge: str,
        radix: Radix,
    ) -> CompareResult:
        base = self._base(wave, cached)
        if wave.timescale != other.timescale:
            base["warnings"].append(
                f"timescales differ ({wave.timescale} vs {other.timescale}): times are compared "
                "as ticks; use a clock to compare cycle by cycle"
            )
        if signals:
            pairs = [(wave.resolve(n), other.resolve(n, "signals")) for n in self._as_list(signals)]
        else:
            theirs = {normalise(n): info for n, info in other.infos.items()}
            seen: set[str] = set()
            pairs = []
            for name, info in wave.infos.items():
                key = normalise(name)
                if key in theirs and info.ref not in seen and "Parameter" not in info.kind:
                    seen.add(info.ref)
                    pairs.append((info, theirs[key]))
            if not pairs:
                raise InvalidInput(
                    "signals: the two dumps share no signal names", argument="signals"
                )
            pairs = pairs[:256]
        clock_a = wave.resolve(clock, "clock") if clock else None
        divergences: list[Divergence] = []
        mismatches = 0
        compared = 0
        if clock_a is not None:
            clock_b = other.resolve(clock, "clock")
            edges_a = wave.edges(clock_a, edge)
            edges_b = other.edges(clock_b, edge)
            first = int(np.searchsorted(edges_a, lo, side="left"))
            count = min(len(edges_a), len(edges_b))
            at_a = self._sample_times(edges_a[first:count], sample)
            at_b = self._sample_times(edges_b[first:count], sample)
            compared = max(0, count - first)
            for mine, theirs in pairs:
                got = wave.trace(mine).sample(at_a)
                want = other.trace(theirs).sample(at_b)
                recorded = False
                for j, (g, w) in enumerate(zip(got, want, strict=True)):
                    if not same(g, w):
                        mismatches += 1
                        if not recorded:  # the first divergence of each signal
                            recorded = True
                            divergences.append(
                                Divergence(
                                    time=int(edges_a[first + j]),
                                    cycle=first + j,
                                    signal=mine.name,
                                    expected=self._fmt(theirs, w, radix),
                                    actual=self._fmt(mine, g, radix),
                                )
                            )
                        if mismatches >= MISMATCH_CAP:
                            break
            if len(edges_a) != len(edges_b):
                base["warnings"].append(
                    f"{len(edges_a)} clock edges here, {len(edges_b)} in the reference: "
                    f"compared the first {count}"
                )
        else:
            for mine, theirs in pairs:
                ta, tb = wave.trace(mine), other.trace(theirs)
                points = np.union1d(ta.times, tb.times)
                points = points[points >= lo]
                if len(points) == 0 or points[0] != lo:
                    points = np.concatenate([[lo], points])
                compared += len(points)
                got, want = ta.sample(points), tb.sample(points)
                recorded = False
                for j, (g, w) in enumerate(zip(got, want, strict=True)):
                    if not same(g, w):
                        mismatches += 1
                        if not recorded:  # the first divergence of each signal
                            recorded = True
                            divergences.append(
                                Divergence(
                                    time=int(points[j]),
                                    signal=mine.name,
                                    expected=self._fmt(theirs, w, radix),
                                    actual=self._fmt(mine, g, radix),
                                )
                            )
                        if mismatches >= MISMATCH_CAP:
                            break
        divergences.sort(key=lambda d: (d.time or 0, d.signal))
        return CompareResult(
            **base,
            reference=self.workspace.relative(other.path),
            mode="dump",
            signals=[m.name for m, _ in pairs],
            clock=clock_a.name if clock_a else None,
            compared=compared,
            mismatches=mismatches,
            first=divergences[0] if divergences else None,
            divergences=divergences[:MAX_DIVERGENCES],
            truncated=len(divergences) > MAX_DIVERGENCES or mismatches >= MISMATCH_CAP,
        )

    @staticmethod
    def _as_list(names: Sequence[str] | str) -> list[str]:
        return [names] if isinstance(names, str) else list(names)

    def _beats(
        self,
        wave: WaveFile,
        clock_info: SignalInfo,
        when: str | None,
        lo: int,
        sample: str,
        edge: str,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(edge index, sample time) of every cycle where `when` holds, from `lo` on."""
        edges = wave.edges(clock_info, edge)
        first = int(np.searchsorted(edges, lo, side="left"))
        at = self._sample_times(edges, sample)
        if not when:
            idx = np.arange(first, len(edges))
            return idx, at[first:]
        cond = expr.parse(when, "when")
        infos = [wave.resolve(n, "when") for n in cond.signals]
        widths = [i.width for i in infos]
        chosen: list[int] = []
        for k in range(first, len(edges), CHUNK):
            stop = min(len(edges), k + CHUNK)
            base_k = max(0, k - cond.max_past)
            cols = [[to_int(v) for v in wave.trace(i).sample(at[base_k:stop])] for i in infos]

            def get(index: int, point: int, cols=cols, base_k=base_k) -> expr.Val:
                return cols[index][point - base_k], widths[index]

            chosen.extend(p for p in range(k, stop) if cond.holds(get, p))
        idx = np.array(chosen, dtype=np.int64)
        return idx, at[idx] if len(idx) else np.array([], dtype=np.int64)

    def _compare_vectors(
        self,
        wave: WaveFile,
        cached: bool,
        ref_path: Path,
        vector_signal: str,
        when: str | None,
        clock: str | None,
        lo: int,
        sample: str,
        edge: str,
        radix: Radix,
    ) -> CompareResult:
        info = wave.resolve(vector_signal, "vector_signal")
        clock_info = self._clock(wave, clock, info)
        if clock_info is None:
            raise InvalidInput(
                "clock: comparing vectors needs a clock (none found next to the signal)",
                argument="clock",
            )
        raw = self.workspace.read_confined(
            ref_path, argument="reference", max_bytes=vectors.MAX_FILE_BYTES
        )
        words = vectors.read_memh(raw, ref_path.name)
        expected: dict[int, str] = {}
        for address, word in words:
            expected[address] = word
        ordered = [expected.get(a) for a in range(max(expected) + 1)]
        idx, at = self._beats(wave, clock_info, when, lo, sample, edge)
        edges = wave.edges(clock_info, edge)
        got = wave.trace(info).sample(at) if len(at) else []
        divergences: list[Divergence] = []
        mismatches = 0
        for beat, raw in enumerate(got):
            if beat >= len(ordered):
                mismatches += 1
                if len(divergences) < MAX_DIVERGENCES + 1:
                    divergences.append(
                        Divergence(
                            time=int(edges[idx[beat]]),
                            cycle=int(idx[beat]),
                            beat=beat,
                            signal=info.name,
                            expected="(no more vectors)",
                            actual=self._fmt(info, raw, radix),
                        )
                    )
                break
            word = ordered[beat]
            if word is None:
                continue
            want = vectors.word_value(word)
            value = to_int(raw)
            if want is None:  # x/z digits: compare the known nibbles only
                ok = value is not None and all(
                    c in "xz" or int(c, 16) == (value >> (4 * n)) & 0xF
                    for n, c in enumerate(reversed(word))
                )
            else:
                mask = (1 << info.width) - 1
                ok = value is not None and (value & mask) == (want & mask)
            if not ok:
                mismatches += 1
                if len(divergences) < MAX_DIVERGENCES + 1:
                    divergences.append(
                        Divergence(
                            time=int(edges[idx[beat]]),
                            cycle=int(idx[beat]),
                            beat=beat,
                            signal=info.name,
                            expected=f"{info.width}'h{word}",
                            actual=self._fmt(info, raw, radix),
                        )
                    )
                if mismatches >= MISMATCH_CAP:
                    break
        if len(got) < len(ordered):
            mismatches += 1
            if len(divergences) < MAX_DIVERGENCES + 1:
                divergences.append(
                    Divergence(
                        time=None,
                        beat=len(got),
                        signal=info.name,
                        expected=f"{info.width}'h{ordered[len(got)]}",
                        actual=f"(only {len(got)} beats in the dump)",
                    )
                )
        return CompareResult(
            **self._base(wave, cached),
            reference=self.workspace.relative(ref_path),
            mode="vectors",
            signals=[info.name],
            clock=clock_info.name,
            compared=min(len(got), len(ordered)),
            mismatches=mismatches,
            first=divergences[0] if divergences else None,
            divergences=divergences[:MAX_DIVERGENCES],
            truncated=len(divergences) > MAX_DIVERGENCES,
        )

    async def handshake_stats(
        self,
        file: str,
        prefix: str | None = None,
        clock: str | None = None,
        start: int | str = 0,
        end: int | str | None = None,
        edge: Edge = "rising",
    ) -> HandshakeResult:
        def work() -> HandshakeResult:
            wave, cached = self._open(file)
            lo = wave.parse_time(start, "start")
            hi = wave.end_time() if end is None else wave.parse_time(end, "end")
            ports = handshake.find_ports(wave.infos, prefix)
            if not ports:
                raise InvalidInput(
                    f"prefix: no AXI-Stream port{f' {prefix!r}' if prefix else ''} "
                    "(<prefix>_tvalid with _tready) in the dump",
                    argument="prefix",
                    hint="list_signals(pattern='*tvalid*') shows the candidates.",
                )
            clock_info = self._clock(wave, clock, wave.infos[ports[0].valid])
            if clock_info is None:
                raise InvalidInput("clock: no clock found; name it", argument="clock")
            stats, first, last = self._handshakes(wave, ports, clock_info, lo, hi, edge)
            return HandshakeResult(
                **self._base(wave, cached),
                clock=clock_info.name,
                start_cycle=first,
                end_cycle=last,
                interfaces=stats[:32],
                truncated=len(stats) > 32,
            )

        return await self._run(HandshakeResult, work, file)

    def _handshakes(
        self,
        wave: WaveFile,
        ports: list[handshake.Port],
        clock_info: SignalInfo,
        lo: int,
        hi: int,
        edge: str = "rising",
    ) -> tuple[list[HandshakeStats], int, int]:
        edges = wave.edges(clock_info, edge)
        first = int(np.searchsorted(edges, lo, side="left"))
        last = int(np.searchsorted(edges, hi, side="right"))
        at = edges[first:last] - 1
        out = []
        seen: set[tuple[str, str | None]] = set()
        for port in ports[:64]:
            valid = wave.infos[port.valid]
            ready = wave.infos[port.ready] if port.ready else None
            key = (valid.ref, ready.ref if ready else None)
            if key in seen:  # the same wires seen from the testbench and from inside the DUT
                continue
            seen.add(key)
            sample = wave.trace
            counts = handshake.count(
                sample(valid).sample(at),
                sample(ready).sample(at) if ready else None,
                sample(wave.infos[port.last]).sample(at) if port.last else None,
                first_cycle=first,
                data=sample(wave.infos[port.data]).sample(at) if port.data else None,
            )
            out.append(
                HandshakeStats(
                    prefix=port.prefix,
                    valid=port.valid,
                    ready=port.ready,
                    data=port.data,
                    last=port.last,
                    cycles=counts.cycles,
                    beats=counts.beats,
                    packets=counts.packets,
                    stalls=counts.stalls,
                    bubbles=counts.bubbles,
                    idle=counts.idle,
                    unknown=counts.unknown,
                    longest_stall=counts.longest_stall,
                    longest_stall_cycle=counts.longest_stall_start,
                    first_beat_cycle=counts.first_beat,
                    last_beat_cycle=counts.last_beat,
                    violations=counts.violations,
                    first_violation_cycle=counts.first_violation,
                )
            )
        return out, first, max(first, last - 1)

    async def summary(self, file: str, top: int = 10, progress: Progress = no_progress):
        def work() -> SummaryResult:
            wave, cached = self._open(file)
            count = self._limit(top, "top", 100)
            nets = wave.unique_signals()
            counted = nets[:5000]
            toggles = sorted(
                (
                    Toggle(name=i.name, width=i.width, changes=max(0, wave.change_count(i) - 1))
                    for i in counted
                    if "Parameter" not in i.kind
                ),
                key=lambda t: (-t.changes, t.name),
            )
            scopes = sorted({n.split(".", 1)[0] for n in wave.infos})
            return SummaryResult(
                **self._base(wave, cached),
                format=wave.format,
                version=wave.version,
                start=wave.start_time(),
                end=wave.end_time(),
                signals=len(wave.infos),
                nets=len(nets),
                scopes=scopes[:50],
                busiest=toggles[:count],
                counted=len(counted),
                truncated=len(nets) > len(counted),
            )

        return await self._run(SummaryResult, work, file, progress)

    async def render(
        self,
        file: str,
        signals: list[str],
        start: int | str = 0,
        end: int | str | None = None,
        format: Literal["svg", "png"] = "png",
        out: str | None = None,
        marker: int | str | None = None,
    ) -> tuple[RenderInfo, bytes | None]:
        def work() -> tuple[RenderInfo, bytes | None]:
            wave, cached = self._open(file)
            if format not in ("svg", "png"):
                raise InvalidInput("format: 'svg' or 'png'", argument="format")
            infos = self._signals(wave, signals)
            if len(infos) > 32:
                raise InvalidInput("signals: at most 32 lanes per picture", argument="signals")
            lo = wave.parse_time(start, "start")
            hi = wave.end_time() if end is None else wave.parse_time(end, "end")
            if hi <= lo:
                raise InvalidInput(f"end: {hi} must be after start {lo}", argument="end")
            mark = wave.parse_time(marker, "marker") if marker is not None else None
            lanes = []
            for info in infos:
                initial, a, b, sig = self._changes(wave, info, lo, hi)
                take = min(b, a + render.MAX_LANE_SEGMENTS + 1)
                # pywellen refuses an empty slice
                changes = [(int(t), v) for t, v in sig[a:take]] if take > a else []
                if b > take:
                    changes += [(hi, None)] * (b - take > 0)
                    changes = changes[: render.MAX_LANE_SEGMENTS + 2]
                lanes.append(render.Lane(info.name, info.width, initial, changes))
            drawing = render.layout(lanes, lo, hi, wave.timescale, mark)
            data = render.to_svg(drawing).encode() if format == "svg" else render.to_png(drawing)
            if out is not None:
                target = self.workspace.resolve(out, argument="out", must_exist=False)
                if target.suffix.lower() != f".{format}":
                    raise InvalidInput(f"out: must end in .{format}", argument="out")
            else:
                stem = re.sub(r"[^A-Za-z0-9_.-]", "_", wave.path.stem)
                target = self.workspace.keep_dir("vcd", "renders") / (
                    f"{stem}-{lo}-{hi}-{int(_time.time() * 1000) % 10**9}.{format}"
                )
            atomic_write(target, data)
            info = RenderInfo(
                **self._base(wave, cached),
                path=self.workspace.relative(target),
                format=format,
                width=drawing.width,
                height=drawing.height,
                signals=[i.name for i in infos],
                start=lo,
                end=hi,
            )
            return info, data

        try:
            return await asyncio.to_thread(work)
        except InvalidInput as exc:
            issue = WaveIssue(message=str(exc), argument=exc.argument, hint=exc.hint)
            return RenderInfo(ok=False, file=file, error=issue), None

    # ------------------------------------------------------------------ explain
    def _graph(self, sources: list[Path], top: str | None) -> DriverGraph:
        key = tuple(sorted(f"{p}:{file_digest(p)}" for p in sources)) + (top or "",)
        if key not in self._graphs:
            # slang elaborates in a worker killed at the limit, whatever the RTL asks for.
            try:
                graph = run_bounded(driver_graph, sources, top, timeout_s=GRAPH_TIMEOUT_S)
            except CallTimedOut as exc:
                raise InvalidInput(
                    f"sources: elaborating them {exc}",
                    argument="sources",
                    hint="Pass only the RTL files around the signal (not a whole design with "
                    "huge generate loops), or leave sources out.",
                ) from None
            self._graphs[key] = graph
            while len(self._graphs) > 8:
                self._graphs.pop(next(iter(self._graphs)))
        return self._graphs[key]

    async def explain_mismatch(
        self,
        file: str,
        signal: str,
        time: int | str,
        sources: list[str] | None = None,
        depth: int = 3,
        clock: str | None = None,
        expected: str | None = None,
        reference: str | None = None,
        cycles_before: int = 8,
        cycles_after: int = 2,
        top: str | None = None,
        max_signals: int = 24,
    ) -> ExplainResult:
        def work() -> ExplainResult:
            wave, cached = self._open(file)
            info = wave.resolve(signal, "signal")
            t0 = wave.parse_time(time, "time")
            if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= 8:
                raise InvalidInput("depth: 0..8 levels of fan-in", argument="depth")
            before = self._limit(cycles_before, "cycles_before", 200)
            after = max(0, min(int(cycles_after), 200))
            width_cap = self._limit(max_signals, "max_signals", MAX_SIGNALS)
            clock_info = self._clock(wave, clock, info)
            notes: list[str] = []
            base = self._base(wave, cached)
            first_mismatch = None
            t_focus = t0
            if reference is not None:
                other, _ = self._open(reference, "reference")
                result = self._compare_dumps(
                    wave, cached, other, [info.name], clock_info.name if clock_info else None,
                    t0, "before", "rising", "hex",
                )  # fmt: skip
                first_mismatch = result.first
                if first_mismatch is not None and first_mismatch.time is not None:
                    t_focus = first_mismatch.time
                    notes.append(
                        f"first divergence from {self.workspace.relative(other.path)} at "
                        f"t={first_mismatch.time}: expected {first_mismatch.expected}, "
                        f"got {first_mismatch.actual}"
                    )
                else:
                    notes.append("no divergence from the reference at or after this time")
            edges = wave.edges(clock_info) if clock_info is not None else None
            t_seen = t_focus
            if edges is not None and first_mismatch is None:
                at_edge = int(np.searchsorted(edges, t_focus, side="left"))
                if at_edge < len(edges) and int(edges[at_edge]) == t_focus and t_focus > 0:
                    # a checker clocked on this edge read the value from before the edge
                    t_seen = t_focus - 1
                    notes.append(
                        f"t={t_focus} is a clock edge: the value a checker on that edge saw "
                        "(just before it) is examined"
                    )
            value = wave.value_at(info, t_seen)
            _, _, upto, sig = self._changes(wave, info, 0, t_seen)
            changed_at = int(sig[upto - 1][0]) if upto > 0 else None
            previous = sig[upto - 2][1] if upto > 1 else None

            def cycle_of(t: int | None) -> int | None:
                if edges is None or t is None:
                    return None
                return int(np.searchsorted(edges, t, side="right")) - 1

            if changed_at is not None:
                notes.append(
                    f"{info.name} = {self._fmt(info, value)} since t={changed_at}"
                    + (f" (clock edge {cycle_of(changed_at)})" if edges is not None else "")
                    + (f", before that {self._fmt(info, previous)}" if upto > 1 else "")
                )
            if expected is not None:
                notes.append(f"the testbench expected {expected}")
            # fan-in cone from the RTL
            cone: list[ConeSignal] = [ConeSignal(rtl=normalise(info.name), level=0, dump=info.name)]
            if sources:
                paths = self.workspace.resolve_all(sources, argument="sources")
                # slang reads includes itself, in this process: each must stay inside the
                # workspace, or its text would come back quoted in slang's messages.
                include_closure(self.workspace, paths)
                graph = self._graph(paths, top)
                if graph.errors:
                    notes.append("slang reported errors in the sources: " + graph.errors[0])
                start_net = self._rtl_name(graph, info.name)
                if start_net is None:
                    notes.append(f"{info.name} is not a net of the given sources")
                else:
                    cone = []
                    for net, level in graph.cone(start_net, depth, limit=4 * width_cap):
                        dumped = wave.in_scope("", net)
                        if dumped is None:
                            try:
                                dumped = wave.resolve(net, "sources")
                            except InvalidInput:
                                dumped = None
                        cone.append(
                            ConeSignal(rtl=net, level=level, dump=dumped.name if dumped else None)
                        )
                    missing = [c.rtl for c in cone if c.dump is None]
                    if missing:
                        notes.append("not in the dump: " + ", ".join(missing[:8]))
            else:
                notes.append("pass sources (the RTL files) to get the fan-in cone")
            shown: list[SignalInfo] = []
            seen_refs: set[str] = set()
            for entry in cone:
                if entry.dump is None:
                    continue
                dumped = wave.infos[entry.dump]
                if dumped.name not in seen_refs and len(shown) < width_cap:
                    seen_refs.add(dumped.name)
                    shown.append(dumped)
            window = None
            handshakes: list[HandshakeStats] = []
            if edges is not None and len(edges):
                k = max(0, cycle_of(t_focus) or 0)
                k_lo, k_hi = max(0, k - before), min(len(edges) - 1, k + after)
                lo_t, hi_t = int(edges[k_lo]), int(edges[k_hi])
                window = self._window(
                    wave, cached, shown, lo_t, hi_t, clock_info, MAX_ROWS, "before", "rising"
                )
                scope = wave.scope_of(info)
                names = [n for n in wave.infos if n.startswith(scope + ".") or not scope]
                parent = scope.rsplit(".", 1)[0] if "." in scope else ""
                names += [n for n in wave.infos if parent and n.startswith(parent + ".")]
                ports = handshake.find_ports(dict.fromkeys(names))
                if ports:
                    handshakes, _, _ = self._handshakes(wave, ports, clock_info, lo_t, hi_t)
                    for hs in handshakes:
                        if hs.stalls or hs.beats:
                            notes.append(
                                f"{hs.prefix}: {hs.beats} beats, {hs.stalls} stall cycles, "
                                f"{hs.bubbles} bubbles in cycles {k_lo}..{k_hi}"
                            )
                        if hs.violations:
                            notes.append(
                                f"{hs.prefix}: AXI-Stream rule broken {hs.violations}x (tvalid "
                                "dropped or tdata changed while stalled), first at cycle "
                                f"{hs.first_violation_cycle}"
                            )
            else:
                notes.append("no clock found: name one to get a per-cycle window")
                window = self._window(
                    wave, cached, shown, max(0, t_focus - 200), t_focus, None, 200
                )
            return ExplainResult(
                **base,
                signal=info.name,
                clock=clock_info.name if clock_info else None,
                time=t_focus,
                cycle=cycle_of(t_focus),
                value=self._fmt(info, value),
                expected=expected,
                changed_at=changed_at,
                changed_at_cycle=cycle_of(changed_at),
                previous_value=self._fmt(info, previous) if upto > 1 else None,
                first_mismatch=first_mismatch,
                cone=cone,
                window=window,
                handshakes=handshakes,
                notes=notes,
            )

        return await self._run(ExplainResult, work, file)

    @staticmethod
    def _rtl_name(graph: DriverGraph, dump_name: str) -> str | None:
        key = normalise(dump_name)
        nets = set(graph.drivers) | {s for v in graph.drivers.values() for s in v}
        if key in nets:
            return key
        hits = sorted((n for n in nets if key.endswith("." + n) or n.endswith("." + key)), key=len)
        return hits[0] if hits else None
