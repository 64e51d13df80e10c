"""Reading dumps: names, values, the cache, and malformed files giving clear errors."""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.vcd import reader
from silicon_agent.servers.vcd.api import Waves
from silicon_agent.servers.vcd.values import format_value, same

from .vcdgen import write_vcd

SIGNALS = [("clk", 1), ("valid", 1), ("data", 8), ("wide", 12)]


def _clocked(path: Path, cycles: int = 20) -> None:
    changes = []
    for c in range(cycles):
        changes.append((10 * c + 5, "clk", "1"))
        changes.append((10 * c + 10, "clk", "0"))
        changes.append((10 * c + 6, "data", format(c * 3 % 256, "08b")))
    changes += [(0, "clk", "0"), (0, "valid", "x"), (0, "data", "xxxx0101"), (0, "wide", "z" * 12)]
    changes += [(26, "valid", "1"), (56, "valid", "0")]
    write_vcd(path, SIGNALS, changes, end=10 * cycles + 10)


def test_values_formats_and_names(ws: Workspace):
    _clocked(ws.root / "a.vcd")
    waves = Waves(ws)
    table = asyncio.run(
        waves.values_at("a.vcd", ["tb.data", "TOP.tb.valid", "wide[11:0]", "data"], times=[0, 7])
    )
    assert table.ok, table.error
    first, second = table.rows
    assert first.values == {
        "tb.data": "8'hx5",
        "tb.valid": "1'bx",
        "tb.wide": "12'hzzz",
    }
    assert second.values["tb.data"] == "8'h00"
    binary = asyncio.run(waves.values_at("a.vcd", ["data"], times=[0, 36], radix="bin"))
    assert [r.values["tb.data"] for r in binary.rows] == ["8'bxxxx0101", "8'b00001001"]


def test_cycles_sample_before_the_edge(ws: Workspace):
    _clocked(ws.root / "a.vcd")
    waves = Waves(ws)
    before = asyncio.run(waves.values_at("a.vcd", ["data"], cycles=[0, 1, 2], clock="clk"))
    after = asyncio.run(
        waves.values_at("a.vcd", ["data"], cycles=[1, 2], clock="clk", sample="after")
    )
    assert [r.time for r in before.rows] == [5, 15, 25]
    # data changes 1 tick after each edge: the edge itself still sees the previous value
    assert [r.values["tb.data"] for r in before.rows] == ["8'hx5", "8'h00", "8'h03"]
    assert [r.values["tb.data"] for r in after.rows] == ["8'h00", "8'h03"]
    bad = asyncio.run(waves.values_at("a.vcd", ["data"], cycles=[500], clock="clk"))
    assert not bad.ok and bad.error.argument == "cycles"


def test_unknown_and_ambiguous_names_are_clear(ws: Workspace):
    _clocked(ws.root / "a.vcd")
    waves = Waves(ws)
    result = asyncio.run(waves.values_at("a.vcd", ["dta"], times=[0]))
    assert not result.ok
    assert "no signal 'dta'" in result.error.message
    assert "tb.data" in (result.error.hint or "")
    write_vcd(ws.root / "b.vcd", [("x", 1)], [(0, "x", "0")], scope="u1")
    text = (ws.root / "b.vcd").read_text()
    text = text.replace("$upscope $end", "$upscope $end\n$scope module u2 $end\n"
                        "$var wire 1 # x $end\n$upscope $end", 1)  # fmt: skip
    (ws.root / "b.vcd").write_text(text.replace("#0\n0!", "#0\n0!\n1#"))
    ambiguous = asyncio.run(waves.values_at("b.vcd", ["x"], times=[0]))
    assert not ambiguous.ok and "ambiguous" in ambiguous.error.message


