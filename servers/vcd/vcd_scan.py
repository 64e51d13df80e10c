"""The fast path of VCD value changes: the header's commands are walked the way pywellen
walks them (each variable's id code, where the body starts), then the body is searched at
byte level (memchr, and numpy over a memory map) for the id codes asked for only, so a cold
query on a big dump costs about one pass of memchr instead of tokenising every change of every
signal.

It answers what pywellen would (times, values, repeats of a value dropped) or None, and the
caller parses the whole file with pywellen instead: for real and string variables, 9-state
values, a wanted change that is not alone on its line or is spaced by tabs or carriage
returns, a vector change cut over two lines, time stamps before a wanted change that are not
plain integers or that go back, more bits than the variable has, and a file that does not
end with a newline. Lines that hold no change of a wanted signal are not looked at: a body
command, comment or malformed token elsewhere is not seen here (pywellen refuses a file with
a malformed token when it parses it, e.g. for a summary).
"""

from __future__ import annotations

import copy
import mmap
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

_WS = b" \n\r\t"
_COMMAND = re.compile(rb"[ \n\r\t]*\$([^ \n\r\t]*)[ \n\r\t]")
_COMMANDS = frozenset(
    (b"date", b"timescale", b"var", b"scope", b"upscope", b"comment", b"version",
     b"enddefinitions", b"attrbegin", b"attrend")
)  # fmt: skip
# First bytes pywellen reads as a one-bit change; the fast path itself decodes only 0/1/x/z.
_ONE_BIT = np.zeros(256, dtype=bool)
_ONE_BIT[list(b"01zZxXhHuUwWlL-")] = True
_KNOWN_BITS = frozenset(b"01xXzZ")
_RARE = 30_000  # memchr hits of a code before its byte counts as common
_SEGMENT = 8 << 20
_MAX_DIGITS = 18
_ID_MIN, _ID_SPAN = 33, 94


@dataclass(frozen=True)
class Declared:
    """One `$var` as pywellen splits it: type, size and id code tokens."""

    kind: bytes
    size: bytes
    code: bytes


@dataclass(frozen=True)
class Header:
    """Where pywellen's header ends (after the `$end` of `$enddefinitions`), where its body
    parse starts (the line after), and the variables in declaration order."""

    end: int
    body: int
    vars: list[Declared]


def parse_header(data: bytes | memoryview, limit: int) -> Header | None:
    """The header's commands as pywellen's reader walks them: `$name`, then everything up to
    the first `$end`. None where this could disagree with it (a `$` just before an `$end`,
    whitespace other than spaces inside a `$var`, an unknown command, no end within limit)."""
    pos = 0
    found: list[Declared] = []
    while True:
        match = _COMMAND.match(data, pos)
        if match is None or match.end() > limit:
            return None
        name = match.group(1)
        if name not in _COMMANDS:
            return None
        start = match.end()
        end = data.find(b"$end", start, limit)
        if end < 0 or b"$" in data[max(start, end - 3) : end]:
            return None
        if name == b"var":
            text = bytes(data[start:end]).strip(_WS)
            if any(c in text for c in b"\n\r\t"):
                return None
            tokens = [t for t in text.split(b" ") if t]
            if len(tokens) < 4:
                return None
            found.append(Declared(tokens[0], tokens[1], tokens[2]))
        pos = end + 4
        if name == b"enddefinitions":
            newline = data.find(b"\n", pos)
            return Header(pos, newline + 1 if newline >= 0 else len(data), found)


def id_number(code: bytes) -> int | None:
    """pywellen's dense number of an id code (base-94 digits, least significant first)."""
    value = 0
    for byte in reversed(code):
        if not _ID_MIN <= byte < _ID_MIN + _ID_SPAN:
            return None
        value = value * _ID_SPAN + (byte - _ID_MIN) + 1
    return value - 1 if code else None


def match_codes(declared: Sequence[Declared], refs: Sequence[int]) -> bool:
    """Whether declaration i is pywellen's variable i: its signal numbers follow from the id
    codes in one of pywellen's two numberings (dense id value, or order of first use)."""
    if len(declared) != len(refs):
        return False
    dense = all(id_number(d.code) == r for d, r in zip(declared, refs, strict=True))
    if dense:
        return True
    order: dict[bytes, int] = {}
    for d in declared:
        order.setdefault(d.code, len(order))
    for offset in (0, 1):
        if all(order[d.code] + offset == r for d, r in zip(declared, refs, strict=True)):
            return True
    return False


