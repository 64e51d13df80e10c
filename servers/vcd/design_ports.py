"""The design's own ports in a dump: where the design's top instance sits (the dump names a
testbench's instance `tb.dut`, slang names the module `qam_demodulator`), and the beats its
input streams accepted up to a time, with its other inputs (the configuration) beside them."""

from __future__ import annotations

import numpy as np

from . import handshake
from .fanin import DriverGraph
from .models import InputBeat
from .reader import SignalInfo, WaveFile, normalise
from .values import format_value, to_int

MAX_BEATS = 4  # input beats shown per stream, the last ones before the focus


def rtl_name(graph: DriverGraph, dump_name: str) -> tuple[str, str | None] | None:
    """The RTL net of a dumped name, and the dump's prefix for the net's top module (so
    `qam_demodulator.x` reads `prefix + x`); None when the sources have no such net."""
    key = normalise(dump_name)
    nets = set(graph.drivers) | {s for v in graph.drivers.values() for s in v} | set(graph.ports)
    if key in nets:
        return key, None
    hits = sorted((n for n in nets if key.endswith("." + n)), key=len)
    if hits:
        return hits[0], key[: len(key) - len(hits[0])]
    # the top module's nets under the testbench's instance name: `tb.dut.x` is `top.x`
    relative = sorted(
        (n for n in nets if "." in n and key.endswith("." + n.split(".", 1)[1])),
        key=lambda n: (n.count("."), len(n)),
    )
    if relative:
        net = relative[0]
        return net, key[: len(key) - len(net.split(".", 1)[1])]
    hits = sorted((n for n in nets if n.endswith("." + key)), key=len)
    return (hits[0], None) if hits else None


def dumped(wave: WaveFile, net: str, prefix: str | None) -> SignalInfo | None:
    """A net of the RTL as the dump names it."""
    if prefix is not None and "." in net:
        found = wave.in_scope("", prefix + net.split(".", 1)[1])
        if found is not None:
            return found
    return wave.in_scope("", net)


def input_beats(
    wave: WaveFile, graph: DriverGraph, prefix: str, top: str, edges: np.ndarray, upto: int
) -> list[InputBeat]:
    """The last beats each input stream of the top module accepted up to clock edge `upto`
    (inclusive), numbered from the last reset release, with the other inputs' values."""
    inputs = {
        net.split(".", 1)[1]: info
        for net, direction in graph.ports.items()
        if direction == "in" and net.startswith(top + ".")
        for info in [dumped(wave, net, prefix)]
        if info is not None
    }
    outputs = {
        net.split(".", 1)[1]
        for net, direction in graph.ports.items()
        if direction == "out" and net.startswith(top + ".")
    }
    names = [*inputs, *outputs]
    every = handshake.find_ports(names)
    ports = [p for p in every if p.valid in inputs]
    if not ports or upto < 0:
        return []
    at = edges[: upto + 1] - 1
    reset = [n for n in inputs if "rst" in n.lower() or "reset" in n.lower()]
    start = 0
    if reset:
        level = [to_int(v) for v in wave.trace(inputs[reset[0]]).sample(at)]
        base = reset[0].lower().removesuffix("_i")
        active_low = base.endswith("n")
        asserted = [i for i, v in enumerate(level) if v == (0 if active_low else 1)]
        start = asserted[-1] + 1 if asserted else 0
    stream_parts = {p.valid for p in every} | {p.ready for p in every if p.ready}
    config = [
        n for n in inputs if n not in stream_parts and n not in reset and "clk" not in n.lower()
    ]
    beats: list[InputBeat] = []
    for port in ports:
        valid = [to_int(v) for v in wave.trace(inputs[port.valid]).sample(at)]
        ready_info = dumped(wave, f"{top}.{port.ready}", prefix) if port.ready else None
        ready_values = (
            [to_int(v) for v in wave.trace(ready_info).sample(at)] if ready_info else None
        )
        fired = [
            i
            for i in range(start, len(at))
            if valid[i] is not None
            and valid[i] & 1
            and (ready_values is None or (ready_values[i] or 0) & 1)
        ]
        own = sorted(config, key=lambda n: not n.startswith(port.prefix + "_"))
        for number, i in list(enumerate(fired))[-MAX_BEATS:]:
            t = int(at[i])
            values = {}
            for name in own:
                info = inputs[name]
                values[name] = format_value(wave.value_at(info, t), info.width, "hex", info.is_real)
            beats.append(InputBeat(port=port.prefix, beat=number, cycle=i, values=values))
    return beats
