"""The condition language and find_event on a known dump; pictures with real content."""

from __future__ import annotations

import asyncio
import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from silicon_agent.servers.core.workspace import InvalidInput, Workspace
from silicon_agent.servers.vcd import expr
from silicon_agent.servers.vcd.api import Waves

from .vcdgen import write_vcd


def _eval(text: str, env: dict[str, list[int | None]], width: int = 8) -> list[int | None]:
    cond = expr.parse(text)
    n = len(next(iter(env.values())))

    def get(index: int, k: int) -> expr.Val:
        return env[cond.signals[index]][k], width

    return [cond.value(get, k)[0] for k in range(n)]


def test_operators_precedence_and_unknowns():
    env = {"a": [1, 1, 0, None], "b": [0, 1, 1, 1], "d": [0x3F, 0x3F, 5, None]}
    assert _eval("a && b", env) == [0, 1, 0, None]
    assert _eval("a || b", env) == [1, 1, 1, 1]  # 1 || x is 1
    assert _eval("!a && b", env) == [0, 0, 1, None]
    assert _eval("d == 'h3f && a", env) == [1, 1, 0, None]
    assert _eval("d[1:0] == 2'b01", env) == [0, 0, 1, None]
    assert _eval("d + 1 == 64", env) == [1, 1, 0, None]
    assert _eval("(d & 8'hf0) >> 4", env) == [3, 3, 0, None]
    assert _eval("~d[0]", env) == [0, 0, 0, None]
    assert _eval("$past(d) == 8'd63", env) == [None, 1, 1, 0]
    assert _eval("$rose(b)", env) == [None, 1, 0, 0]
    assert _eval("$fell(a)", env) == [None, 0, 1, None]
    assert _eval("$stable(d) && !$changed(d)", env) == [None, 1, 0, None]
    assert _eval("$past(d, 2) == 'h3f", env) == [None, None, 1, 1]


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("a &&", "unexpected end"),
        ("a == 8'hxz", "cannot read"),
        ("$system(a)", "unknown function"),
        ("__import__('os')", "cannot read"),
        ("a ; b", "cannot read"),
        ("$past(a, 0)", "$past depth"),
        ("(" * 300 + "a" + ")" * 300, "nested too deeply"),
        ("", "empty"),
    ],
)
def test_bad_conditions_are_refused(text, fragment):
    with pytest.raises(InvalidInput) as info:
        expr.parse(text)
    assert fragment in str(info.value)


def _bus_dump(ws: Workspace) -> None:
    changes = [(0, "clk", "0"), (0, "tvalid", "0"), (0, "tready", "0"), (0, "tdata", "x" * 8)]
    for c in range(40):
        changes += [(10 * c + 5, "clk", "1"), (10 * c + 10, "clk", "0")]
    changes += [
        (12, "tdata", format(0x11, "08b")), (12, "tvalid", "1"),
        (32, "tready", "1"), (42, "tdata", format(0x3F, "08b")),
        (52, "tvalid", "0"), (72, "tvalid", "1"), (72, "tdata", format(0xA5, "08b")),
        (92, "tready", "0"), (112, "tvalid", "0"),
    ]  # fmt: skip
    write_vcd(
        ws.root / "s.vcd",
        [("clk", 1), ("tvalid", 1), ("tready", 1), ("tdata", 8)],
        changes,
        end=410,
    )


def test_find_event_clocked_and_unclocked(ws: Workspace):
    _bus_dump(ws)
    waves = Waves(ws)
    hit = asyncio.run(waves.find_event("s.vcd", "tvalid && tready && tdata == 'h3f", clock="clk"))
    assert hit.found and hit.time == 45 and hit.cycle == 4
    assert hit.values["tb.tdata"] == "8'h3f"
    raw = asyncio.run(waves.find_event("s.vcd", "tdata == 'ha5"))
    assert raw.found and raw.time == 72 and raw.cycle is None
    past = asyncio.run(waves.find_event("s.vcd", "tdata == 'h3f && $past(tdata) == 'h11"))
    assert past.found and past.time == 42
    later = asyncio.run(waves.find_event("s.vcd", "tvalid && tready", start=60, clock="clk"))
    assert later.found and later.time == 75 and later.cycle == 7
    none = asyncio.run(waves.find_event("s.vcd", "tdata == 'h99", clock="clk"))
    assert not none.found and none.scanned == 40
    bad = asyncio.run(waves.find_event("s.vcd", "tvalid &&& tready"))
    assert not bad.ok and bad.error.argument == "condition"
    stats = asyncio.run(waves.handshake_stats("s.vcd", clock="clk"))
    (one,) = stats.interfaces
    assert (one.beats, one.stalls, one.longest_stall) == (4, 4, 2)
    # tvalid falls at 112 while the beat is still stalled: seen at the edge of cycle 11
    assert (one.violations, one.first_violation_cycle) == (1, 11)


