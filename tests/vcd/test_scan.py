"""The VCD fast path (vcd_scan) against pywellen: the same changes for every signal of the
simulators' dumps, generated dumps and the bench's dump; what it cannot read exactly goes to
pywellen; a cold query reads only the signals asked for."""

from __future__ import annotations

import asyncio
import importlib.util
import random
from pathlib import Path

import pytest
import pywellen

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.vcd import reader, vcd_scan
from silicon_agent.servers.vcd.api import Waves

from .vcdgen import write_vcd

REPO = Path(__file__).resolve().parents[2]
HEAD = """$timescale 1ns $end
$scope module tb $end
$var wire 1 ! clk $end
$var wire 4 " d [3:0] $end
$var wire 4 # e [3:0] $end
$var wire 70 $ big [69:0] $end
$var wire 1 1! one $end
$var wire 8 !! bus [7:0] $end
$upscope $end
$enddefinitions $end
"""


def _pywellen(path: Path) -> dict[str, list]:
    wave = pywellen.Waveform(str(path))
    out = {}
    for var in wave.all_vars():
        sig = var.signal
        out[var.full_name] = [sig[i] for i in range(len(sig))]
    return out


def _fast(path: Path) -> tuple[reader.WaveFile, dict[str, list]]:
    """Every signal the fast path reads, each in a pass of its own."""
    reader.clear_cache()
    wave, _ = reader.open_wave(path)
    fast = wave._fast
    assert fast is not None and fast.body is not None, path
    out = {}
    for info in wave.infos.values():
        if info.ref in fast.codes:
            got = fast.body.scan([fast.codes[info.ref]])
            out[info.name] = None if got is None else list(got[fast.codes[info.ref].code])
    return wave, out


def _same_as_pywellen(path: Path) -> int:
    wave, fast = _fast(path)
    want = _pywellen(path)
    read = 0
    for name, changes in fast.items():
        assert changes is not None, (path.name, name)
        assert changes == want[name], (path.name, name, changes[:6], want[name][:6])
        read += 1
    return read


def test_simulator_dumps_read_the_same(dumps):
    checked = 0
    for (_, _, fmt), run in sorted(dumps.runs.items()):
        if fmt == "vcd":
            checked += _same_as_pywellen(dumps.root / run.waves)
    assert checked > 50


@pytest.mark.parametrize("segment", [None, 65_537])
def test_generated_and_bench_dumps_read_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, segment: int | None
):
    if segment is not None:  # many segments, and numpy compares for any byte seen twice
        monkeypatch.setattr(vcd_scan, "_SEGMENT", segment)
        monkeypatch.setattr(vcd_scan, "_RARE", 1)
    rng = random.Random(5)
    for n in range(6):
        signals = [(f"s{i}", rng.choice((1, 1, 3, 8, 33, 64, 65))) for i in range(120)]
        changes = []
        for name, width in signals:
            for t in sorted(rng.sample(range(400), rng.randrange(1, 30))):
                bits = "".join(rng.choice("0011xzXZ") for _ in range(rng.randrange(1, width + 1)))
                changes.append((t, name, bits if width > 1 else bits[0]))
        path = tmp_path / f"g{n}.vcd"
        write_vcd(path, signals, changes, end=401)
        assert _same_as_pywellen(path) == len(signals)
    spec = importlib.util.spec_from_file_location("vcd_bench", REPO / "bench" / "vcd_bench.py")
    bench = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(bench)
    bench.generate(tmp_path / "bench.vcd", 2)
    assert _same_as_pywellen(tmp_path / "bench.vcd") == 129


def test_value_forms_pywellen_accepts(tmp_path: Path):
    """Short vectors extended (x, z or 0), upper-case X/Z, repeats dropped, two changes at one
    time, a scalar written to a vector, b-form on a one-bit signal, values before any time,
    ids that end in another id ("1!" vs "!") and wide values."""
    body = """$dumpvars
x!
bx1 "
b1 #
b1 $
0!!
b1 1!
$end
#0
b11 !!
#5
1!
1!
b1Z "
bZ #
b1 $
#7
0!
1!
bX0 #
b0 "
b10x1 "
1"
b1 !
b 1!
#9
b1111 #
b11111111111111111111111111111111111111111111111111111111111111111111 $
b1111111111111111111111111111111111111111111111111111111111111111111x $
b0 1!
#00012
b0 !!
#12
"""
    path = tmp_path / "forms.vcd"
    path.write_text(HEAD + body)
    assert _same_as_pywellen(path) == 6


