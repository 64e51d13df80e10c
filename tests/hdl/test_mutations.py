"""Single-line bugs in each block are caught by its testbench (SIM_FAIL on Icarus).

Each mutation is applied to a copy of one design file inside the workspace; the original is
never touched. The text to replace must occur exactly once, so a refactor that removes it
makes this test fail instead of silently testing nothing.
"""

from __future__ import annotations

import uuid

import pytest

from hdl.registry import REPO, Registry
from hdl.sim import VectorCase, VectorSet, run_case, simulator
from servers.core.models import Status
from servers.core.workspace import Workspace

pytestmark = pytest.mark.anyio

PKG = "hdl/pkg/lte_baseband_pkg.sv"

# (block, label, file, original text, mutated text); run on the block's last default case.
MUTATIONS: list[tuple[str, str, str, str, str]] = [
    (
        "crc_checker",
        "flipped polynomial bit",
        PKG,
        "CRC24B_POLY = 24'h800063",
        "CRC24B_POLY = 24'h800061",
    ),
    (
        "crc_checker",
        "off-by-one feedback tap",
        "hdl/rtl/crc_checker.sv",
        "(first_r ? 1'b0 : crc_r[CRC_W-1])",
        "(first_r ? 1'b0 : crc_r[CRC_W-2])",
    ),
    (
        "crc_checker",
        "verdict dropped under back-pressure",
        "hdl/rtl/crc_checker.sv",
        "if (out_valid_r && m_axis_tready_i) out_valid_r <= 1'b0;",
        "if (out_valid_r) out_valid_r <= 1'b0;",
    ),
    (
        "descrambler",
        "dropped x2 tap",
        "hdl/rtl/descrambler.sv",
        "x2_r <= {x2_r[3] ^ x2_r[2] ^ x2_r[1] ^ x2_r[0], x2_r[C_INIT_W-1:1]};",
        "x2_r <= {x2_r[3] ^ x2_r[1] ^ x2_r[0], x2_r[C_INIT_W-1:1]};",
    ),
    (
        "descrambler",
        "off-by-one warm-up length",
        "hdl/rtl/descrambler.sv",
        "localparam logic [WARM_CNT_W-1:0] WARM_LAST = 1;",
        "localparam logic [WARM_CNT_W-1:0] WARM_LAST = 2;",
    ),
    (
        "descrambler",
        "cell-id field shifted in c_init",
        "hdl/rtl/descrambler.sv",
        "{rnti_i, codeword_i, subframe_i, cell_id_i}",
        "{rnti_i, codeword_i, subframe_i, cell_id_i[7:0], 1'b0}",
    ),
    (
        "descrambler",
        "beat dropped under back-pressure",
        "hdl/rtl/descrambler.sv",
        "(state_r == ST_RUN) && (!out_valid_r || m_axis_tready_i)",
        "(state_r == ST_RUN)",
    ),
    (
        "qam_demodulator",
        "off-by-one axis bit",
        "hdl/rtl/qam_demodulator.sv",
        "pos = nb - 2'd1 - bit_idx_r[2:1];",
        "pos = nb - bit_idx_r[2:1];",
    ),
    (
        "qam_demodulator",
        "I and Q swapped",
        "hdl/rtl/qam_demodulator.sv",
        "y = bit_idx_r[0] ? sym_q_r : sym_i_r;",
        "y = bit_idx_r[0] ? sym_i_r : sym_q_r;",
    ),
    (
        "qam_demodulator",
        "64QAM level off",
        "hdl/rtl/qam_demodulator.sv",
        "2'd2: mag = 16'sd3160;",
        "2'd2: mag = 16'sd3100;",
    ),
    (
        "qam_demodulator",
        "beat dropped under back-pressure",
        "hdl/rtl/qam_demodulator.sv",
        "assign d_ready_w = !d_valid_r || out_ready_w;",
        "assign d_ready_w = 1'b1;",
    ),
    (
        "qam_demodulator",
        "beat dropped at the nearest-level stage",
        "hdl/rtl/qam_demodulator.sv",
        "assign n_ready_w = !n_valid_r || d_ready_w;",
        "assign n_ready_w = 1'b1;",
    ),
    (
        "qam_demodulator",
        "farthest bit-1 level kept",
        "hdl/rtl/qam_demodulator.sv",
        "if (key1[p+step] < key1[p]) begin",
        "if (key1[p+step] > key1[p]) begin",
    ),
    (
        "rate_dematcher",
        "column permutation bits swapped",
        "hdl/rtl/rate_dematcher.sv",
        "perm = {col[0], col[1], col[2], col[3], col[4]};",
        "perm = {col[0], col[1], col[2], col[4], col[3]};",
    ),
    (
        "rate_dematcher",
        "off-by-one k0 column",
        "hdl/rtl/rate_dematcher.sv",
        "* {5'd0, rv_r} + 7'd2;",
        "* {5'd0, rv_r} + 7'd1;",
    ),
    (
        "rate_dematcher",
        "d(2) interleaver shift lost",
        "hdl/rtl/rate_dematcher.sv",
        "+ {1'b0, row_r, 5'd0} + 14'd1;",
        "+ {1'b0, row_r, 5'd0};",
    ),
    (
        "rate_dematcher",
        "filler bits not skipped",
        "hdl/rtl/rate_dematcher.sv",
        "((stream_w != 2'd2) && (src_w < {7'd0, f_r}))",
        "((stream_w != 2'd2) && 1'b0)",
    ),
    (
        "rate_dematcher",
        "beat dropped under back-pressure",
        "hdl/rtl/rate_dematcher.sv",
        "          if (out_free_w) begin",
        "          if (1'b1) begin",
    ),
    (
        "rate_dematcher",
        "HARQ retransmission not combined (buffer cleared)",
        "hdl/rtl/rate_dematcher.sv",
        "state_r <= combine_r ? ST_RUN : ST_CLEAR;",
        "state_r <= ST_CLEAR;",
    ),
    (
        "rate_dematcher",
        "one soft buffer for every code block (buf_i ignored)",
        "hdl/rtl/rate_dematcher.sv",
        "base_r <= MEM_W'(buf_w) * BUF_STRIDE;",
        "base_r <= '0;",
    ),
    (
        "resource_demapper",
        "CRS shift of l = 4, 11 lost",
        "hdl/rtl/resource_demapper.sv",
        "crs_k = (vshift_w >= 3'd3) ? vshift_w - 3'd3 : vshift_w + 3'd3;",
        "crs_k = vshift_w;",
    ),
    (
        "resource_demapper",
        "off-by-one central 72 subcarriers",
        "hdl/rtl/resource_demapper.sv",
        "SYNC_K_FIRST = 10'(N_SC / 2 - 36);",
        "SYNC_K_FIRST = 10'(N_SC / 2 - 35);",
    ),
    (
        "resource_demapper",
        "PBCH one symbol short",
        "hdl/rtl/resource_demapper.sv",
        "(sym_r <= 4'd10)",
        "(sym_r <= 4'd9)",
    ),
    (
        "resource_demapper",
        "control region off by one",
        "hdl/rtl/resource_demapper.sv",
        "({2'b0, sym_r} >= {4'b0, cfi_w})",
        "({2'b0, sym_r} > {4'b0, cfi_w})",
    ),
    (
        "resource_demapper",
        "beat dropped under back-pressure",
        "hdl/rtl/resource_demapper.sv",
        "assign s_axis_tready_o = !pdsch_w || !out_valid_r || m_axis_tready_i;",
        "assign s_axis_tready_o = 1'b1;",
    ),
    (
        "turbo_decoder",
        "flipped CRC-24A polynomial bit",
        PKG,
        "CRC24A_POLY = 24'h864CFB",
        "CRC24A_POLY = 24'h864CFA",
    ),
    (
        "turbo_decoder",
        "trellis branch swapped",
        "hdl/rtl/turbo_decoder.sv",
        "n[1] = max2(a[2] + g2_w, a[3] + g1_w);",
        "n[1] = max2(a[2] + g1_w, a[3] + g2_w);",
    ),
    (
        "turbo_decoder",
        "extrinsic scaled by 0.5",
        "hdl/rtl/turbo_decoder.sv",
        "le_sc_l = le_w - (le_w >>> 2);",
        "le_sc_l = le_w - (le_w >>> 1);",
    ),
    (
        "turbo_decoder",
        "interleaver bank carry dropped",
        "hdl/rtl/turbo_decoder.sv",
        "pb_r[q] <= (pb_r[q] + gb_r[q] + BK_W'(sp[OFF_W])) & last_w;",
        "pb_r[q] <= (pb_r[q] + gb_r[q]) & last_w;",
    ),
    (
        "turbo_decoder",
        "boundary alpha handed over from the other decoder",
        "hdl/rtl/turbo_decoder.sv",
        ": a_bnd_r[!dec2_r][s*SM_W+:SM_W]);",
        ": a_bnd_r[dec2_r][s*SM_W+:SM_W]);",
    ),
    (
        "turbo_decoder",
        "forward pass one trellis step short",
        "hdl/rtl/turbo_decoder.sv",
        "(j_r == m_w + OFF_TWO);",
        "(j_r == m_w + OFF_ONE);",
    ),
    (
        "turbo_decoder",
        "beat dropped under back-pressure",
        "hdl/rtl/turbo_decoder.sv",
        "end else if (out_free_w) begin",
        "end else if (1'b1) begin",
    ),
    (
        "dl_sch_processor",
        "flipped CRC-24A polynomial bit (TB check)",
        PKG,
        "CRC24A_POLY = 24'h864CFB",
        "CRC24A_POLY = 24'h864CBB",
    ),
    (
        "dl_sch_processor",
        "off-by-one filler count",
        "hdl/rtl/dl_sch_processor.sv",
        "fill_w = first_r ? filler_i : fill_left_r;",
        "fill_w = first_r ? filler_i + 6'd1 : fill_left_r;",
    ),
    (
        "dl_sch_processor",
        "CRC-24B delay line one bit short",
        "hdl/rtl/dl_sch_processor.sv",
        "localparam logic [4:0] DLY_FULL = 5'(CRC_W);",
        "localparam logic [4:0] DLY_FULL = 5'(CRC_W - 1);",
    ),
    (
        "dl_sch_processor",
        "byte dropped under back-pressure",
        "hdl/rtl/dl_sch_processor.sv",
        "assign s_axis_tready_o = !out_valid_r || m_axis_tready_i;",
        "assign s_axis_tready_o = 1'b1;",
    ),
    (
        "equalizer",
        "MMSE denominator without N0",
        "hdl/rtl/equalizer.sv",
        "den = mul_mmse_r ? DEN_W'(mul_pow_r) + DEN_W'(mul_n0_r) : DEN_W'(mul_pow_r);",
        "den = DEN_W'(mul_pow_r);",
    ),
    (
        "equalizer",
        "negative quotient truncated instead of floored",
        "hdl/rtl/equalizer.sv",
        "mag_i = prep_neg_i_w ? $unsigned(-nx_i) + NX_W'(prep_dx_w - DX_ONE) : $unsigned(nx_i);",
        "mag_i = prep_neg_i_w ? $unsigned(-nx_i) : $unsigned(nx_i);",
    ),
    (
        "equalizer",
        "divider stage compares strictly",
        "hdl/rtl/restoring_div_stage.sv",
        "assign take_w = (rem_i >> SHIFT) >= REM_W'(den_w);",
        "assign take_w = (rem_i >> SHIFT) > REM_W'(den_w);",
    ),
    (
        "equalizer",
        "pipeline advances under back-pressure",
        "hdl/rtl/equalizer.sv",
        "assign adv_w = !out_valid_r || m_axis_tready_i;",
        "assign adv_w = 1'b1;",
    ),
    (
        "channel_estimator",
        "CRS c_init without the l + 1 term's 1",
        "hdl/rtl/channel_estimator.sv",
        "8'(l_slot) + 8'd1;",
        "8'(l_slot);",
    ),
    (
        "channel_estimator",
        "later CRS symbol's pilot offset taken from the wrong v",
        "hdl/rtl/channel_estimator.sv",
        "assign sh_next_b_w = tw_w[6] ? vs3_r : vs_r;",
        "assign sh_next_b_w = tw_w[7] ? vs3_r : vs_r;",
    ),
    (
        "channel_estimator",
        "noise differences against the wrong CRS symbol",
        "hdl/rtl/channel_estimator.sv",
        "addr_a_r <= p0_addr_r - ROW2_OFFSET;",
        "addr_a_r <= p0_addr_r - ROW_STRIDE;",
    ),
    (
        "channel_estimator",
        "estimate dropped under back-pressure",
        "hdl/rtl/channel_estimator.sv",
        "assign adv_w = !out_valid_r || m_axis_tready_i;",
        "assign adv_w = 1'b1;",
    ),
    (
        "ofdm_demodulator",
        "conjugated twiddle (sign of Im W)",
        "hdl/rtl/ofdm_demodulator.sv",
        "assign w_im_w = $signed(tw1_r[TW_W-1:0]);",
        "assign w_im_w = -$signed(tw1_r[TW_W-1:0]);",
    ),
    (
        "ofdm_demodulator",
        "first CP of a slot one sample long",
        "hdl/rtl/ofdm_demodulator.sv",
        "localparam int CP_FIRST = CP_LEN_FIRST >> SHRINK;",
        "localparam int CP_FIRST = (CP_LEN_FIRST + 1) >> SHRINK;",
    ),
    (
        "ofdm_demodulator",
        "twiddle product truncated instead of rounded",
        "hdl/rtl/ofdm_demodulator.sv",
        "tr_sum_w = SW'(m_rr_r) - SW'(m_ii_r) + SW'(1 << (TW_FRAC - 1));",
        "tr_sum_w = SW'(m_rr_r) - SW'(m_ii_r);",
    ),
    (
        "ofdm_demodulator",
        "beat dropped under back-pressure",
        "hdl/rtl/ofdm_demodulator.sv",
        "assign pop_w = (fifo_cnt_r != 2'd0) && m_axis_tready_i;",
        "assign pop_w = (fifo_cnt_r != 2'd0);",
    ),
    (
        "pdsch_rx_backend",
        "codeword 1 scrambling sequence",
        "hdl/rtl/pdsch_rx_backend.sv",
        ".codeword_i(1'b0),",
        ".codeword_i(1'b1),",
    ),
    (
        "pdsch_rx_backend",
        "rate dematcher wired to the wrong redundancy version",
        "hdl/rtl/pdsch_rx_backend.sv",
        ".rv_i(rv_i),",
        ".rv_i(rv_i + 2'd1),",
    ),
    (
        "pdsch_rx_backend",
        "demapper wired to a fixed modulation",
        "hdl/rtl/pdsch_rx_backend.sv",
        ".modulation_i(modulation_i),",
        ".modulation_i(MOD_16QAM),",
    ),
    (
        "pdsch_rx_backend",
        "HARQ retransmission not combined in the back end",
        "hdl/rtl/pdsch_rx_backend.sv",
        ".combine_i(combine_i),",
        ".combine_i(1'b0),",
    ),
    (
        "lte_baseband_top",
        "combine bit not passed to the back end",
        "hdl/rtl/lte_baseband_top.sv",
        ".combine_i(combine_w),",
        ".combine_i(1'b0),",
    ),
    (
        "lte_baseband_top",
        "buffered Y read one RE ahead of its H",
        "hdl/rtl/lte_baseband_top.sv",
        "assign dm_in_w[0] = grid_mem_r[rd_idx_r];",
        "assign dm_in_w[0] = grid_mem_r[rd_idx_r+1'b1];",
    ),
    (
        "lte_baseband_top",
        "demappers never see the subframe end",
        "hdl/rtl/lte_baseband_top.sv",
        ".s_axis_tlast_i(h_last_w),",
        ".s_axis_tlast_i(1'b0),",
    ),
]