def test_render_png_has_lanes_labels_and_bus_values(ws: Workspace):
    _bus_dump(ws)
    waves = Waves(ws)
    signals = ["clk", "tvalid", "tready", "tdata"]
    info, data = asyncio.run(waves.render("s.vcd", signals, 0, 120, "png", out="w.png"))
    assert info.ok, info.error
    assert (ws.root / "w.png").read_bytes() == data
    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert image.size == (info.width, info.height)
    pixels = image.load()
    width, height = image.size

    def ink(x0: int, x1: int, y0: int, y1: int) -> int:
        return sum(
            1
            for x in range(x0, x1)
            for y in range(y0, y1)
            if sum(pixels[x, y]) < 600  # not white / light grid
        )

    from silicon_agent.servers.vcd import render

    label_w = width - render.PLOT_W - 3 * render.PAD
    for row in range(len(signals)):
        top = render.AXIS_H + row * render.LANE_H
        assert ink(2, label_w - 2, top, top + render.LANE_H) > 30, f"label of lane {row}"
        assert ink(label_w, width, top, top + render.LANE_H) > 200, f"wave of lane {row}"
    # the clock lane toggles: its high and low rails both carry ink across the plot
    top = render.AXIS_H + (render.LANE_H - render.WAVE_H) // 2
    high = sum(1 for x in range(label_w, width - 20) if sum(pixels[x, top]) < 600)
    low = sum(1 for x in range(label_w, width - 20) if sum(pixels[x, top + render.WAVE_H]) < 600)
    assert high > 300 and low > 300
    # below the last lane there is nothing
    assert ink(0, width, height - 4, height) == 0


def test_render_svg_text_and_shapes(ws: Workspace):
    _bus_dump(ws)
    info, data = asyncio.run(
        Waves(ws).render("s.vcd", ["tvalid", "tdata"], 0, 120, "svg", marker=45)
    )
    assert info.ok and info.path and info.path.endswith(".svg")
    svg = data.decode()
    texts = re.findall(r">([^<]+)</text>", svg)
    assert "tb.tvalid" in texts and "tb.tdata" in texts
    assert {"11", "3f", "a5", "xx"} <= set(texts)  # bus values printed in their segments
    assert "time (1ns)" in texts and "0" in texts and "100" in texts
    assert svg.count("<polygon") == 4  # one shape per tdata value: x, 11, 3f, a5
    assert 'stroke="#d81b60"' in svg  # the marker line
    bad, none = asyncio.run(Waves(ws).render("s.vcd", ["tdata"], 50, 10, "svg"))
    assert not bad.ok and none is None and bad.error.argument == "end"


_PIECES = list("ab_.$0123456789'hbdx()[]:!~&|^=<>+-*/%, ") + [
    "$past(",
    "$rose(",
    "&&",
    "||",
    "==",
    "8'h3f",
    "data",
]


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.sampled_from(_PIECES), max_size=25))
def test_parser_never_fails_uncontrolled(pieces):
    text = "".join(pieces)
    try:
        cond = expr.parse(text)
    except InvalidInput as exc:
        assert str(exc)
        return
    values = {name: [3, None, 0] for name in cond.signals}

    def get(index: int, k: int) -> expr.Val:
        return values[cond.signals[index]][k], 8

    for k in range(3):
        value, width = cond.value(get, k)
        assert value is None or isinstance(value, int)
        assert width >= 0
