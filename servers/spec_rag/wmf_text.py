"""The text an equation picture (.wmf, the preview of an Equation/MathType object) holds.

Equation editors draw each glyph run with a text record at a position, in drawing order.
Sorted by x, a run above the baseline is a superscript and one below a subscript, so
`N`, `DL` (high) and `RB` (low) read back as `N_RB^DL`. Runs set in the Symbol font are
mapped to Unicode. Pictures without text records (drawn outlines) give None.
"""

from __future__ import annotations

import re
import struct

_PLACEABLE = b"\xd7\xcd\xc6\x9a"
_TEXTOUT = 0x0521
_EXTTEXTOUT = 0x0A32
_CREATEFONT = 0x02FB
_SELECTOBJECT = 0x012D
_DELETEOBJECT = 0x01F0
_CREATES = {0x00F7, 0x01F9, 0x02FA, 0x02FB, 0x02FC, 0x0142, 0x06FF}  # object-table entries

_GREEK = "αβχδεφγηιϕκλμνοπθρστυϖωξψζ"
SYMBOL_FONT = {chr(ord("a") + i): g for i, g in enumerate(_GREEK)}
SYMBOL_FONT |= {chr(ord("A") + i): g.upper() for i, g in enumerate(_GREEK)}
SYMBOL_FONT |= {
    "\xb4": "×", "\xb9": "≠", "\xa3": "≤", "\xb3": "≥", "\xe5": "∑", "\xd7": "⋅", "\xb1": "±",
    "\xae": "→", "\xac": "←", "\xb7": "•", "\xa5": "∞", "\xb6": "∂", "\xce": "∈", "\xc6": "∅",
    "\xd5": "∏", "\xf2": "∫", "\xe9": "⌈", "\xf9": "⌉", "\xeb": "⌊", "\xfb": "⌋", "\xe6": "(",
    "\xf6": ")", "\xe8": "", "\xf8": "", "\xe7": "", "\xf7": "", "\xea": "", "\xfa": "",
    "\xe1": "⟨", "\xf1": "⟩",
    "\xc5": "⊕", "\xc4": "⊗", "\xbb": "≈", "\xba": "≡", "\xd8": "¬", "\xd9": "∧", "\xda": "∨",
    "-": "−", "\xa2": "′", "\xb2": "″", "\xbc": "…", "\xe3": "©", "\xd6": "√",
}  # fmt: skip


def _decode(raw: bytes, symbol: bool) -> str:
    text = raw.split(b"\x00", 1)[0].decode("cp1252", errors="replace")
    return "".join(SYMBOL_FONT.get(c, c) for c in text) if symbol else text


def runs(data: bytes) -> list[tuple[int, int, int, str]]:
    """(x, y, font height, text) of every text record."""
    pos = 22 if data[:4] == _PLACEABLE else 0
    if len(data) < pos + 18:
        return []
    header_words = struct.unpack_from("<H", data, pos + 2)[0]
    pos += header_words * 2
    objects: dict[int, tuple[str, int]] = {}
    font = ("", 0)
    out: list[tuple[int, int, int, str]] = []
    while pos + 6 <= len(data):
        size, func = struct.unpack_from("<IH", data, pos)
        if size < 3 or func == 0:
            break
        body = data[pos + 6 : pos + size * 2]
        if func in _CREATES:
            slot = next(i for i in range(len(objects) + 1) if i not in objects)
            entry = ("", 0)
            if func == _CREATEFONT and len(body) >= 18:
                height = abs(struct.unpack_from("<h", body, 0)[0])
                entry = (body[18:50].split(b"\x00", 1)[0].decode("latin-1"), height)
            objects[slot] = entry
        elif func == _SELECTOBJECT and len(body) >= 2:
            chosen = objects.get(struct.unpack_from("<H", body, 0)[0])
            if chosen is not None and chosen[0]:
                font = chosen
        elif func == _DELETEOBJECT and len(body) >= 2:
            objects.pop(struct.unpack_from("<H", body, 0)[0], None)
        elif func == _EXTTEXTOUT and len(body) >= 8:
            y, x, count, options = struct.unpack_from("<hhhH", body, 0)
            start = 8 + (8 if options & 0x0006 else 0)
            text = _decode(body[start : start + count], "symbol" in font[0].lower())
            out.append((x, y, font[1], text))
        elif func == _TEXTOUT and len(body) >= 2:
            count = struct.unpack_from("<h", body, 0)[0]
            padded = count + (count & 1)
            if len(body) >= 2 + padded + 4:
                y, x = struct.unpack_from("<hh", body, 2 + padded)
                text = _decode(body[2 : 2 + count], "symbol" in font[0].lower())
                out.append((x, y, font[1], text))
        pos += size * 2
    return out


def _script(mark: str, text: str) -> str:
    return mark + (text if re.fullmatch(r"[\w'′]+", text) else "(" + text + ")")


def wmf_text(data: bytes) -> str | None:
    """The formula as linear text, or None when the picture holds no text."""
    try:
        found = [r for r in runs(data) if r[3].strip()]
    except (struct.error, StopIteration):
        return None
    if not found:
        return None
    base_height = max(h for _, _, h, _ in found) or 1
    # the baseline is the one the full-size glyphs share
    full = [y for _, y, h, _ in found if h >= base_height * 0.85] or [found[0][1]]
    baseline = sorted(full)[len(full) // 2]
    tolerance = max(base_height * 0.2, 1)
    parts: list[str] = []
    pending: dict[str, list[str]] = {"_": [], "^": []}

    def flush() -> None:
        for mark in ("_", "^"):
            if pending[mark]:
                parts.append(_script(mark, "".join(pending[mark])))
                pending[mark] = []

    for _, y, _, text in sorted(found, key=lambda r: (r[0], -r[1])):
        mark = "_" if y > baseline + tolerance else "^" if y < baseline - tolerance else ""
        if mark:
            pending[mark].append(text.strip())
        else:
            flush()
            parts.append(text)
    flush()
    joined = " ".join("".join(parts).split())
    return joined or None
