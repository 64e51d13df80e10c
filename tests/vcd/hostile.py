"""Waveform files built to exhaust a reader, one per limit of servers.vcd.limits, and a good
FST written by the real vvp to derive the FST ones from."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from collections.abc import Callable
from pathlib import Path

from silicon_agent.servers.vcd import limits

HEADER = b"$timescale 1ns $end\n$scope module top $end\n"
BODY = b"$upscope $end\n$enddefinitions $end\n#0\n0!\n#10\n1!\n"
_FST_TB = """module t;
  reg clk = 0; reg [7:0] d = 0; reg [299:0] w = 0;
  initial begin
    $dumpfile("good.fst"); $dumpvars(0, t);
    repeat (20) begin #5 clk = ~clk; d = d + 1; w = ~w; end
    $finish;
  end
endmodule
"""


def _ident(n: int) -> bytes:
    """A distinct VCD identifier code for n (printable characters ! to ~)."""
    out = bytearray()
    while True:
        out.append(33 + n % 94)
        n //= 94
        if not n:
            return bytes(out)


def wide_signal(path: Path) -> None:
    """About 150 bytes declaring a (2^32 - 1)-bit signal."""
    path.write_bytes(HEADER + b"$var wire 4294967295 ! huge $end\n" + BODY)


def many_signals(path: Path) -> None:
    lines = (b"$var wire 1 %s s%d $end\n" % (_ident(i), i) for i in range(limits.MAX_SIGNALS + 1))
    path.write_bytes(HEADER + b"".join(lines) + BODY)


def deep_scopes(path: Path) -> None:
    depth = limits.MAX_SCOPE_DEPTH + 1
    scopes = b"".join(b"$scope module m%d $end\n" % i for i in range(depth))
    path.write_bytes(
        b"$timescale 1ns $end\n" + scopes + b"$var wire 1 ! a $end\n"
        + b"$upscope $end\n" * depth + b"$enddefinitions $end\n#0\n0!\n"
    )  # fmt: skip


def endless_header(path: Path) -> None:
    with path.open("wb") as out:
        out.write(HEADER)
        block = b"$comment " + b"x" * (1 << 20) + b" $end\n"
        for _ in range(limits.MAX_HEADER_BYTES // len(block) + 2):
            out.write(block)
        out.write(BODY)


def wide_changes(path: Path) -> None:
    """A few hundred KB of one-digit changes to the widest allowed signal: each decodes to
    width/4 bytes, past max_decoded_bytes in total."""
    width = limits.MAX_SIGNAL_WIDTH
    count = limits.MAX_DECODED_BYTES // (width // 4) + 1
    body = b"".join(b"#%d\nb%d !\n" % (t, t & 1) for t in range(count))
    path.write_bytes(
        HEADER + b"$var wire %d ! bus $end\n$upscope $end\n$enddefinitions $end\n" % width + body
    )


def huge_file(path: Path) -> None:
    """A valid VCD start, then a hole: a sparse file over max_file_bytes."""
    path.write_bytes(HEADER + b"$var wire 1 ! a $end\n" + BODY)
    with path.open("r+b") as out:
        out.truncate(limits.MAX_FILE_BYTES + 1)


def good_fst(directory: Path) -> Path:
    """A real FST from iverilog + vvp (a clock, an 8-bit and a 300-bit signal)."""
    source = directory / "good_fst_tb.v"
    source.write_text(_FST_TB)
    compiled = directory / "good_fst.vvp"
    iverilog, vvp = shutil.which("iverilog"), shutil.which("vvp")
    assert iverilog and vvp, "iverilog is needed to write an FST"
    subprocess.run([iverilog, "-o", str(compiled), str(source)], check=True, cwd=directory)
    subprocess.run([vvp, "-N", str(compiled), "-fst"], check=True, cwd=directory,
                   capture_output=True)  # fmt: skip
    return directory / "good.fst"


def _blocks(data: bytes) -> list[tuple[int, int, int]]:
    """(offset, type, section length) of each FST block."""
    found, offset = [], 0
    while offset + 9 <= len(data):
        length = struct.unpack(">Q", data[offset + 1 : offset + 9])[0]
        found.append((offset, data[offset], length))
        offset += 1 + length
    return found


def _patch_field(data: bytes, kind: set[int], index: int, value: int) -> bytes:
    """The index-th uint64 after the section length of the first block of a kind, set."""
    offset = next(o for o, k, _ in _blocks(data) if k in kind)
    at = offset + 9 + 8 * index
    return data[:at] + struct.pack(">Q", value) + data[at + 8 :]


def fst_many_signals(good: Path, path: Path) -> None:
    path.write_bytes(_patch_field(good.read_bytes(), {0}, 5, limits.MAX_SIGNALS + 1))


def fst_block_memory(good: Path, path: Path) -> None:
    data = _patch_field(good.read_bytes(), {1, 5, 8}, 2, limits.MAX_FST_BLOCK_MEMORY + 1)
    path.write_bytes(data)


def fst_wide_signal(good: Path, path: Path) -> None:
    """The geometry block rewritten so the first signal is 2^32 - 2 bits wide."""
    data = good.read_bytes()
    offset, _, length = next(b for b in _blocks(data) if b[1] == 3)
    unpacked, max_handle = struct.unpack(">QQ", data[offset + 9 : offset + 25])
    packed = data[offset + 25 : offset + 1 + length]
    widths = packed if len(packed) == unpacked else zlib.decompress(packed)
    huge = 0xFFFFFFFE
    varint = bytearray()
    while True:
        varint.append((huge & 0x7F) | (0x80 if huge > 0x7F else 0))
        huge >>= 7
        if not huge:
            break
    first_end = next(i for i, b in enumerate(widths) if not b & 0x80) + 1
    geometry = bytes(varint) + widths[first_end:]
    block = struct.pack(">QQQ", 24 + len(geometry), len(geometry), max_handle) + geometry
    path.write_bytes(data[:offset] + b"\x03" + block + data[offset + 1 + length :])


VCD_CASES: dict[str, tuple[Callable[[Path], None], str]] = {
    "wide.vcd": (wide_signal, f"max_signal_width={limits.MAX_SIGNAL_WIDTH}"),
    "many.vcd": (many_signals, f"max_signals={limits.MAX_SIGNALS}"),
    "deep.vcd": (deep_scopes, f"max_scope_depth={limits.MAX_SCOPE_DEPTH}"),
    "endless.vcd": (endless_header, f"max_header_bytes={limits.MAX_HEADER_BYTES}"),
    "changes.vcd": (wide_changes, f"max_decoded_bytes={limits.MAX_DECODED_BYTES}"),
    "huge.vcd": (huge_file, f"max_file_bytes={limits.MAX_FILE_BYTES}"),
}
FST_CASES: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "many.fst": (fst_many_signals, f"max_signals={limits.MAX_SIGNALS}"),
    "memory.fst": (fst_block_memory, f"max_fst_block_memory={limits.MAX_FST_BLOCK_MEMORY}"),
    "wide.fst": (fst_wide_signal, f"max_signal_width={limits.MAX_SIGNAL_WIDTH}"),
}


def write_all(directory: Path) -> dict[str, str]:
    """Every hostile file in directory: name -> the limit its refusal must name."""
    good = good_fst(directory)
    expected: dict[str, str] = {}
    for name, (make, limit) in VCD_CASES.items():
        make(directory / name)
        expected[name] = limit
    for name, (derive, limit) in FST_CASES.items():
        derive(good, directory / name)
        expected[name] = limit
    return expected
