"""A deterministic sequence of downlink subframes for one Cat-1 UE's HARQ entity (TS 36.321
5.3.2): per subframe a DCI (HARQ process, NDI, I_MCS, N_PRB, RNTI, rv) drawn from a seed, new
and retransmitted transport blocks interleaved, sizes from the TBS table (TS 36.213 7.1.7)
within Cat-1 limits; and what the back end receives and decodes for each (equalised symbols,
the HARQ entity's decode)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from pydantic import BaseModel

from silicon_agent.refmodels.cell_config import CellConfig
from silicon_agent.refmodels.descrambler import descramble
from silicon_agent.refmodels.dl_sch_encoder import DlSchPlan, encode_dl_sch
from silicon_agent.refmodels.fixed_point import EQ_OUT, NOISE_SCALE, quantise
from silicon_agent.refmodels.harq import HarqEntity
from silicon_agent.refmodels.hexio import pack_iq, write_hex
from silicon_agent.refmodels.modulation import modulate, modulation_for_qm
from silicon_agent.refmodels.qam_demodulator import demodulate_fixed
from silicon_agent.refmodels.resource_grid import pdsch_capacity
from silicon_agent.refmodels.scrambling import pdsch_c_init, scramble
from silicon_agent.refmodels.tbs import mcs_entry, tbs_for_mcs
from silicon_agent.refmodels.ue_category import CAT1

# Retransmissions cycle through the redundancy versions in the order of TS 36.321 5.3.2.2 (the
# scheduler's usual 0, 2, 3, 1).
RV_ORDER = (0, 2, 3, 1)
I_MCS_NEW_MAX = 28  # 29..31 only re-signal the modulation of a retransmission (7.1.7.1)


class SubframeDci(BaseModel):
    """One subframe's downlink assignment as the UE decodes it from the DCI."""

    subframe: int
    process: int
    ndi: int
    rv: int
    i_mcs: int
    qm: int
    n_prb: int
    rb_start: int
    rnti: int
    tbs: int
    snr_db: float


class SequenceSubframe(BaseModel):
    """One subframe of the sequence: its DCI, plan and what the receiver must produce."""

    model_config = {"arbitrary_types_allowed": True}

    dci: SubframeDci
    plan: DlSchPlan
    eq_i: np.ndarray
    eq_q: np.ndarray
    scale: np.ndarray
    new_data: bool
    tb_bytes: np.ndarray
    crc_ok: bool


def _snr_db(qm: int, tbs: int, g: int, margin_db: float) -> float:
    """An SNR near the decoding threshold of the block's spectral efficiency, plus a margin."""
    bits_per_re = (tbs + 24) / (g / qm)
    return float(10 * np.log10(2**bits_per_re - 1) + margin_db)


