"""What a waveform file may declare, checked by reading its header here before pywellen
allocates anything: a 200-byte VCD can declare a 2^32-bit signal, and a small file of tiny
changes to a wide signal decodes to gigabytes. Each refusal names the limit and its value."""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass
from typing import BinaryIO

from silicon_agent.servers.core.workspace import InvalidInput

MAX_FILE_BYTES = 4 << 30
MAX_HEADER_BYTES = 32 << 20  # VCD declarations, FST hierarchy and geometry (uncompressed)
MAX_SIGNALS = 1_000_000
MAX_SIGNAL_WIDTH = 1 << 16  # bits
MAX_SCOPE_DEPTH = 256
MAX_DECODED_BYTES = 1 << 30  # wide signals' value changes once decoded (2 bits per bit)
MAX_FST_BLOCK_MEMORY = 1 << 30  # the reader buffer an FST value-change block asks for
WIDE_BITS = 256  # signals at least this wide have their changes counted in the body

# A keyword glued to what precedes it counts too (pywellen splits `x$end$var`); one followed by
# more letters (`$dumpvars`, `$variable`) is another keyword.
_DECLARATION = re.compile(rb"\$(scope|upscope|var)(?![A-Za-z0-9_])")
_VAR_FIELDS = re.compile(rb"\s+\S+\s+(\S*)\s*(\S*)")  # type, width, id code
_END_DEFS = b"$enddefinitions"
_CHUNK = 16 << 20
# FST block types (fstapi.h)
_FST_HDR, _FST_VCDATA, _FST_GEOM, _FST_HIER = 0, 1, 3, 4
_FST_VCDATA_DYN, _FST_HIER_LZ4, _FST_HIER_LZ4DUO, _FST_VCDATA_DYN2 = 5, 6, 7, 8
_FST_ZWRAPPER, _FST_SKIP = 254, 255
_FST_VC_BLOCKS = {_FST_VCDATA, _FST_VCDATA_DYN, _FST_VCDATA_DYN2}
_FST_KNOWN = {0, 1, 2, 3, 4, 5, 6, 7, 8, _FST_ZWRAPPER, _FST_SKIP}


class LimitExceeded(InvalidInput):
    """A waveform over one of the reader's limits; the message names the limit."""


def _refuse(name: str, what: str, limit: str, value: int) -> LimitExceeded:
    return LimitExceeded(
        f"file: '{name}' {what}, over the limit {limit}={value}",
        argument="file",
        hint=(
            f"The reader refuses waveforms over {limit}={value} before parsing them; dump "
            "fewer or narrower signals (a narrower scope, a shorter window) and call again."
        ),
    )


@dataclass
class _Wide:
    width: int
    changes: int = 0


def _check_width(name: str, width: int, shown: str) -> None:
    if width > MAX_SIGNAL_WIDTH:
        raise _refuse(
            name, f"declares a signal {shown} bits wide", "max_signal_width", MAX_SIGNAL_WIDTH
        )


def check_size(name: str, size: int) -> None:
    if size > MAX_FILE_BYTES:
        raise _refuse(name, f"is {size} bytes", "max_file_bytes", MAX_FILE_BYTES)


