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
        "le_scaled_w = le_w - (le_w >>> 2);",
        "le_scaled_w = le_w - (le_w >>> 1);",
    ),
    (
        "turbo_decoder",
        "off-by-one alpha address",
        "hdl/rtl/turbo_decoder.sv",
        "if (state_r == ST_FWD) alpha_mem_r[step_r[12:0]] <=",
        "if (state_r == ST_FWD) alpha_mem_r[step_r[12:0] + 13'd1] <=",
    ),
    (
        "turbo_decoder",
        "QPP increment off by one",
        "hdl/rtl/turbo_decoder.sv",
        "g0_r <= mod_add({3'd0, f1_i}, {2'd0, f2_i}, k_i);",
        "g0_r <= mod_add({3'd0, f1_i}, {2'd0, f2_i} + 11'd1, k_i);",
    ),
    (
        "turbo_decoder",
        "beat dropped under back-pressure",
        "hdl/rtl/turbo_decoder.sv",
        "          if (out_free_w) begin",
        "          if (1'b1) begin",
    ),
]


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
    sim = simulator(workspace, "iverilog")
    # The last case: 64QAM for the demapper, the registry's extra case where there is one.
    case = vector_cases[name][-1]
    result = await run_case(sim, block, case, design=design)
    assert result.status == Status.SIM_FAIL, (label, result.status, result.summary)
    assert result.first_mismatch is not None and (result.mismatch_count or 0) > 0