def schedule(
    seed: int,
    n_subframes: int = 12,
    max_prb: int = 6,
    max_tbs: int = 520,  # keeps the Icarus run of the sequence within minutes
    n_retx_processes: int = 3,
) -> list[SubframeDci]:
    """Draw the DCIs of ``n_subframes`` subframes: new transport blocks on random processes
    (NDI toggled), and retransmissions (same process, NDI, TBS, MCS, allocation and RNTI, next
    rv) of the first ``n_retx_processes`` blocks and of others at random, a few subframes after
    their first transmission. A first transmission that will be retransmitted is sent below its
    decoding threshold; the others well above it. The same seed gives the same sequence."""
    rng = np.random.default_rng([seed, 19])
    ndi = [0] * CAT1.harq_processes
    pending: dict[int, SubframeDci] = {}  # process -> last transmission, awaiting a retx
    due: dict[int, int] = {}  # process -> subframe index of its retransmission
    out: list[SubframeDci] = []
    forced = 0
    for i in range(n_subframes):
        sf = (i + 1) % 10
        ready = [p for p, t in due.items() if t <= i]
        if ready:
            p = min(ready, key=lambda q: due[q])
            last = pending.pop(p)
            del due[p]
            rv = RV_ORDER[(RV_ORDER.index(last.rv) + 1) % len(RV_ORDER)]
            out.append(last.model_copy(update={"subframe": sf, "rv": rv, "snr_db": last.snr_db}))
            continue
        free = [p for p in range(CAT1.harq_processes) if p not in pending]
        p = int(rng.choice(free))
        ndi[p] ^= 1
        while True:
            i_mcs = int(rng.integers(0, I_MCS_NEW_MAX + 1))
            n_prb = int(rng.integers(1, max_prb + 1))
            tbs = tbs_for_mcs(i_mcs, n_prb, CAT1)
            if 40 <= tbs <= max_tbs:
                break
        qm = mcs_entry(i_mcs).qm
        g = pdsch_capacity(CellConfig(subframe=sf), np.arange(n_prb), qm)
        retx = forced < n_retx_processes or bool(rng.random() < 0.3)
        retx = retx and i + 2 < n_subframes
        forced += int(retx)
        dci = SubframeDci(
            subframe=sf,
            process=p,
            ndi=ndi[p],
            rv=0,
            i_mcs=i_mcs,
            qm=qm,
            n_prb=n_prb,
            rb_start=int(rng.integers(0, 50 - n_prb + 1)),
            rnti=int(rng.integers(1, 0xFFF4)),
            tbs=tbs,
            snr_db=_snr_db(qm, tbs, g, -1.0 if retx else 12.0),
        )
        out.append(dci)
        if retx:
            pending[p] = dci
            due[p] = i + int(rng.integers(2, 5))
    return out


def receive_sequence(
    dcis: list[SubframeDci], seed: int, cell_id: int = 1, max_iters: int = 4
) -> list[SequenceSubframe]:
    """Transmit each subframe's transport block (the same bits for a retransmission), pass the
    modulated codeword through AWGN at its SNR into the equaliser's output format, and receive
    it with the bit-true demapper, descrambler and HARQ entity (TS 36.211 7.1, 6.3.1; TS 36.212
    5.3.2; TS 36.321 5.3.2.2)."""
    rng = np.random.default_rng([seed, 36321])
    harq = HarqEntity(CAT1)
    payload: dict[int, np.ndarray] = {}
    out = []
    for dci in dcis:
        cell = CellConfig(n_cell_id=cell_id, subframe=dci.subframe, n_rnti=dci.rnti)
        prbs = np.arange(dci.rb_start, dci.rb_start + dci.n_prb)
        g = pdsch_capacity(cell, prbs, dci.qm)
        if harq.is_new(dci.process, dci.ndi):
            payload[dci.process] = rng.integers(0, 2, dci.tbs).astype(np.uint8)
        tb = payload[dci.process]
        f, plan = encode_dl_sch(tb, g, dci.qm, rv=dci.rv)
        mod = modulation_for_qm(dci.qm)
        c_init = pdsch_c_init(dci.rnti, cell_id, dci.subframe)
        x = modulate(scramble(f, c_init), mod)
        n0 = 10 ** (-dci.snr_db / 10)
        y = x + np.sqrt(n0 / 2) * (rng.normal(size=x.size) + 1j * rng.normal(size=x.size))
        yi, yq = quantise(y.real, EQ_OUT), quantise(y.imag, EQ_OUT)
        scale = quantise(np.full(x.size, 1 / n0), NOISE_SCALE)
        llr = descramble(demodulate_fixed(yi, yq, mod, scale), c_init)
        rx = harq.receive(dci.process, dci.ndi, llr, plan, max_iters)
        out.append(
            SequenceSubframe(
                dci=dci,
                plan=plan,
                eq_i=yi,
                eq_q=yq,
                scale=scale,
                new_data=rx.new_data,
                tb_bytes=np.packbits(np.array(rx.result.tb_bits, np.uint8)),
                crc_ok=rx.result.tb_crc_ok,
            )
        )
    return out