def check_vcd(name: str, handle: BinaryIO, size: int, header_end: int | None = None) -> None:
    """Scan the VCD declarations: signal count and widths, scope depth, header size; then
    count the value changes of wide signals to bound what they decode to. `header_end` is
    where pywellen's header ends when the caller walked its commands as pywellen does
    (vcd_scan.parse_header); without it the first MAX_HEADER_BYTES are scanned."""
    check_size(name, size)
    handle.seek(0)
    header = handle.read(MAX_HEADER_BYTES + len(_END_DEFS) if header_end is None else header_end)
    end = header.find(_END_DEFS)
    if end < 0:
        if size > MAX_HEADER_BYTES:
            raise _refuse(
                name, "has no $enddefinitions in its header", "max_header_bytes", MAX_HEADER_BYTES
            )
        end = len(header)
    # The whole buffer, not only up to the first $enddefinitions: that one may sit in a
    # comment, where one parser sees it and another does not. A walk of the commands knows
    # which one ends the header, and nothing after it is a declaration.
    declared = header.count(b"$var")  # an upper bound, counted in C before the scan
    if declared > MAX_SIGNALS:
        raise _refuse(name, f"declares {declared} signals", "max_signals", MAX_SIGNALS)
    wide = _vcd_declarations(name, header)
    del header
    if not wide:
        return
    handle.seek(end)
    _count_wide_changes(handle, wide)
    decoded = sum(w.changes * -(-w.width // 4) for w in wide.values())
    if decoded > MAX_DECODED_BYTES:
        raise _refuse(
            name,
            f"holds value changes of wide signals that decode to about {decoded} bytes",
            "max_decoded_bytes",
            MAX_DECODED_BYTES,
        )


def _vcd_declarations(name: str, header: bytes) -> dict[bytes, _Wide]:
    """Every `$scope`, `$upscope` and `$var` keyword anywhere in the header, comments included:
    parsers disagree on where a comment ends (a glued `x$end` closes it for pywellen, not for a
    token scanner), so no reading of comments may hide a declaration from these limits."""
    depth = signals = 0
    wide: dict[bytes, _Wide] = {}
    for keyword in _DECLARATION.finditer(header):
        word = keyword.group(1)
        if word == b"scope":
            depth += 1
            if depth > MAX_SCOPE_DEPTH:
                raise _refuse(
                    name, f"nests scopes {depth} deep", "max_scope_depth", MAX_SCOPE_DEPTH
                )
        elif word == b"upscope":
            depth = max(0, depth - 1)
        else:
            fields = _VAR_FIELDS.match(header, keyword.end())
            width_text, code = (fields.group(1), fields.group(2)) if fields else (b"", b"")
            if not width_text.isdigit():
                raise LimitExceeded(
                    f"file: '{name}' declares a signal whose width "
                    f"'{width_text[:24].decode(errors='replace')}' is not a number",
                    argument="file",
                    hint="The VCD header is malformed; rerun the simulation to rewrite it.",
                )
            width = int(width_text) if len(width_text) <= 12 else MAX_SIGNAL_WIDTH + 1
            _check_width(name, width, width_text[:24].decode(errors="replace"))
            signals += 1
            if signals > MAX_SIGNALS:
                raise _refuse(
                    name, f"declares more than {MAX_SIGNALS} signals", "max_signals", MAX_SIGNALS
                )
            if width >= WIDE_BITS:
                known = wide.setdefault(code, _Wide(width))
                known.width = max(known.width, width)
    return wide


def _count_wide_changes(handle: BinaryIO, wide: dict[bytes, _Wide]) -> None:
    """Vector changes (`b0101 <id>`) of the wide signals, counted over the body in chunks
    cut at line ends."""
    codes = b"|".join(re.escape(code) for code in sorted(wide, key=len, reverse=True))
    pattern = re.compile(rb"[ \t](" + codes + rb")[ \t]*\r?$", re.M)
    rest = b""
    while chunk := handle.read(_CHUNK):
        data = rest + chunk
        cut = data.rfind(b"\n") + 1
        data, rest = data[:cut], data[cut:]
        for match in pattern.finditer(data):
            wide[match.group(1)].changes += 1
    for match in pattern.finditer(rest):
        wide[match.group(1)].changes += 1


def check_fst(name: str, handle: BinaryIO, size: int) -> None:
    """Walk the FST block chain: the header's signal counts, the geometry (every signal's
    width), the hierarchy's uncompressed size and each value-change block's reader buffer."""
    check_size(name, size)
    offset = 0
    while offset < size:
        handle.seek(offset)
        head = handle.read(33)
        if len(head) < 9:
            break
        kind, length = head[0], struct.unpack(">Q", head[1:9])[0]
        if kind not in _FST_KNOWN or length < 8 or offset + 1 + length > size:
            break  # malformed: pywellen reports it
        fields = [struct.unpack(">Q", head[i : i + 8])[0] for i in range(9, len(head) - 7, 8)]
        if kind == _FST_ZWRAPPER:
            raise LimitExceeded(
                f"file: '{name}' is a compressed-wrapper FST; the reader does not inflate it",
                argument="file",
                hint="Dump the FST without the whole-file compression wrapper.",
            )
        if kind == _FST_HDR and len(fields) >= 3:
            _fst_header(name, handle, offset)
        elif kind in (_FST_HIER, _FST_HIER_LZ4, _FST_HIER_LZ4DUO) and fields:
            if fields[0] > MAX_HEADER_BYTES:
                raise _refuse(
                    name,
                    f"has a {fields[0]}-byte hierarchy",
                    "max_header_bytes",
                    MAX_HEADER_BYTES,
                )
        elif kind == _FST_GEOM and len(fields) >= 2:
            _fst_geometry(name, handle, offset, length, fields[0], fields[1])
        elif kind in _FST_VC_BLOCKS and len(fields) >= 3 and fields[2] > MAX_FST_BLOCK_MEMORY:
            raise _refuse(
                name,
                f"has a value-change block needing {fields[2]} bytes",
                "max_fst_block_memory",
                MAX_FST_BLOCK_MEMORY,
            )
        offset += 1 + length


def _fst_header(name: str, handle: BinaryIO, offset: int) -> None:
    handle.seek(offset + 9)
    raw = handle.read(8 * 8)
    if len(raw) < 64:
        return
    _start, _end, _endian, _memory, scopes, variables, max_handle, _sections = struct.unpack(
        ">QQdQQQQQ", raw
    )
    for count, what in ((variables, "signals"), (max_handle, "signal handles")):
        if count > MAX_SIGNALS:
            raise _refuse(name, f"declares {count} {what}", "max_signals", MAX_SIGNALS)
    if scopes > MAX_SIGNALS:
        raise _refuse(name, f"declares {scopes} scopes", "max_signals", MAX_SIGNALS)


def _fst_geometry(
    name: str, handle: BinaryIO, offset: int, length: int, unpacked: int, max_handle: int
) -> None:
    if max_handle > MAX_SIGNALS:
        raise _refuse(name, f"declares {max_handle} signal handles", "max_signals", MAX_SIGNALS)
    if unpacked > MAX_HEADER_BYTES:
        raise _refuse(name, f"has a {unpacked}-byte geometry", "max_header_bytes", MAX_HEADER_BYTES)
    packed_len = length - 24
    if packed_len <= 0 or packed_len > MAX_HEADER_BYTES:
        return
    handle.seek(offset + 25)
    packed = handle.read(packed_len)
    if packed_len == unpacked:
        data = packed
    else:
        inflater = zlib.decompressobj()
        try:
            data = inflater.decompress(packed, unpacked + 1)
        except zlib.error:
            return  # malformed: pywellen reports it
    position = 0
    while position < len(data):
        width, position = _varint(data, position)
        # 0 marks a real, 0xFFFFFFFF a zero-width signal; anything else is bits.
        if width not in (0, 0xFFFFFFFF):
            _check_width(name, width, str(width))


def _varint(data: bytes, position: int) -> tuple[int, int]:
    value = shift = 0
    while position < len(data):
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80 or shift > 63:
            break
        shift += 7
    return value, position