def test_window_and_list_signals_are_bounded(ws: Workspace):
    _clocked(ws.root / "a.vcd", cycles=300)
    waves = Waves(ws)
    table = asyncio.run(waves.window("a.vcd", ["clk", "data"], 0, 3000, max_rows=50))
    assert table.ok and table.truncated and len(table.rows) == 50
    assert [r.time for r in table.rows] == sorted(r.time for r in table.rows)
    cycles = asyncio.run(waves.window("a.vcd", ["data"], 100, 200, clock="clk"))
    assert [r.cycle for r in cycles.rows] == list(range(10, 20))
    listing = asyncio.run(waves.list_signals("a.vcd", pattern="*a*", limit=1))
    assert listing.total == 2 and len(listing.signals) == 1 and listing.truncated


def test_cache_reuses_parse_until_file_changes(ws: Workspace):
    reader.clear_cache()
    path = ws.root / "a.vcd"
    _clocked(path)
    waves = Waves(ws)
    first = asyncio.run(waves.summary("a.vcd"))
    second = asyncio.run(waves.summary("a.vcd"))
    assert (first.cached, second.cached) == (False, True)
    assert first.end == 210 and first.busiest[0].name == "tb.clk"
    _clocked(path, cycles=40)
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 1_000_000))
    third = asyncio.run(waves.summary("a.vcd"))
    assert not third.cached and third.end == 410


def test_cache_is_keyed_by_content(ws: Workspace):
    """A copy or a touched file with the same bytes is served from the cache; a rewrite that
    keeps the size and puts the old mtime back is parsed again."""
    reader.clear_cache()
    path = ws.root / "c.vcd"
    _clocked(path, cycles=20)
    waves = Waves(ws)
    first = asyncio.run(waves.summary("c.vcd"))
    (ws.root / "copy.vcd").write_bytes(path.read_bytes())
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 5_000_000))
    copied = asyncio.run(waves.summary("copy.vcd"))
    touched = asyncio.run(waves.summary("c.vcd"))
    assert (first.cached, copied.cached, touched.cached) == (False, True, True)
    assert (copied.file, touched.file) == ("copy.vcd", "c.vcd")
    before = path.stat()
    text = path.read_text()
    forged = text.replace("#210", "#209")  # same length, a different end time
    assert forged != text and len(forged) == len(text)
    path.write_text(forged)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    again = asyncio.run(waves.summary("c.vcd"))
    assert not again.cached and again.end == 209


def _expect_error(ws: Workspace, name: str, data: bytes, needle: str) -> None:
    (ws.root / name).write_bytes(data)
    result = asyncio.run(Waves(ws).summary(name))
    assert not result.ok, result
    assert result.error.argument == "file"
    assert needle in result.error.message, result.error.message


def test_malformed_files_give_clear_errors(ws: Workspace):
    _clocked(ws.root / "good.vcd")
    good = (ws.root / "good.vcd").read_bytes()
    header = good[: good.index(b"$enddefinitions") + len(b"$enddefinitions $end\n")]
    _expect_error(ws, "empty.vcd", b"", "empty")
    _expect_error(ws, "garbage.vcd", random.Random(1).randbytes(50_000), "not a VCD")
    _expect_error(ws, "header.vcd", header, "no value changes")
    _expect_error(ws, "cut_header.vcd", good[:60], "$enddefinitions")
    _expect_error(ws, "line.vcd", b"$" + b"a" * 10_000_000, "$enddefinitions")
    long_value = header + b"#0\nb" + b"1" * 10_000_000 + b" #\n"
    _expect_error(ws, "long_value.vcd", long_value, "could not be read")
    _expect_error(ws, "bad_token.vcd", header + b"#0\nQ!\n", "could not be read")
    _expect_error(ws, "cut.fst", b"\x00" + good[:200], "could not be read")


