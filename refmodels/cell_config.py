"""Cell and carrier constants for 10 MHz FDD, normal CP, one antenna port (TS 36.211 6.2)."""

from __future__ import annotations

from pydantic import BaseModel

N_RB_DL = 50
N_RB_MAX = 110
N_SC_RB = 12
N_SC = N_RB_DL * N_SC_RB  # 600 occupied subcarriers (DC excluded)
N_SYMB_SLOT = 7
N_SYMB_SF = 2 * N_SYMB_SLOT
N_FFT = 1024
SAMPLE_RATE = 15.36e6
SUBCARRIER_SPACING = 15e3
CP_FIRST = 80  # samples at 15.36 Msps, symbol 0 of each slot (6.12)
CP_OTHER = 72
SAMPLES_PER_SUBFRAME = 15360


class CellConfig(BaseModel):
    """Per-cell parameters used by the signal generators."""

    n_cell_id: int = 0
    n_rnti: int = 0x003D
    cfi: int = 2  # OFDM symbols of the control region
    subframe: int = 1

    @property
    def n_id2(self) -> int:
        """N id2 (N_ID^(2) of TS 36.211 6.11)."""
        return self.n_cell_id % 3

    @property
    def n_id1(self) -> int:
        """N id1 (N_ID^(1) of TS 36.211 6.11)."""
        return self.n_cell_id // 3


def cp_length(l_in_slot: int) -> int:
    """Cyclic prefix length in samples for normal CP at 15.36 Msps (36.211 Table 6.12-1)."""
    return CP_FIRST if l_in_slot == 0 else CP_OTHER
