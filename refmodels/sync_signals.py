"""Primary and secondary synchronisation signals (TS 36.211 clause 6.11) and the PBCH region
(clause 6.6.4) of subframes 0 and 5 for FDD."""

from __future__ import annotations

import numpy as np

from silicon_agent.refmodels.cell_config import N_SC, N_SYMB_SF, N_SYMB_SLOT

PSS_ROOTS = (25, 29, 34)  # Table 6.11.1.1-1


def pss(n_id2: int) -> np.ndarray:
    """d_u(n), n = 0..61, Zadoff-Chu of root u (6.11.1.1)."""
    u = PSS_ROOTS[n_id2]
    n = np.arange(62)
    n1 = np.where(n < 31, n, n + 1)  # the sequence skips the DC element n = 31
    return np.exp(-1j * np.pi * u * n1 * (n1 + 1) / 63)


def _m_seq(taps: tuple[int, ...]) -> np.ndarray:
    """M seq (TS 36.211 6.11.2.1)."""
    x = np.zeros(31, np.int64)
    x[4] = 1
    for i in range(26):
        x[i + 5] = sum(x[i + t] for t in taps) % 2
    return 1 - 2 * x


def sss(n_id1: int, n_id2: int, subframe: int) -> np.ndarray:
    """d(n), n = 0..61, of 6.11.2.1 for subframe 0 or 5."""
    qp = n_id1 // 30
    q = (n_id1 + qp * (qp + 1) // 2) // 30
    mp = n_id1 + q * (q + 1) // 2
    m0 = mp % 31
    m1 = (m0 + mp // 31 + 1) % 31
    s_t = _m_seq((0, 2))  # x(i+5) = x(i+2) + x(i)
    c_t = _m_seq((0, 3))  # x(i+5) = x(i+3) + x(i)
    z_t = _m_seq((0, 1, 2, 4))  # x(i+5) = x(i+4) + x(i+2) + x(i+1) + x(i)
    n = np.arange(31)
    s0 = s_t[(n + m0) % 31]
    s1 = s_t[(n + m1) % 31]
    c0 = c_t[(n + n_id2) % 31]
    c1 = c_t[(n + n_id2 + 3) % 31]
    z0 = z_t[(n + m0 % 8) % 31]
    z1 = z_t[(n + m1 % 8) % 31]
    d = np.empty(62)
    if subframe == 0:
        d[0::2] = s0 * c0
        d[1::2] = s1 * c1 * z0
    elif subframe == 5:
        d[0::2] = s1 * c0
        d[1::2] = s0 * c1 * z1
    else:
        raise ValueError("SSS exists only in subframes 0 and 5 (FDD)")
    return d.astype(np.complex128)


def sync_subcarriers() -> np.ndarray:
    """k = n - 31 + N_RB N_sc / 2 for n = 0..61 (6.11.1.2)."""
    return np.arange(62) - 31 + N_SC // 2


def central_72() -> np.ndarray:
    """The 72 central subcarriers (PBCH, and sync incl. reserved REs n = -5..-1, 62..66) (TS 36.211
    6.6.4, 6.11.1.2)."""
    return np.arange(72) - 36 + N_SC // 2


PSS_SYMBOL = N_SYMB_SLOT - 1  # last symbol of slot 0 (and of slot 10)
SSS_SYMBOL = N_SYMB_SLOT - 2
PBCH_SYMBOLS = tuple(range(N_SYMB_SLOT, N_SYMB_SLOT + 4))  # slot 1, l = 0..3


def reserved_mask(subframe: int) -> np.ndarray:
    """(14, 600) mask of REs unavailable to PDSCH because of PSS, SSS or PBCH (6.3.5)."""
    mask = np.zeros((N_SYMB_SF, N_SC), bool)
    if subframe in (0, 5):
        for sym in (PSS_SYMBOL, SSS_SYMBOL):
            mask[sym, central_72()] = True
    if subframe == 0:
        for sym in PBCH_SYMBOLS:
            mask[sym, central_72()] = True
    return mask