@pytest.mark.parametrize(
    "body",
    [
        "#0\n1!\n#8\n0!\n#3\n1!\n#10\n",  # time going back: pywellen skips the step
        '#0\n1!\n#5\nb1u01 "\n',  # a 9-state value
        "#0\n1!\n#5\n0!\t1!!\n",  # a change in the middle of a line
        "#0\r\n1!\r\n#5\r\n0!\r\n",  # carriage returns
        '#0\nb0101\n"\n#5\n',  # a vector change cut over two lines
        "#0\n1!\n#1.0\n0!\n",  # a time stamp that is not a plain integer
        "#0\n1!\n#5\nb111111111 !!\n",  # more bits than the signal has
        "#0\n1!\n#5\n0!",  # no newline at the end
    ],
)
def test_what_it_cannot_read_goes_to_pywellen(tmp_path: Path, body: str):
    path = tmp_path / "odd.vcd"
    path.write_text(HEAD + body)
    reader.clear_cache()
    wave, _ = reader.open_wave(path)
    fast = wave._fast
    assert fast is not None and fast.body is not None
    wanted = [fast.codes[i.ref] for i in wave.infos.values()]
    assert fast.body.scan(wanted) is None
    try:
        want = _pywellen(path)
    except BaseException:  # pywellen refuses the file with a Rust panic
        return
    for info in wave.infos.values():
        sig = wave.signal(info)
        assert [sig[i] for i in range(len(sig))] == want[info.name], info.name


def test_header_walk_matches_pywellen_or_gives_up():
    text = HEAD.encode()
    header = vcd_scan.parse_header(text, len(text))
    assert header is not None and header.body == len(text)
    assert [d.code for d in header.vars] == [b"!", b'"', b"#", b"$", b"1!", b"!!"]
    # a $end pywellen's matcher may not see ($ just before it) makes the walk give up
    odd = text.replace(b"$timescale 1ns $end", b"$comment a$$end")
    assert vcd_scan.parse_header(odd, len(odd)) is None
    # "$enddefinitions" in a comment: its "$end" closes the comment, and "efinitions" is
    # no command, for pywellen as for the walk
    hidden = text.replace(b"$timescale 1ns $end", b"$comment $enddefinitions $end")
    assert vcd_scan.parse_header(hidden, len(hidden)) is None
    # a comment holding other commands' names is skipped whole
    names = text.replace(b"$timescale 1ns $end", b"$comment $var wire 9 % x $upscope $end")
    walked = vcd_scan.parse_header(names, len(names))
    assert walked is not None and len(walked.vars) == 6 and walked.body == len(names)


def test_cold_query_reads_only_the_signals_asked_for(ws: Workspace):
    """Another signal's change that pywellen cannot decode does not stop a query of a good
    one; asking for the broken one still gives the clear error."""
    (ws.root / "part.vcd").write_text(HEAD + '#0\n0!\nb0001 "\n#5\n1!\nb01q1 #\n#10\n0!\n#15\n')
    reader.clear_cache()
    waves = Waves(ws)
    good = asyncio.run(waves.values_at("part.vcd", ["clk", "d"], times=[0, 5, 12]))
    assert good.ok, good.error
    assert [r.values["tb.clk"] for r in good.rows] == ["1'b0", "1'b1", "1'b0"]
    assert [r.values["tb.d"] for r in good.rows] == ["4'h1"] * 3
    bad = asyncio.run(waves.values_at("part.vcd", ["e"], times=[5]))
    assert not bad.ok and "could not be read" in bad.error.message
    assert bad.error.argument == "file"


def test_a_file_changed_under_a_cached_parse_is_read_afresh(ws: Workspace):
    """The fast path reads a parsed dump's file again for each new signal: a copy with the
    same bytes reads on from its own file when the first one was rewritten, and a parse whose
    file changed under it refuses to mix old and new bytes."""
    path, copy = ws.root / "w.vcd", ws.root / "copy.vcd"
    path.write_text(HEAD + '#0\n0!\nb0001 "\n#5\n1!\n#10\n')
    copy.write_bytes(path.read_bytes())
    reader.clear_cache()
    waves = Waves(ws)
    first = asyncio.run(waves.values_at("w.vcd", ["clk"], times=[5]))
    assert first.ok and first.rows[0].values["tb.clk"] == "1'b1"
    wave, cached = reader.open_wave(path)
    assert cached
    path.write_text(HEAD + '#0\n1!\nb0011 "\n#5\n0!\n#10\n')
    same = asyncio.run(waves.values_at("copy.vcd", ["d"], times=[5]))
    assert same.ok and same.cached, same.error
    assert same.rows[0].values["tb.d"] == "4'h1"
    fresh = asyncio.run(waves.values_at("w.vcd", ["d"], times=[5]))
    assert fresh.ok and not fresh.cached and fresh.rows[0].values["tb.d"] == "4'h3"
    copy.write_text(HEAD + "#0\n1!\nb0111 #\n#5\n0!\n#10\n")
    with pytest.raises(reader.WaveError, match="changed on disk"):
        wave.signal(wave.resolve("e"))
