"""The trace judge's expected beats of each block, derived from a case's refmodels files.

Independent of the testbenches: from the vector files and the case's sidecar alone, this says
which output beats the DUT must deliver after its last reset (the passes a testbench runs back
to back) and what each beat carries. A pass a testbench cuts short with a reset is judged as a
prefix of the same beats (``servers/core/sv/trace.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from silicon_agent.suite.trace_spec import ExpectedBeats, ExpectedStream

Sidecar = dict


def read_words(path: Path) -> list[str]:
    """The hex words of a ``$readmemh`` file, as written."""
    words = []
    for line in path.read_text().splitlines():
        word = line.split("//", 1)[0].strip()
        if word:
            words.append(word.lower())
    return words


def _stream(
    data: list[str],
    *,
    copies: int = 1,
    last_every: int | None = None,
    user: list[str | None] | None = None,
) -> ExpectedStream:
    """``copies`` back-to-back passes of the same beats; tlast on each pass's final beat (or
    every ``last_every`` beats)."""
    period = last_every or len(data)
    last = [int(n % period == period - 1) for n in range(len(data))]
    return ExpectedStream(
        data=data * copies, last=last * copies, user=(user or []) * copies or None
    )


def _bits(words: list[str], width: int) -> list[int]:
    return [int(w, 16) & ((1 << width) - 1) for w in words]


def crc_checker(d: Path, _: Sidecar) -> ExpectedStream:
    verdicts = zip(
        read_words(d / "expected_pass.hex"), read_words(d / "expected_syndrome.hex"), strict=True
    )
    data = [f"{(int(p, 16) & 1) << 24 | int(s, 16):x}" for p, s in verdicts]
    return ExpectedStream(data=data, last=[1] * len(data))  # tlast on every verdict


def descrambler(d: Path, _: Sidecar) -> ExpectedStream:
    """tlast on each codeword's last LLR (the codewords' lengths in their words' top bits)."""
    data = read_words(d / "expected_llr_out.hex")
    last = [0] * len(data)
    end = 0
    for word in read_words(d / "stimulus_codewords.hex"):
        end += int(word, 16) >> 32
        last[end - 1] = 1
    return ExpectedStream(data=data, last=last)


def qam_demodulator(d: Path, _: Sidecar) -> ExpectedStream:
    return _stream(read_words(d / "expected_llr.hex"))


def ofdm_demodulator(d: Path, sidecar: Sidecar) -> ExpectedStream:
    """Passes 1 and 2 of the testbench: subframe 0, then the files' last subframe; tuser the
    symbol l."""
    data = read_words(d / "expected_grid_iq.hex")
    per_sf = len(data) // int(sidecar["params"].get("n_sf", 1))
    passes = data[:per_sf] + data[-per_sf:]
    user = [f"{n % per_sf // (per_sf // 14):x}" for n in range(len(passes))]
    return _stream(passes, last_every=per_sf, user=user)


def channel_estimator(d: Path, _: Sidecar) -> ExpectedStream:
    """The case's subframes back to back: tlast on each one's 8400th estimate, tuser its N0."""
    data = read_words(d / "expected_h_iq.hex")
    n0s = read_words(d / "expected_n0.hex")
    per = len(data) // len(n0s)
    return _stream(data, last_every=per, user=[n0s[n // per] for n in range(len(data))])


def resource_demapper(d: Path, _: Sidecar) -> ExpectedStream:
    return _stream(read_words(d / "expected_pdsch_iq.hex"), copies=2)


def equalizer(d: Path, _: Sidecar) -> ExpectedStream:
    return _stream(
        read_words(d / "expected_x_iq.hex"), user=list(read_words(d / "expected_llr_scale.hex"))
    )


def _d_beats(path: Path) -> list[str]:
    """Three lanes of 8-bit LLRs per beat, {d2, d1, d0}, from a file of d0s, d1s, then d2s."""
    lanes = _bits(read_words(path), 8)
    n = len(lanes) // 3
    return [f"{lanes[2 * n + k] << 16 | lanes[n + k] << 8 | lanes[k]:x}" for k in range(n)]


def rate_dematcher(d: Path, side: Sidecar) -> ExpectedStream:
    first = _d_beats(d / "expected_d_llr.hex")
    if int(side["params"].get("rv2", -1)) < 0:
        return _stream(first, copies=2)
    # Pass 2 the retransmission into a buffer of its own, pass 3 combined, pass 4 the first again.
    passes = [
        first,
        _d_beats(d / "expected_d2_alone_llr.hex"),
        _d_beats(d / "expected_d2_llr.hex"),
        first,
    ]
    data = [beat for one in passes for beat in one]
    last = [int(n == len(one) - 1) for one in passes for n in range(len(one))]
    return ExpectedStream(data=data, last=last)


TURBO_BLOCKS = 2  # copies the testbench streams after its reset (its BLOCKS default)


def turbo_decoder(d: Path, side: Sidecar) -> ExpectedStream:
    data = read_words(d / "expected_app_llr.hex")
    crc_ok = int(bool(side["params"]["crc_ok"]))
    iterations = int(read_words(d / "expected_iterations.hex")[0], 16)
    user = f"{crc_ok << 4 | iterations:x}"
    return _stream(data, copies=TURBO_BLOCKS, user=[user] * len(data))


def dl_sch_processor(d: Path, _: Sidecar) -> ExpectedStream:
    data = read_words(d / "expected_tb_bytes.hex")
    ok = int(read_words(d / "expected_tb_crc_ok.hex")[0], 16) & 1
    user: list[str | None] = ["0"] * (len(data) - 1) + [str(ok)]
    return _stream(data, copies=2, user=user)


def _mac_pdu(data: list[str], crc_ok: int) -> tuple[list[str], list[int], list[str | None]]:
    """One PDU's bytes, tlast on the last, tuser (the CRC verdict) checked on the last only."""
    last = [int(n == len(data) - 1) for n in range(len(data))]
    user: list[str | None] = [None] * (len(data) - 1) + [str(crc_ok)]
    return data, last, user


def receiver(d: Path, side: Sidecar) -> ExpectedStream:
    """pdsch_rx_backend and lte_baseband_top: `passes` subframes back to back (two unless the
    case says); in a HARQ case the first is the first transmission (its own decode), the second
    the combined one."""
    params = side["params"]
    later = _mac_pdu(read_words(d / "expected_tb_bytes.hex"), int(bool(params["tb_crc_ok"])))
    first = later
    if int(params.get("harq", 0)):
        first = _mac_pdu(read_words(d / "expected_tb1_bytes.hex"), int(bool(params["tb1_crc_ok"])))
    rest = int(params.get("passes", 2)) - 1
    return ExpectedStream(
        data=first[0] + later[0] * rest,
        last=first[1] + later[1] * rest,
        user=first[2] + later[2] * rest,
    )


EXPECTED: dict[str, Callable[[Path, Sidecar], ExpectedStream]] = {
    "crc_checker": crc_checker,
    "descrambler": descrambler,
    "qam_demodulator": qam_demodulator,
    "ofdm_demodulator": ofdm_demodulator,
    "channel_estimator": channel_estimator,
    "resource_demapper": resource_demapper,
    "equalizer": equalizer,
    "rate_dematcher": rate_dematcher,
    "turbo_decoder": turbo_decoder,
    "dl_sch_processor": dl_sch_processor,
    "pdsch_rx_backend": receiver,
    "lte_baseband_top": receiver,
}


def expected_beats(block: str, stream: str, case_dir: Path, sidecar: Sidecar) -> ExpectedBeats:
    return ExpectedBeats(streams={stream: EXPECTED[block](case_dir, sidecar)})
