"""The waveform tool handshake_stats: AXI-Stream beats, stalls and bubbles per interface."""

from __future__ import annotations

import numpy as np

from silicon_agent.servers.core.workspace import InvalidInput

from . import handshake
from .models import (
    HandshakeResult,
    HandshakeStats,
)
from .reader import SignalInfo, WaveFile
from .wave_base import Edge, WaveSession


class HandshakeTools(WaveSession):
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
