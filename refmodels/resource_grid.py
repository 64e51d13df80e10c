"""Downlink subframe resource grid for one antenna port: CRS (TS 36.211 6.10.1), PSS/SSS (6.11),
PBCH region (6.6.4), control region, and PDSCH mapping to resource elements (6.3.5).

Control channels (PCFICH/PHICH/PDCCH) and the PBCH payload are not modelled bit-exactly: their
REs carry random QPSK placeholders so that the PDSCH sees realistic occupancy and power.
"""

from __future__ import annotations

import numpy as np

from silicon_agent.refmodels.cell_config import N_SC, N_SC_RB, N_SYMB_SF, N_SYMB_SLOT, CellConfig
from silicon_agent.refmodels.crs import (
    crs_mask,
    crs_subcarriers,
    crs_symbols_in_subframe,
    crs_values,
)
from silicon_agent.refmodels.sync_signals import (
    PBCH_SYMBOLS,
    PSS_SYMBOL,
    SSS_SYMBOL,
    central_72,
    pss,
    reserved_mask,
    sss,
    sync_subcarriers,
)


def pdsch_mask(cell: CellConfig, prbs: np.ndarray) -> np.ndarray:
    """(14, 600) mask of REs carrying PDSCH for the allocated PRBs (6.3.5)."""
    mask = np.zeros((N_SYMB_SF, N_SC), bool)
    ks = (np.asarray(prbs)[:, None] * N_SC_RB + np.arange(N_SC_RB)).reshape(-1)
    mask[cell.cfi :, ks] = True
    mask &= ~crs_mask(cell.n_cell_id)
    mask &= ~reserved_mask(cell.subframe)
    return mask


def pdsch_indices(cell: CellConfig, prbs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(symbol, subcarrier) of each PDSCH RE in mapping order: k first, then l (6.3.5)."""
    return np.nonzero(pdsch_mask(cell, prbs))


def pdsch_capacity(cell: CellConfig, prbs: np.ndarray, qm: int) -> int:
    """G: coded bits the allocation carries in this subframe (TS 36.211 6.3.5, TS 36.212
    5.1.4.1.2)."""
    return int(pdsch_mask(cell, prbs).sum()) * qm


def _qpsk_placeholder(n: int, rng: np.random.Generator) -> np.ndarray:
    """Qpsk placeholder (TS 36.211 7.1 QPSK)."""
    return ((1 - 2 * rng.integers(0, 2, n)) + 1j * (1 - 2 * rng.integers(0, 2, n))) / np.sqrt(2)


def build_subframe(
    cell: CellConfig, prbs: np.ndarray, pdsch_symbols: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """The (14, 600) complex grid of one downlink subframe (TS 36.211 6.2, 6.3.5, 6.10.1, 6.11,
    6.6.4)."""
    grid = np.zeros((N_SYMB_SF, N_SC), np.complex128)
    for sym in crs_symbols_in_subframe():
        grid[sym, crs_subcarriers(sym % N_SYMB_SLOT, cell.n_cell_id)] = crs_values(
            cell.subframe, sym, cell.n_cell_id
        )
    crs = crs_mask(cell.n_cell_id)
    ctrl = np.zeros_like(crs)
    ctrl[: cell.cfi] = True
    ctrl &= ~crs
    grid[ctrl] = _qpsk_placeholder(int(ctrl.sum()), rng)
    if cell.subframe in (0, 5):
        grid[PSS_SYMBOL, sync_subcarriers()] = pss(cell.n_id2)
        grid[SSS_SYMBOL, sync_subcarriers()] = sss(cell.n_id1, cell.n_id2, cell.subframe)
    if cell.subframe == 0:
        k = central_72()
        for sym in PBCH_SYMBOLS:
            # REs reserved for CRS of ports 0..3 stay empty in l = 0, 1 of slot 1 (6.6.4).
            use = k if sym - N_SYMB_SLOT >= 2 else k[(k % 3) != cell.n_cell_id % 3]
            grid[sym, use] = _qpsk_placeholder(use.size, rng)
    l_idx, k_idx = pdsch_indices(cell, prbs)
    if pdsch_symbols.size != l_idx.size:
        raise ValueError(f"{pdsch_symbols.size} PDSCH symbols for {l_idx.size} REs")
    grid[l_idx, k_idx] = pdsch_symbols
    return grid