@dataclass
class Changes:
    """One signal's value changes in pywellen's Signal interface: sig[i] is (time, value),
    slices give lists of pairs, value_at(t) the value from the last change at or before t."""

    times: np.ndarray
    values: list

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return list(zip(self.times[index].tolist(), self.values[index], strict=True))
        if not -len(self.values) <= index < len(self.values):
            raise IndexError(f"out of bounds {index}")
        return int(self.times[index]), self.values[index]

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        return iter(zip(self.times.tolist(), self.values, strict=True))

    def value_at(self, t: int) -> Any:
        i = int(np.searchsorted(self.times, t, side="right")) - 1
        return self.values[i] if i >= 0 else None


@dataclass(frozen=True)
class Wanted:
    code: bytes
    width: int


class _Refused(Exception):
    """The fast path cannot answer exactly; the caller reads the file with pywellen."""


class Body:
    """A VCD's body (from pywellen's body start to the end) over a read-only memory map.
    `codes` are all declared id codes (a search looks for the byte of a code that the fewest
    codes share); `longest` bounds a vector change's value token (widest vector + 2)."""

    def __init__(self, data: mmap.mmap, body: int, codes: Sequence[bytes], longest: int):
        self.data = data
        self.view = np.frombuffer(data, dtype=np.uint8)
        self.body = body
        self.longest = longest
        self.sharing = np.zeros(256, dtype=np.int64)
        for code in set(codes):
            self.sharing[list(set(code))] += 1

    def over(self, data: mmap.mmap) -> Body:
        """This body read from another map of the same bytes."""
        other = copy.copy(self)
        other.data, other.view = data, np.frombuffer(data, dtype=np.uint8)
        return other

    def scan(self, wanted: Sequence[Wanted]) -> dict[bytes, Changes] | None:
        """The changes of each wanted id code, or None (see the module)."""
        try:
            return self._scan(wanted)
        except _Refused:
            return None

    def _scan(self, wanted: Sequence[Wanted]) -> dict[bytes, Changes]:
        """Segment by segment (pages let go behind, so the map never holds the whole file
        in this process's memory): where the codes occur, their changes, their times."""
        view, size = self.view, len(self.view)
        if size <= self.body or view[size - 1] != 10:
            raise _Refused
        common = dict.fromkeys((w.code for w in wanted), 0)
        parts: dict[bytes, list] = {w.code: [] for w in wanted}
        ordered: list[np.ndarray] = []
        last_line, last_marker = -1, -1
        for lo in range(self.body, size, _SEGMENT):
            hi = min(lo + _SEGMENT, size)
            found = [self._changes(self._occurrences(w.code, lo, hi, common), w) for w in wanted]
            lines = np.concatenate([f[0] for f in found])
            order = np.argsort(lines, kind="stable")
            stamps = np.empty(len(lines), np.int64)
            stamps[order], last_line, last_marker = self._times(
                lines[order], last_line, last_marker
            )
            ordered.append(stamps[order])
            at = 0
            for want, (mine, values) in zip(wanted, found, strict=True):
                parts[want.code].append((stamps[at : at + len(mine)], values))
                at += len(mine)
            self._release(lo, hi)
        every = np.concatenate(ordered)
        if (every[1:] < every[:-1]).any():
            raise _Refused  # time going back: pywellen skips steps
        out = {}
        for code, pieces in parts.items():
            times = np.concatenate([p[0] for p in pieces])
            out[code] = _dedup(times, [v for p in pieces for v in p[1]])
        return out

    def _occurrences(self, code: bytes, lo: int, hi: int, common: dict[bytes, int]) -> np.ndarray:
        """Start positions of the code's bytes, found by its least shared byte in [lo, hi)."""
        view, n = self.view, len(code)
        offset = min(range(n), key=lambda k: (self.sharing[code[k]], -k))
        byte = code[offset]
        if common[code] > _RARE:
            at = np.flatnonzero(view[lo:hi] == byte) + lo
        else:
            find, needle = self.data.find, bytes((byte,))
            hits: list[int] = []
            p = find(needle, lo, hi)
            while p >= 0:
                hits.append(p)
                p = find(needle, p + 1, hi)
            at = np.asarray(hits, dtype=np.int64)
        common[code] += len(at)
        starts = at - offset
        starts = starts[(starts >= self.body) & (starts + n < len(view))]
        for k in range(n):
            if k != offset:
                starts = starts[view[starts + k] == code[k]]
        return starts

    def _release(self, lo: int, hi: int) -> None:
        start = lo - lo % mmap.PAGESIZE
        if hasattr(self.data, "madvise") and hi > start:
            self.data.madvise(mmap.MADV_DONTNEED, start, hi - start)

    def _changes(self, start: np.ndarray, want: Wanted) -> tuple[np.ndarray, list]:
        """Line starts and values of the changes of one id code, from where its bytes occur;
        refuses a change of it that is not alone on its line or not plainly spaced."""
        view, code, width = self.view, want.code, want.width
        n = len(code)
        nxt = view[start + n]
        start = start[_space(nxt)]  # where a token ends with the code
        nxt = view[start + n]
        prev = view[start - 1]
        prev2 = view[start - 2]
        alone = _space(prev)  # the token is the id code itself
        one_bit = _ONE_BIT[prev] & _space(prev2)  # the token is a one-bit value and the code
        if ((nxt != 10) & (alone | one_bit)).any():
            raise _Refused  # a change of it before other tokens on its line
        if (alone & (prev != 10) & (prev != 32)).any():
            raise _Refused
        if (one_bit & (prev2 != 10) & (prev2 != 32)).any():
            raise _Refused
        if (alone & (prev == 10)).any() and not (n > 1 and _ONE_BIT[code[0]]):
            raise _Refused  # the code alone on a line: a vector change cut in two
        scalar = one_bit & (prev2 == 10)
        after_space = one_bit & (prev2 == 32)
        vector = alone & (prev == 32)
        if after_space.any():  # "b.. 1!" is a change of the id "1!", not of "!"
            grid, first = self._line_starts(start[after_space] - 2, self.longest)
            if not np.isin(grid[np.arange(len(grid)), first], list(b"bBrRsS")).all():
                raise _Refused
        s_lines = start[scalar] - 1
        chars = prev[scalar]
        if width == 1 and ((chars == 48) | (chars == 49)).all():
            s_values = (chars - 48).tolist()
        else:
            table = {c: _bits(bytes((c,)), width) for c in set(chars.tolist())}
            s_values = [table[c] for c in chars.tolist()]
        v_lines, v_values = self._vectors(start[vector] - 1, width)
        if not len(v_lines):
            return s_lines, s_values
        if not len(s_lines):
            return v_lines, v_values
        lines = np.concatenate((s_lines, v_lines))
        values = s_values + v_values
        order = np.argsort(lines, kind="stable")
        return lines[order], [values[i] for i in order.tolist()]

    def _times(
        self, lines: np.ndarray, last_line: int, last_marker: int
    ) -> tuple[np.ndarray, int, int]:
        """The time of each change (sorted line starts, after a change at `last_line` whose
        time stamp sits at `last_marker`): the value of the last `#time` line before it, 0
        before the first; refuses a stamp that is not plain digits. Returns the times and
        the state for the next lines."""
        view, body = self.view, self.body
        marker = np.full(len(lines), -1, dtype=np.int64)
        reach = 24  # a clock's change sits on the line after its time stamp
        cols = lines[:, None] + np.arange(-reach, 0)
        grid = view[np.maximum(cols, body - 1)]
        is_marker = (grid[:, 1:] == 35) & (grid[:, :-1] == 10)
        hit = is_marker.any(axis=1)
        last = (reach - 2) - np.argmax(is_marker[hit, ::-1], axis=1)
        marker[hit] = lines[hit] - reach + 1 + last
        rfind = self.data.rfind
        starts = lines.tolist()
        found = marker.tolist()
        for row in np.flatnonzero(~hit).tolist():
            low = starts[row - 1] if row else max(last_line, body - 1)
            at = rfind(b"\n#", low, starts[row])
            found[row] = at + 1 if at >= 0 else (found[row - 1] if row else last_marker)
        marker = np.asarray(found, dtype=np.int64)
        stamps = np.zeros(len(lines), np.int64)
        has = marker >= 0
        if has.any():
            unique, back = np.unique(marker[has], return_inverse=True)
            stamps[has] = self._stamps(unique)[back]
        if not len(lines):
            return stamps, last_line, last_marker
        return stamps, starts[-1], found[-1]

    def _stamps(self, at: np.ndarray) -> np.ndarray:
        """Values of the `#time` lines at these positions; digits up to the newline only."""
        view, rows = self.view, np.arange(len(at))
        for digits in (10, _MAX_DIGITS):
            grid = view[np.minimum(at[:, None] + np.arange(1, digits + 2), len(view) - 1)]
            digit = (grid >= 48) & (grid <= 57)
            length = np.argmin(digit, axis=1)
            if not digit[rows, length].any():
                break
        if (length == 0).any() or (grid[rows, length] != 10).any():
            raise _Refused
        value = np.zeros(len(at), np.int64)
        for j in range(int(length.max())):
            value = np.where(j < length, value * 10 + (grid[:, j].astype(np.int64) - 48), value)
        return value

    def _line_starts(self, space: np.ndarray, reach: int) -> tuple[np.ndarray, np.ndarray]:
        """The `reach` bytes before each space position and, per row, the column of the line's
        first byte (just after the last newline); refuses a longer line."""
        cols = space[:, None] + np.arange(-reach, 0)
        grid = self.view[np.maximum(cols, 0)]
        is_nl = grid == 10
        if not is_nl.any(axis=1).all():
            raise _Refused
        first = reach - np.argmax(is_nl[:, ::-1], axis=1)
        if (first >= reach).any():
            raise _Refused  # a space right after a newline
        return grid, first

    def _vectors(self, space: np.ndarray, width: int) -> tuple[np.ndarray, list]:
        """Values of the `b<bits> <code>` lines ending at these spaces."""
        if not len(space):
            return space, []
        reach = width + 2
        values: list = []
        lines = np.empty(len(space), np.int64)
        step = max(1, (1 << 22) // reach)
        col = np.arange(reach)
        weights = np.where(col >= reach - width, 1 << np.maximum(reach - 1 - col, 0), 0)
        for lo in range(0, len(space), step):
            part = space[lo : lo + step]
            grid, first = self._line_starts(part, reach)
            heads = part - reach + first
            lines[lo : lo + len(part)] = heads
            if not np.isin(grid[np.arange(len(part)), first], (98, 66)).all():
                raise _Refused  # not b/B: a real or string value, or garbage
            if width > 1 and (first == reach - 1).any():
                raise _Refused  # "b <code>" on a vector
            cells = np.where(col[None, :] > first[:, None], grid, 48)
            if width <= 62 and ((cells == 48) | (cells == 49)).all():
                values.extend(((cells == 49).astype(np.int64) @ weights.astype(np.int64)).tolist())
                continue
            for head, sp in zip(heads.tolist(), part.tolist(), strict=True):
                values.append(_bits(self.data[head + 1 : sp], width))
        return lines, values


def _space(byte: np.ndarray) -> np.ndarray:
    """pywellen's token separators: space, newline, carriage return, tab."""
    return (byte == 32) | (byte == 10) | (byte == 13) | (byte == 9)


def _bits(text: bytes, width: int) -> int | str:
    """pywellen's value of a change's bits: an int when all are known, else the MSB-first
    lowercase string extended to the width (x or z extend an x or z, anything else 0)."""
    if len(text) > width or not set(text) <= _KNOWN_BITS:
        raise _Refused
    if not text:
        if width != 1:
            raise _Refused
        return 0
    low = text.lower()
    if b"x" not in low and b"z" not in low:
        return int(low, 2)
    pad = low[:1] if low[:1] in (b"x", b"z") else b"0"
    return (pad * (width - len(low)) + low).decode()


def _dedup(times: np.ndarray, values: list) -> Changes:
    """The changes with repeats of the previous value dropped, as pywellen drops them."""
    try:
        known = np.array(values, dtype=np.int64)
    except (ValueError, TypeError, OverflowError):
        known = None
    if known is not None:
        keep_mask = np.ones(len(known), dtype=bool)
        keep_mask[1:] = known[1:] != known[:-1]
        if keep_mask.all():
            return Changes(times, values)
        picked = np.flatnonzero(keep_mask)
        return Changes(times[picked], [values[i] for i in picked.tolist()])
    keep = []
    prev: object = object()
    for i, value in enumerate(values):
        if type(value) is not type(prev) or value != prev:
            keep.append(i)
            prev = value
    if len(keep) == len(values):
        return Changes(times, values)
    return Changes(times[np.asarray(keep, dtype=np.int64)], [values[i] for i in keep])
