"""The waveform tools list_signals, window, find_event and summary: what a dump holds and
what happens over a stretch of it."""

from __future__ import annotations

import fnmatch

import numpy as np

from silicon_agent.servers.core.progress import Progress, no_progress
from silicon_agent.servers.core.workspace import InvalidInput

from . import expr
from .models import (
    EventResult,
    Row,
    SignalEntry,
    SignalList,
    SummaryResult,
    Table,
    Toggle,
)
from .reader import SignalInfo, WaveFile, normalise
from .values import Radix, to_int
from .wave_base import CHUNK, MAX_SCAN, Edge, Sample, WaveSession


class WindowTools(WaveSession):
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

    async def summary(
        self, file: str, top: int = 10, progress: Progress = no_progress
    ) -> SummaryResult:
        def work() -> SummaryResult:
            wave, cached = self._open(file)
            count = self._limit(top, "top", 100)
            nets = wave.unique_signals()
            counted = nets[:5000]
            wave.prefetch(counted, every=True)
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
