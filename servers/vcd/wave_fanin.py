"""The waveform tool explain_mismatch: the failing signal's fan-in cone from the RTL,
mapped to dumped names, around the failure."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from silicon_agent.servers.core.bounded import CallStopped, run_bounded
from silicon_agent.servers.core.cache import file_digest
from silicon_agent.servers.core.sv.includes import include_closure
from silicon_agent.servers.core.workspace import InvalidInput

from . import handshake
from .design_ports import dumped, input_beats, rtl_name
from .fanin import DriverGraph, driver_graph
from .models import (
    ConeSignal,
    ExplainResult,
    HandshakeStats,
    InputBeat,
)
from .reader import SignalInfo, WaveFile, normalise
from .values import to_int
from .wave_base import GRAPH_TIMEOUT_S, MAX_ROWS, MAX_SIGNALS, WaveSession

LOOKBACK_CYCLES = 64  # how far back a right value left on the failing output is looked for


class ExplainTools(WaveSession):
    # ------------------------------------------------------------------ explain
    def _graph(self, sources: list[Path], top: str | None) -> DriverGraph:
        key = tuple(sorted(f"{p}:{file_digest(p)}" for p in sources)) + (top or "",)
        if key not in self._graphs:
            # slang elaborates in a worker killed at the limit, whatever the RTL asks for.
            try:
                graph = run_bounded(driver_graph, sources, top, timeout_s=GRAPH_TIMEOUT_S)
            except CallStopped as exc:
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
        follow: str = "all",
    ) -> ExplainResult:
        def work() -> ExplainResult:
            wave, cached = self._open(file)
            info = wave.resolve(signal, "signal")
            t0 = wave.parse_time(time, "time")
            if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= 16:
                raise InvalidInput("depth: 0..16 levels of fan-in", argument="depth")
            if follow not in ("all", "data"):
                raise InvalidInput(
                    "follow: 'all' (values and the conditions guarding them) or 'data' "
                    "(values only)",
                    argument="follow",
                )
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
            # The right value on the failing output at an earlier edge, not taken there: the
            # value path made it; what picks it, and when, is the cause to read first.
            shown_at = (
                _expected_shown(wave, info, expected, edges, t_seen, LOOKBACK_CYCLES)
                if follow == "data" and edges is not None
                else None
            )
            if shown_at is not None:
                notes.append(
                    f"the expected value was on {info.name} at clock edge {shown_at} and was "
                    "not taken there: the values were right, so what picks them (and when) "
                    "leads the cone"
                )
            # fan-in cone from the RTL
            cone: list[ConeSignal] = [ConeSignal(rtl=normalise(info.name), level=0, dump=info.name)]
            graph: DriverGraph | None = None
            mapped: tuple[str, str | None] | None = None
            if sources:
                paths = self.workspace.resolve_all(sources, argument="sources")
                # slang reads includes itself, in this process: each must stay inside the
                # workspace, or its text would come back quoted in slang's messages.
                include_closure(self.workspace, paths)
                graph = self._graph(paths, top)
                if graph.errors:
                    notes.append("slang reported errors in the sources: " + graph.errors[0])
                mapped = rtl_name(graph, info.name)
                if mapped is None:
                    notes.append(f"{info.name} is not a net of the given sources")
                else:
                    start_net, prefix = mapped
                    cone = []
                    nets = graph.cone(
                        start_net,
                        depth,
                        limit=4 * width_cap,
                        data_only=follow == "data",
                        picks_first=shown_at is not None,
                    )
                    for net, level in nets:
                        found = dumped(wave, net, prefix)
                        if found is None and prefix is None:
                            try:
                                found = wave.resolve(net, "sources")
                            except InvalidInput:
                                found = None
                        lines = sorted(graph.lines.get(net, ()), key=_line_order)
                        cone.append(
                            ConeSignal(
                                rtl=net,
                                level=level,
                                dump=found.name if found else None,
                                lines=lines,
                            )
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
                entry_info = wave.infos[entry.dump]
                if entry_info.name not in seen_refs and len(shown) < width_cap:
                    seen_refs.add(entry_info.name)
                    shown.append(entry_info)
            window = None
            handshakes: list[HandshakeStats] = []
            inputs: list[InputBeat] = []
            if edges is not None and graph is not None and mapped and mapped[1] is not None:
                net, prefix = mapped
                upto = (cycle_of(t_focus) or 0) - (1 if t_seen < t_focus else 0)
                inputs = input_beats(wave, graph, prefix, net.split(".", 1)[0], edges, upto)
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
                inputs=inputs,
                notes=notes,
            )

        return await self._run(ExplainResult, work, file)


def _expected_shown(
    wave: WaveFile,
    info: SignalInfo,
    expected: str | None,
    edges: np.ndarray,
    t_seen: int,
    lookback: int,
) -> int | None:
    """The last clock edge in the `lookback` edges before `t_seen` where `info` held the
    expected value and its stream did not take it (tvalid or tready low; any edge when the
    signal belongs to no stream), or None."""
    try:
        want = int(str(expected).split("'h")[-1].replace("_", ""), 16)
    except ValueError:
        return None
    mask = (1 << info.width) - 1 if info.width > 0 else -1
    stop = int(np.searchsorted(edges, t_seen, side="right"))  # edges sampling before t_seen
    first = max(0, stop - lookback)
    if stop <= first:
        return None
    at = edges[first:stop] - 1  # what each edge sampled
    leaf = info.name.rsplit(".", 1)[-1]
    scope = wave.scope_of(info)
    names = [n for n in wave.infos if wave.scope_of(wave.infos[n]) == scope]
    port = next(
        (
            p
            for p in handshake.find_ports(names)
            if leaf.startswith(p.prefix.rsplit(".", 1)[-1] + "_t") and p.ready
        ),
        None,
    )
    values = wave.trace(info).sample(at)
    taken: list[bool] = [False] * len(at)
    if port is not None and port.ready is not None:
        valid = wave.trace(wave.infos[port.valid]).sample(at)
        ready = wave.trace(wave.infos[port.ready]).sample(at)
        taken = [_high(v) and _high(r) for v, r in zip(valid, ready, strict=True)]
    for offset in range(len(at) - 1, -1, -1):
        value = to_int(values[offset])
        if value is not None and value & mask == want & mask and not taken[offset]:
            return first + offset
    return None


def _high(raw: object) -> bool:
    return (to_int(raw) or 0) & 1 == 1  # type: ignore[arg-type]


def _line_order(line: str) -> tuple[str, int]:
    name, _, rest = line.partition(":")
    number = rest.split("-", 1)[0].split(" ", 1)[0]
    return name, int(number) if number.isdigit() else 0
