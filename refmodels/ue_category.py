"""UE category limits of the downlink (TS 36.306 Table 4.1-1) and the checks a scheduler's
choice must pass before it reaches a receiver built for that category."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict


class UeCategory(BaseModel):
    """Downlink physical-layer parameters of one UE category (TS 36.306 Table 4.1-1)."""

    model_config = ConfigDict(frozen=True)

    name: str
    max_dl_sch_bits_per_tti: int
    max_dl_sch_tb_bits: int
    total_soft_channel_bits: int
    max_layers: int
    # FDD: 8 downlink HARQ processes (TS 36.213 7); M_limit of TS 36.212 5.1.4.1.2.
    harq_processes: int = 8
    m_limit: int = 8


CAT1 = UeCategory(
    name="1",
    max_dl_sch_bits_per_tti=10296,
    max_dl_sch_tb_bits=10296,
    total_soft_channel_bits=250368,
    max_layers=1,
)


class CapabilityError(ValueError):
    """A transport block or soft-buffer demand beyond what the UE category supports."""


def check_transport_blocks(tbs: int | Sequence[int], category: UeCategory = CAT1) -> None:
    """Refuse transport blocks one TTI carries beyond the category's limits."""
    blocks = [tbs] if isinstance(tbs, int) else list(tbs)
    if len(blocks) > category.max_layers:
        raise CapabilityError(
            f"{len(blocks)} transport blocks in one TTI: UE category {category.name} receives "
            f"at most {category.max_layers} (one spatial layer, TS 36.306 Table 4.1-1)"
        )
    for size in blocks:
        if size <= 0:
            raise CapabilityError(f"transport block size {size} is not positive")
        if size > category.max_dl_sch_tb_bits:
            raise CapabilityError(
                f"transport block of {size} bits exceeds UE category {category.name}'s "
                f"{category.max_dl_sch_tb_bits} bits per DL-SCH transport block "
                "(TS 36.306 Table 4.1-1)"
            )
    if sum(blocks) > category.max_dl_sch_bits_per_tti:
        raise CapabilityError(
            f"{sum(blocks)} DL-SCH bits in one TTI exceed UE category {category.name}'s "
            f"{category.max_dl_sch_bits_per_tti} (TS 36.306 Table 4.1-1)"
        )


def check_soft_bits(stored_bits: int, category: UeCategory = CAT1) -> None:
    """Refuse a soft-buffer demand larger than the category's total soft channel bits."""
    if stored_bits > category.total_soft_channel_bits:
        raise CapabilityError(
            f"{stored_bits} soft channel bits exceed UE category {category.name}'s "
            f"{category.total_soft_channel_bits} (TS 36.306 Table 4.1-1)"
        )