def test_truncated_body(ws: Workspace):
    _clocked(ws.root / "good.vcd")
    good = (ws.root / "good.vcd").read_bytes()
    # cut at a line boundary: what is there reads fine
    whole_lines = good[: good.rindex(b"\n#1") + 1]
    (ws.root / "lines.vcd").write_bytes(whole_lines)
    result = asyncio.run(Waves(ws).window("lines.vcd", ["data"], 0, 100))
    assert result.ok, result.error
    assert len(result.rows) > 5
    # cut inside a value change: refused, and the message says the file was cut short
    (ws.root / "cut.vcd").write_bytes(good[: len(good) - 7])
    cut = asyncio.run(Waves(ws).window("cut.vcd", ["data"], 0, 100))
    assert not cut.ok
    assert "truncated" in cut.error.message


def test_paths_stay_in_the_workspace(ws: Workspace, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "o.vcd"
    _clocked(outside)
    result = asyncio.run(Waves(ws).summary(str(outside)))
    assert not result.ok and "outside the workspace" in result.error.message
    missing = asyncio.run(Waves(ws).summary("nope.vcd"))
    assert not missing.ok and "does not exist" in missing.error.message


# --- property-based: generated dumps answer exactly what was written --------------------

_bits = st.text(alphabet="01xz", min_size=1, max_size=1)


@st.composite
def dumps_and_changes(draw):
    widths = draw(st.lists(st.integers(1, 40), min_size=1, max_size=5))
    signals = [(f"s{i}", w) for i, w in enumerate(widths)]
    changes = []
    for name, width in signals:
        times = sorted(set(draw(st.lists(st.integers(0, 500), min_size=1, max_size=25))))
        for t in times:
            bits = "".join(draw(st.lists(st.sampled_from("0011xz"), min_size=width,
                                         max_size=width)))  # fmt: skip
            changes.append((t, name, bits))
    return signals, changes


def _model_value(changes, name: str, t: int) -> str | None:
    value = None
    for time_, sig, bits in sorted(changes, key=lambda c: c[0]):
        if sig == name and time_ <= t:
            value = bits
    return value


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=dumps_and_changes(), probes=st.lists(st.integers(0, 520), min_size=1, max_size=8))
def test_generated_dumps_read_back_exactly(tmp_path_factory, case, probes):
    signals, changes = case
    root = tmp_path_factory.mktemp("prop")
    write_vcd(root / "g.vcd", signals, changes, end=520)
    ws = Workspace.open(root)
    table = asyncio.run(Waves(ws).values_at("g.vcd", [n for n, _ in signals], times=probes))
    assert table.ok, table.error
    for row in table.rows:
        for name, width in signals:
            want = _model_value(changes, name, row.time)
            expected = format_value(want, width) if want is not None else format_value(None, width)
            if want is not None and set(want) <= {"0", "1"}:
                expected = format_value(int(want, 2), width)
            assert row.values[f"tb.{name}"] == expected, (name, row.time, want)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cut=st.integers(0, 4000), flips=st.lists(st.tuples(st.integers(0, 4000), st.binary(
    min_size=1, max_size=3)), max_size=4))  # fmt: skip
def test_mutated_dumps_never_crash_the_reader(tmp_path_factory, cut, flips):
    root = tmp_path_factory.mktemp("fuzz")
    _clocked(root / "base.vcd", cycles=60)
    data = bytearray((root / "base.vcd").read_bytes())
    for pos, junk in flips:
        pos = pos % max(1, len(data))
        data[pos : pos + len(junk)] = junk
    data = data[: max(0, len(data) - cut)]
    (root / "m.vcd").write_bytes(bytes(data))
    waves = Waves(Workspace.open(root))
    result = asyncio.run(waves.summary("m.vcd"))
    if result.ok:
        table = asyncio.run(waves.window("m.vcd", [result.busiest[0].name], 0, 100))
        assert table.ok or table.error is not None
    else:
        assert result.error is not None and result.error.message


def test_four_state_equality():
    assert same(5, "101") and same("xx", "xx") and not same(0, "x") and not same(None, 0)
    reader.clear_cache()
