"""DL-SCH MAC PDU build and parse (TS 36.321 clause 6.1.2): R/R/E/LCID[/F/L] subheaders,
fixed-size MAC control elements, padding."""

from __future__ import annotations

from pydantic import BaseModel

LCID_PADDING = 0b11111
# Fixed-size DL MAC control elements (TS 36.321 Table 6.2.1-1) and their sizes in bytes.
FIXED_CE_BYTES = {0b11011: 1, 0b11100: 6, 0b11101: 1, 0b11110: 0}


class MacSdu(BaseModel):
    """One MAC SDU or control element: logical channel id and payload."""

    lcid: int
    payload: bytes


def _subheader(lcid: int, length: int | None, more: bool) -> bytes:
    """Subheader (TS 36.321 6.1.2)."""
    first = (int(more) << 5) | lcid
    if length is None:
        return bytes([first])
    if length < 128:
        return bytes([first, length])
    if length >= 1 << 15:
        raise ValueError("MAC SDU longer than a 15-bit L field")
    return bytes([first, 0x80 | (length >> 8), length & 0xFF])


def _l_bytes(length: int) -> int:
    """L bytes (TS 36.321 6.2.1 L field)."""
    return 1 if length < 128 else 2


def build_mac_pdu(sdus: list[MacSdu], size: int) -> bytes:
    """MAC PDU of exactly ``size`` bytes carrying ``sdus`` (TS 36.321 6.1.2).

    Padding of one or two bytes is signalled by padding subheaders at the start; more padding
    by a padding subheader at the end followed by padding bytes (zeros).
    """
    if not sdus:
        return _subheader(LCID_PADDING, None, False) + bytes(size - 1)
    body = b"".join(s.payload for s in sdus)

    def headers(last_has_l: bool, tail_padding: bool) -> list[bytes]:
        """Headers (TS 36.321 6.1.2)."""
        out = []
        for i, s in enumerate(sdus):
            last = i == len(sdus) - 1
            fixed = s.lcid in FIXED_CE_BYTES
            need_l = not fixed and (not last or last_has_l)
            out.append(
                _subheader(s.lcid, len(s.payload) if need_l else None, (not last) or tail_padding)
            )
        return out

    base = b"".join(headers(False, False))
    pad = size - len(base) - len(body)
    if pad < 0:
        raise ValueError("SDUs do not fit in the transport block")
    if pad == 0:
        return base + body
    if pad <= 2:
        return bytes([(1 << 5) | LCID_PADDING]) * pad + base + body
    hdr = b"".join(headers(True, True)) + _subheader(LCID_PADDING, None, False)
    tail = size - len(hdr) - len(body)
    if tail < 0:
        raise ValueError("cannot place padding for this size")
    return hdr + body + bytes(tail)


def parse_mac_pdu(pdu: bytes) -> list[MacSdu]:
    """SDUs and control elements of a DL-SCH MAC PDU (TS 36.321 6.1.2); padding dropped."""
    entries: list[tuple[int, int | None]] = []
    pos = 0
    while True:
        first = pdu[pos]
        more = bool(first & 0x20)
        lcid = first & 0x1F
        pos += 1
        length: int | None
        if lcid == LCID_PADDING:
            length = 0 if more else None
        elif lcid in FIXED_CE_BYTES:
            length = FIXED_CE_BYTES[lcid]
        elif more:
            if pdu[pos] & 0x80:
                length = ((pdu[pos] & 0x7F) << 8) | pdu[pos + 1]
                pos += 2
            else:
                length = pdu[pos]
                pos += 1
        else:
            length = None  # last subheader: the rest of the PDU
        entries.append((lcid, length))
        if not more:
            break
    out = []
    for lcid, length in entries:
        # Only the last subheader lacks a length; its element runs to the end of the PDU.
        n = len(pdu) - pos if length is None else length
        if lcid != LCID_PADDING:
            out.append(MacSdu(lcid=lcid, payload=bytes(pdu[pos : pos + n])))
        pos += n
    return out
