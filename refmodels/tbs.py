"""Modulation and TBS index (TS 36.213 Table 7.1.7.1-1) and transport block size lookup
(TS 36.213 Table 7.1.7.2.1-1).

Only part of Table 7.1.7.2.1-1 is typed in (entries needed by the reference channels and a few
more that other 3GPP tables confirm).  Lookups outside the typed
part raise ``KeyError`` rather than guessing.
"""

from __future__ import annotations

# Typed-in entries of TS 36.213 Table 7.1.7.2.1-1, keyed (I_TBS, N_PRB).  I_TBS 14 entries are
# cross-referenced by the 16QAM MCS-15 fixed reference channels of TS 36.104 Annex A.13, the
# (5, 25) and (5, 50) entries by the QPSK R=1/3 channels of TS 36.104 A.1 and TS 36.101 R.2.
_TBS: dict[tuple[int, int], int] = {
    (0, 1): 16,
    (0, 2): 32,
    (0, 3): 56,
    (0, 4): 88,
    (0, 5): 120,
    (0, 6): 152,
    (0, 7): 176,
    (0, 8): 208,
    (0, 9): 224,
    (0, 10): 256,
    (0, 50): 1384,
    (1, 50): 1800,
    (2, 50): 2216,
    (3, 50): 2856,
    (4, 50): 3624,
    (5, 25): 2216,
    (5, 50): 4392,
    (14, 6): 1736,
    (14, 15): 4264,
    (14, 25): 7224,
    (14, 50): 14112,
    (14, 75): 21384,
    (14, 100): 28336,
}


def mcs_to_itbs(i_mcs: int) -> tuple[int, int]:
    """(Q_m, I_TBS) for PDSCH I_MCS 0..28 (TS 36.213 Table 7.1.7.1-1)."""
    if 0 <= i_mcs <= 9:
        return 2, i_mcs
    if 10 <= i_mcs <= 16:
        return 4, i_mcs - 1
    if 17 <= i_mcs <= 28:
        return 6, i_mcs - 2
    raise ValueError("I_MCS 29..31 are reserved for retransmissions and carry no TBS")


def transport_block_size(i_tbs: int, n_prb: int) -> int:
    """TBS of TS 36.213 Table 7.1.7.2.1-1 for (I_TBS, N_PRB), from the typed-in part."""
    return _TBS[(i_tbs, n_prb)]


def typed_entries() -> dict[tuple[int, int], int]:
    """All typed-in (I_TBS, N_PRB) -> TBS entries of Table 7.1.7.2.1-1."""
    return dict(_TBS)
