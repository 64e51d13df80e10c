"""The ofdm_demodulator's constants come from refmodels, and its FFT keeps the line rate.

Its bit-exactness is checked by its testbench (tests/hdl/test_blocks_sim.py); here: the
generated twiddle ROM is current and addressed the way the RTL does it, the CP / window /
scaling constants of the RTL and the package equal the refmodels ones, a full-rate simulation
needs fewer cycles per OFDM symbol than 15.36 Msps at 100 MHz allows, and a strong-tone
subframe (which no refmodels channel case produces) drives FFT_OUT into saturation bit-exactly.
"""

from __future__ import annotations

import re
import uuid

import numpy as np
import pytest

from silicon_agent.hdl.ofdm_twiddles import ENTRIES, ROM_SV, rom_text, rom_words
from silicon_agent.hdl.registry import PACKAGE_SV, REPO, Registry
from silicon_agent.hdl.sim import VectorCase, VectorSet, run_case, simulator
from silicon_agent.refmodels import cell_config
from silicon_agent.refmodels import ofdm_demodulator as ref
from silicon_agent.refmodels.fixed_point import FFT_OUT, IQ_SAMPLE, quantise
from silicon_agent.refmodels.hexio import pack_iq, write_hex
from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import Workspace

RTL = REPO / "hdl/rtl/ofdm_demodulator.sv"
CLOCK_HZ = 100e6
SAMPLE_RATE = 15.36e6
SUBFRAME_SAMPLES = 15360
SYMBOL_BUDGET = SUBFRAME_SAMPLES / cell_config.N_SYMB_SF * CLOCK_HZ / SAMPLE_RATE  # 7142.9


def _localparam(text: str, name: str) -> str:
    found = re.search(rf"localparam\s+int\s+{name}\s*=\s*([^;]+);", text)
    assert found, name
    return found[1].strip()


def test_twiddle_rom_is_generated_from_refmodels() -> None:
    assert ROM_SV.read_text() == rom_text(), "run: python -m silicon_agent.hdl.ofdm_twiddles"


def test_rom_address_gives_every_stage_twiddle() -> None:
    # Stage s uses W_(2^(s+1))^j; the RTL reads ROM entry j * 2^(9 - s).
    words = rom_words()
    assert len(words) == ENTRIES
    for s in range(ref.STAGES):
        half = 1 << s
        wr, wi = ref._twiddles(half)
        for j in range(half):
            assert words[j << (9 - s)] == (int(wr[j]), int(wi[j])), (s, j)


def test_rtl_constants_match_refmodels() -> None:
    text = RTL.read_text()
    pkg = (REPO / PACKAGE_SV).read_text()
    assert int(_localparam(text, "FFT_ADVANCE")) == ref.FFT_ADVANCE
    assert int(_localparam(pkg, "CP_LEN_FIRST")) == cell_config.CP_FIRST
    assert int(_localparam(pkg, "CP_LEN_OTHER")) == cell_config.CP_OTHER
    assert int(_localparam(pkg, "FFT_SIZE")) == cell_config.N_FFT == 1 << ref.STAGES
    # The RTL halves on the stages whose bit 0 is set.
    assert "scale1_r <= stage_r[0];" in text
    assert ref.SCALED_STAGES == tuple(s for s in range(ref.STAGES) if s & 1)
    assert ref.FFT_SCALE == 1 << len(ref.SCALED_STAGES)


@pytest.mark.slow
@pytest.mark.anyio
async def test_fft_keeps_the_line_rate(
    registry: Registry, workspace: Workspace, vector_cases: dict[str, list[VectorCase]]
) -> None:
    block = registry.block("ofdm_demodulator")
    case = vector_cases[block.name][-1]
    full = case.model_copy(update={"plusargs": [*case.plusargs, "FULL_RATE"]})
    res = await run_case(simulator(workspace, "verilator"), block, full)
    assert res.status == Status.PASS, res.summary
    log = (workspace.root / res.artifacts["log"]).read_text()
    found = re.search(r"tb: subframe_cycles=(\d+)", log)
    assert found, log[-2000:]
    per_symbol = int(found[1]) / cell_config.N_SYMB_SF
    # One butterfly per cycle is the floor; the 15.36 Msps budget the ceiling.
    assert 5 * cell_config.N_FFT <= per_symbol < SYMBOL_BUDGET, per_symbol


@pytest.mark.slow
@pytest.mark.anyio
async def test_strong_tone_saturates_like_refmodels(
    registry: Registry, workspace: Workspace, scratch_set: VectorSet
) -> None:
    # A bin-centred tone of amplitude 0.7 is 0.7 * 1024 / 32 = 22.4 after the FFT: beyond
    # FFT_OUT's +-16 in whichever of I, Q its phase favours, positive and negative.
    rng = np.random.default_rng(5)
    n = np.arange(SUBFRAME_SAMPLES)
    x = 0.7 * np.exp(2j * np.pi * 5 * n / cell_config.N_FFT)
    x += 0.25 * np.exp(-2j * np.pi * 37 * n / cell_config.N_FFT)
    x += 0.01 * (rng.standard_normal(n.size) + 1j * rng.standard_normal(n.size))
    si, sq = quantise(x.real, IQ_SAMPLE), quantise(x.imag, IQ_SAMPLE)
    gi, gq = ref.ofdm_demodulate_fixed(si, sq)
    grid = np.concatenate([gi.ravel(), gq.ravel()])
    assert (grid == FFT_OUT.max_raw).any() and (grid == -FFT_OUT.max_raw).any()

    case_dir = scratch_set.root / f"ofdm-tone-{uuid.uuid4().hex[:8]}"
    case_dir.mkdir(mode=0o755)
    write_hex(case_dir / "stimulus_iq.hex", pack_iq(si, sq, IQ_SAMPLE.width), 2 * IQ_SAMPLE.width)
    write_hex(case_dir / "expected_grid_iq.hex", pack_iq(gi, gq, FFT_OUT.width), 2 * FFT_OUT.width)
    for path in case_dir.iterdir():
        path.chmod(0o644)
    where = str(case_dir.resolve())
    case = VectorCase(
        block="ofdm_demodulator",
        case="strong_tone",
        directory=where,
        plusargs=[f"VECTORS={where}", "N_SF=1", f"ABORT={SUBFRAME_SAMPLES // 3}"],
    )
    block = registry.block("ofdm_demodulator")
    res = await run_case(simulator(workspace, "verilator"), block, case)
    assert res.status == Status.PASS, (res.summary, res.first_mismatch)
    assert res.mismatch_count == 0 and (res.samples or 0) >= 2 * gi.size
