"""Resource element demapper: PDSCH REs and CRS pilots out of a received subframe grid
(inverse of TS 36.211 6.3.5 and 6.10.1.2).  Pure selection, so float and fixed are identical."""

from __future__ import annotations

import numpy as np

from silicon_agent.refmodels.cell_config import N_SYMB_SLOT, CellConfig
from silicon_agent.refmodels.crs import crs_subcarriers, crs_symbols_in_subframe
from silicon_agent.refmodels.resource_grid import pdsch_indices


def extract_pdsch(grid: np.ndarray, cell: CellConfig, prbs: np.ndarray) -> np.ndarray:
    """PDSCH REs in mapping order (k first, then l) from a (14, 600) grid of any dtype (inverse of
    TS 36.211 6.3.5)."""
    l_idx, k_idx = pdsch_indices(cell, prbs)
    return grid[l_idx, k_idx]


def extract_crs(grid: np.ndarray, cell: CellConfig) -> dict[int, np.ndarray]:
    """Received CRS REs per CRS-bearing symbol (6.10.1.2)."""
    return {
        sym: grid[sym, crs_subcarriers(sym % N_SYMB_SLOT, cell.n_cell_id)]
        for sym in crs_symbols_in_subframe()
    }