def harq_figures(receptions: list[tuple[int, bool, bool]]) -> dict[str, int]:
    """Over a sequence of (process, new data, CRC ok) receptions: the retransmissions, the
    processes they were on, and those that decode where their first transmission did not."""
    first_ok: dict[int, bool] = {}
    rescues = 0
    for process, new_data, crc_ok in receptions:
        if new_data:
            first_ok[process] = crc_ok
        elif crc_ok and not first_ok[process]:
            rescues += 1
    retx = [process for process, new_data, _ in receptions if not new_data]
    return {
        "retransmissions": len(retx),
        "processes_retransmitting": len(set(retx)),
        "combined_rescues": rescues,
    }


def write_expected(out: Path, tb_bytes: list[np.ndarray], crc_ok: list[bool]) -> int:
    """The expected side of a sequence testbench (hdl/tb/tb_seq_bytes.svh): every subframe's
    transport-block bytes, their count and CRC verdict. Returns the bytes in all."""
    write_hex(out / "seq_tb_bytes.hex", np.concatenate(tb_bytes), 8)
    write_hex(out / "seq_n_bytes.hex", np.array([b.size for b in tb_bytes]), 16)
    write_hex(out / "seq_crc_ok.hex", np.array(crc_ok, np.int64), 1)
    return int(sum(b.size for b in tb_bytes))


class SequenceVectors(BaseModel):
    """What ``write_sequence`` wrote: the testbench's plusargs and the sequence's figures."""

    seed: int
    n_subframes: int
    re_total: int
    bytes_total: int
    retransmissions: int
    processes_retransmitting: int
    combined_rescues: int  # retransmissions that decode where their first transmission did not
    dcis: list[SubframeDci]

    def plusargs(self, directory: Path) -> list[str]:
        return [
            f"VECTORS={directory}",
            f"N_SF={self.n_subframes}",
            f"RE_TOTAL={self.re_total}",
            f"BYTES_TOTAL={self.bytes_total}",
        ]


def write_sequence(
    out: Path, seed: int, n_subframes: int = 12, max_iters: int = 4
) -> SequenceVectors:
    """Write the sequence's vectors for tb_pdsch_rx_seq under ``out``: per subframe the
    lte_rx_config words (TOP_CFG_WORDS, zero-padded), its equalised symbols and 1/N0, its expected
    transport-block bytes and CRC verdict (refmodels.vectors.top_config_words layout)."""
    from silicon_agent.refmodels.vectors import TOP_CFG_WORDS, top_config_words

    dcis = schedule(seed, n_subframes)
    subframes = receive_sequence(dcis, seed, max_iters=max_iters)
    cfg, n_re = [], []
    for sf in subframes:
        d = sf.dci
        cell = CellConfig(n_cell_id=1, subframe=d.subframe, n_rnti=d.rnti)
        prbs = np.arange(d.rb_start, d.rb_start + d.n_prb)
        words = top_config_words(
            cell, prbs, d.qm, d.tbs, sf.plan, max_iters, ndi=d.ndi, harq_id=d.process
        )
        cfg.append(np.pad(words, (0, TOP_CFG_WORDS - words.size)))
        n_re.append(sf.eq_i.size)
    out.mkdir(parents=True, exist_ok=True)
    write_hex(out / "seq_config.hex", np.concatenate(cfg), 32)
    iq = [pack_iq(sf.eq_i, sf.eq_q, EQ_OUT.width) for sf in subframes]
    write_hex(out / "seq_eq_iq.hex", np.concatenate(iq), 2 * EQ_OUT.width)
    write_hex(
        out / "seq_llr_scale.hex", np.concatenate([sf.scale for sf in subframes]), NOISE_SCALE.width
    )
    write_hex(out / "seq_n_re.hex", np.array(n_re), 16)
    bytes_total = write_expected(
        out, [sf.tb_bytes for sf in subframes], [sf.crc_ok for sf in subframes]
    )
    return SequenceVectors(
        seed=seed,
        n_subframes=n_subframes,
        re_total=int(sum(n_re)),
        bytes_total=bytes_total,
        dcis=dcis,
        **harq_figures([(sf.dci.process, sf.new_data, sf.crc_ok) for sf in subframes]),
    )


__all__ = [
    "SequenceSubframe",
    "SequenceVectors",
    "SubframeDci",
    "harq_figures",
    "receive_sequence",
    "schedule",
    "write_expected",
    "write_sequence",
]
