"""The waveform tools values_at and compare: values at times or cycles, and the first
divergence from another dump or from golden vectors."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from silicon_agent.servers.core.workspace import InvalidInput

from . import expr, vectors
from .models import (
    CompareResult,
    Divergence,
    Row,
    Table,
)
from .reader import SignalInfo, WaveFile, normalise, sniff
from .values import Radix, same, to_int
from .wave_base import CHUNK, MAX_DIVERGENCES, MAX_POINTS, MISMATCH_CAP, Edge, Sample, WaveSession


class ValueTools(WaveSession):
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
