"""The receiver's multi-subframe case at the top level: the DCIs of ``harq_sequence.schedule``
(varying MCS, N_PRB, RNTI and HARQ process, new and retransmitted transport blocks
interleaved) sent as subframes of 15360 IQ samples (PDSCH on the DCI's RBs, CRS and control
region) through AWGN, and received by the bit-true chain that makes the top's golden vectors
(OFDM demodulation, channel estimation, equalisation, demapping, descrambling) with the HARQ
entity (TS 36.211 6.3-6.12, TS 36.212 5.3.2, TS 36.321 5.3.2.2)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict

from silicon_agent.refmodels.cell_config import CellConfig
from silicon_agent.refmodels.dl_sch_encoder import encode_dl_sch
from silicon_agent.refmodels.fixed_point import IQ_SAMPLE
from silicon_agent.refmodels.harq import HarqEntity
from silicon_agent.refmodels.harq_sequence import (
    SubframeDci,
    harq_figures,
    schedule,
    write_expected,
)
from silicon_agent.refmodels.hexio import pack_iq, write_hex
from silicon_agent.refmodels.modulation import modulation_for_qm
from silicon_agent.refmodels.resource_grid import pdsch_capacity
from silicon_agent.refmodels.vectors import TOP_CFG_WORDS, _receive_subframe, top_config_words

N_IQ = 15360  # samples per subframe at 15.36 Msps
TOP_SEQ_SEED = 19
TOP_SEQ_SUBFRAMES = 10
TOP_SEQ_ITERS = 4
# The schedule's SNRs are per PDSCH RE of ideally equalised symbols; at the top the channel
# estimate from noisy CRS costs about 2.5 dB at those SNRs (1 dB still leaves the combined
# decodes failing), so the subframes are sent that much hotter. The first transmissions of
# retransmitted blocks stay below their threshold, the combined ones above it (counted per
# sequence by ``TopSequence.combined_rescues``).
CHANNEL_ESTIMATE_DB = 2.5


class TopSubframe(BaseModel):
    """One subframe at the top: its DCI, the configuration words, the IQ samples and what the
    receiver must produce from them."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    dci: SubframeDci
    snr_db: float
    config: np.ndarray
    si: np.ndarray
    sq: np.ndarray
    new_data: bool
    tb_bytes: np.ndarray
    crc_ok: bool


def transmit_sequence(
    dcis: list[SubframeDci],
    seed: int,
    cell_id: int = 1,
    max_iters: int = TOP_SEQ_ITERS,
    estimate_db: float = CHANNEL_ESTIMATE_DB,
) -> list[TopSubframe]:
    """Send each DCI's transport block (the same bits for a retransmission, its own rv) as one
    subframe through AWGN seeded per subframe, and receive it with the top's bit-true chain
    and the HARQ entity."""
    harq = HarqEntity()
    payload: dict[int, np.ndarray] = {}
    out = []
    for i, dci in enumerate(dcis):
        rng = np.random.default_rng([seed, 19, i])
        cell = CellConfig(n_cell_id=cell_id, subframe=dci.subframe, n_rnti=dci.rnti)
        prbs = np.arange(dci.rb_start, dci.rb_start + dci.n_prb)
        if harq.is_new(dci.process, dci.ndi):
            payload[dci.process] = rng.integers(0, 2, dci.tbs).astype(np.uint8)
        g = pdsch_capacity(cell, prbs, dci.qm)
        f, plan = encode_dl_sch(payload[dci.process], g, dci.qm, rv=dci.rv)
        snr = dci.snr_db + estimate_db
        mod = modulation_for_qm(dci.qm)
        rx = _receive_subframe(cell, prbs, mod, f, ("awgn", 0.0, snr, "zf"), rng)
        got = harq.receive(dci.process, dci.ndi, rx.llr, plan, max_iters)
        words = top_config_words(
            cell, prbs, dci.qm, dci.tbs, plan, max_iters, ndi=dci.ndi, harq_id=dci.process
        )
        out.append(
            TopSubframe(
                dci=dci,
                snr_db=snr,
                config=np.pad(words, (0, TOP_CFG_WORDS - words.size)),
                si=rx.si,
                sq=rx.sq,
                new_data=got.new_data,
                tb_bytes=np.packbits(np.array(got.result.tb_bits, np.uint8)),
                crc_ok=got.result.tb_crc_ok,
            )
        )
    return out


class TopSequence(BaseModel):
    """What ``write_top_sequence`` wrote: the testbench's plusargs and the sequence's figures."""

    seed: int
    n_subframes: int
    bytes_total: int
    retransmissions: int
    processes_retransmitting: int
    combined_rescues: int  # retransmissions that decode where their first transmission did not
    dcis: list[SubframeDci]
    snr_db: list[float]
    crc_ok: list[bool]
    new_data: list[bool]

    def plusargs(self, directory: Path) -> list[str]:
        return [
            f"VECTORS={directory}",
            f"N_SF={self.n_subframes}",
            f"BYTES_TOTAL={self.bytes_total}",
        ]


def write_top_sequence(
    out: Path,
    seed: int = TOP_SEQ_SEED,
    n_subframes: int = TOP_SEQ_SUBFRAMES,
    max_iters: int = TOP_SEQ_ITERS,
) -> TopSequence:
    """Write the sequence's vectors for tb_lte_top_seq under ``out``: per subframe the
    lte_rx_config words (TOP_CFG_WORDS, zero-padded), its 15360 IQ samples, its expected bytes and
    CRC verdict."""
    dcis = schedule(seed, n_subframes)
    subframes = transmit_sequence(dcis, seed, max_iters=max_iters)
    out.mkdir(parents=True, exist_ok=True)
    write_hex(out / "seq_config.hex", np.concatenate([s.config for s in subframes]), 32)
    iq = [pack_iq(s.si, s.sq, IQ_SAMPLE.width) for s in subframes]
    write_hex(out / "seq_iq.hex", np.concatenate(iq), 2 * IQ_SAMPLE.width)
    bytes_total = write_expected(
        out, [s.tb_bytes for s in subframes], [s.crc_ok for s in subframes]
    )
    return TopSequence(
        seed=seed,
        n_subframes=n_subframes,
        bytes_total=bytes_total,
        dcis=dcis,
        snr_db=[s.snr_db for s in subframes],
        crc_ok=[s.crc_ok for s in subframes],
        new_data=[s.new_data for s in subframes],
        **harq_figures([(s.dci.process, s.new_data, s.crc_ok) for s in subframes]),
    )


__all__ = ["N_IQ", "TopSequence", "TopSubframe", "transmit_sequence", "write_top_sequence"]
