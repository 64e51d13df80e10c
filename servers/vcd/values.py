"""Four-state values as the reader hands them over, and the text an engineer reads.

pywellen gives a fully known vector as an int, a vector with x/z bits as a binary string (MSB
first), a real as a float, a string variable as str, and None before the first change.
"""

from __future__ import annotations

from typing import Literal

Raw = int | str | float | None
Radix = Literal["hex", "bin", "dec"]

_UNKNOWN = frozenset("xXzZuUwW-")


def is_known(raw: Raw) -> bool:
    return isinstance(raw, int | float)


def to_int(raw: Raw) -> int | None:
    """The numeric value, or None when any bit is x/z (or nothing was dumped yet)."""
    if isinstance(raw, bool):
        return int(raw)
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float):
        return int(raw)
    if isinstance(raw, str) and raw and all(c in "01" for c in raw):
        return int(raw, 2)
    return None


def bits(raw: Raw, width: int) -> str:
    """MSB-first four-state bit string of exactly `width` characters."""
    if raw is None:
        return "x" * width
    if isinstance(raw, int):
        text = format(raw & ((1 << width) - 1) if width > 0 else raw, "b")
        return text.zfill(width)
    if isinstance(raw, float):
        return format(int(raw), "b").zfill(width)
    text = raw.lower()
    if len(text) < width:
        # VCD left-extends with the first bit when it is x/z, with 0 otherwise.
        pad = text[0] if text and text[0] in "xz" else "0"
        text = pad * (width - len(text)) + text
    return text[-width:] if width > 0 else text


def format_value(raw: Raw, width: int, radix: Radix = "hex", is_real: bool = False) -> str:
    """`8'h3f`, `8'bxxxx0101`, `1'b1`, `32'd12`; reals as plain decimals; None as `x`."""
    if is_real and isinstance(raw, float | int):
        return repr(float(raw))
    if raw is None:
        return f"{width}'h{'x' * max(1, (width + 3) // 4)}" if width > 1 else "1'bx"
    if isinstance(raw, str) and raw and any(c not in "01xXzZ" for c in raw):
        return raw  # a string variable
    if width <= 1:
        return f"1'b{bits(raw, 1)}"
    known = to_int(raw)
    if radix == "dec":
        return f"{width}'d{known}" if known is not None else f"{width}'b{bits(raw, width)}"
    if radix == "bin":
        return f"{width}'b{bits(raw, width)}"
    if known is not None:
        return f"{width}'h{known:0{(width + 3) // 4}x}"
    return f"{width}'h{_hex_four_state(bits(raw, width))}"


def _hex_four_state(text: str) -> str:
    """Nibble-wise hex; an all-x nibble is `x`, all-z `z`, a mixed one `X`/`Z` (as viewers do)."""
    pad = (-len(text)) % 4
    text = ("0" * pad) + text
    out = []
    for i in range(0, len(text), 4):
        nibble = text[i : i + 4]
        if all(c in "01" for c in nibble):
            out.append(format(int(nibble, 2), "x"))
        elif nibble == "xxxx":
            out.append("x")
        elif nibble == "zzzz":
            out.append("z")
        else:
            out.append("Z" if "z" in nibble and "x" not in nibble else "X")
    return "".join(out)


def short_value(raw: Raw, width: int) -> str:
    """Compact text for a waveform bus label: hex digits without the width prefix."""
    text = format_value(raw, width)
    return text.split("'", 1)[1][1:] if "'" in text else text


def same(a: Raw, b: Raw) -> bool:
    """Four-state equality: x equals x, 0 never equals x."""
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if a is None or b is None:
        return a is None and b is None
    ia, ib = to_int(a), to_int(b)
    if ia is not None and ib is not None:
        return ia == ib
    return str(a).lower().lstrip("0") == str(b).lower().lstrip("0")