# Blocks whose mutants run on Verilator: Icarus needs about 5 minutes per lte_baseband_top run,
# and over a minute per broken pdsch_rx_backend run (8 turbo iterations once the CRC fails).
VERILATOR_MUTANTS = {"lte_baseband_top", "pdsch_rx_backend"}
# Mutants that only a particular case can show (the others run on the block's last case).
CASE_FOR = {
    "HARQ retransmission not combined in the back end": "harq_16qam_rv2",
    "combine bit not passed to the back end": "harq_r2_rv2",
}


@pytest.mark.parametrize(
    ("name", "label", "path", "original", "mutant"), MUTATIONS, ids=[m[1] for m in MUTATIONS]
)
async def test_mutation_is_caught(
    name: str,
    label: str,
    path: str,
    original: str,
    mutant: str,
    registry: Registry,
    workspace: Workspace,
    vector_cases: dict[str, list[VectorCase]],
    scratch_set: VectorSet,
) -> None:
    block = registry.block(name)
    text = (REPO / path).read_text()
    assert text.count(original) == 1, f"{label}: mutation site not found once in {path}"
    copy_dir = scratch_set.root / uuid.uuid4().hex[:8]
    copy_dir.mkdir(mode=0o755)
    copy = copy_dir / path.rsplit("/", 1)[-1]
    copy.write_text(text.replace(original, mutant))
    copy.chmod(0o644)
    design = [workspace.relative(copy) if f == path else f for f in block.rtl]
    sim = simulator(workspace, "verilator" if name in VERILATOR_MUTANTS else "iverilog")
    # The last case: 64QAM for the demapper, the registry's extra case where there is one.
    case = vector_cases[name][-1]
    if label in CASE_FOR:
        case = next(c for c in vector_cases[name] if c.case == CASE_FOR[label])
    result = await run_case(sim, block, case, design=design)
    assert result.status == Status.SIM_FAIL, (label, result.status, result.summary)
    assert result.first_mismatch is not None and (result.mismatch_count or 0) > 0
    # The server's trace of the DUT's output beats finds the bug as well (agreement).
    assert result.trace is not None and not result.trace.passed and result.trace.agrees
