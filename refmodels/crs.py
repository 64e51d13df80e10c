"""Cell-specific reference signals for antenna port 0 (TS 36.211 clause 6.10.1)."""

from __future__ import annotations

import numpy as np

from silicon_agent.refmodels.cell_config import N_RB_DL, N_RB_MAX, N_SYMB_SLOT
from silicon_agent.refmodels.gold import gold_sequence


def crs_c_init(n_s: int, l: int, n_cell_id: int, n_cp: int = 1) -> int:  # noqa: E741
    """c_init = 2^10 (7(n_s+1) + l + 1)(2 N_ID + 1) + 2 N_ID + N_CP (6.10.1.1)."""
    return (1 << 10) * (7 * (n_s + 1) + l + 1) * (2 * n_cell_id + 1) + 2 * n_cell_id + n_cp


def crs_sequence(n_s: int, l: int, n_cell_id: int) -> np.ndarray:  # noqa: E741
    """r_{l,ns}(m), m = 0..2 N_RB^max - 1, QPSK from the Gold sequence (6.10.1.1)."""
    c = gold_sequence(crs_c_init(n_s, l, n_cell_id), 4 * N_RB_MAX).astype(np.float64)
    return ((1 - 2 * c[0::2]) + 1j * (1 - 2 * c[1::2])) / np.sqrt(2)


def crs_symbols_in_subframe() -> tuple[int, ...]:
    """Subframe symbol indices carrying port-0 CRS: l = 0 and N_symb - 3 of each slot (TS 36.211
    6.10.1.2)."""
    return (0, N_SYMB_SLOT - 3, N_SYMB_SLOT, 2 * N_SYMB_SLOT - 3)


def crs_subcarriers(l_in_slot: int, n_cell_id: int, n_rb: int = N_RB_DL) -> np.ndarray:
    """k = 6m + (v + v_shift) mod 6 for port 0: v = 0 at l = 0, 3 otherwise (6.10.1.2)."""
    v = 0 if l_in_slot == 0 else 3
    return 6 * np.arange(2 * n_rb) + (v + n_cell_id % 6) % 6


def crs_values(subframe: int, sym: int, n_cell_id: int, n_rb: int = N_RB_DL) -> np.ndarray:
    """a_{k,l} = r(m + N_RB^max - N_RB) at the CRS subcarriers of subframe symbol ``sym`` (TS 36.211
    6.10.1.2)."""
    n_s = 2 * subframe + sym // N_SYMB_SLOT
    r = crs_sequence(n_s, sym % N_SYMB_SLOT, n_cell_id)
    return r[np.arange(2 * n_rb) + N_RB_MAX - n_rb]


def crs_mask(n_cell_id: int) -> np.ndarray:
    """(14, 600) bool mask of port-0 CRS REs in a subframe (TS 36.211 6.10.1.2)."""
    from silicon_agent.refmodels.cell_config import N_SC, N_SYMB_SF

    mask = np.zeros((N_SYMB_SF, N_SC), bool)
    for sym in crs_symbols_in_subframe():
        mask[sym, crs_subcarriers(sym % N_SYMB_SLOT, n_cell_id)] = True
    return mask
