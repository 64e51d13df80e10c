`default_nettype none
`include "tb_harness.svh"
// Self-checking testbench of pdsch_rx_backend (behind lte_rx_config) against refmodels vectors
// (lte_baseband_top generator: the equalised PDSCH symbols of an R.2 / R.31-1 subframe after
// the fixed-point front end, and the MAC PDU it carries). Plusargs: VECTORS=<case dir>,
// N_CFG (config words), N_RE (PDSCH symbols), G (coded bits), C (code blocks), N_BYTES,
// CRC_OK (expected CRC-24A verdict), HARQ and CRC1_OK (a retransmission case, see
// tb_rx_passes.svh), optional SEED and FULL_RATE (no gaps, no back-pressure:
// for the cycle count). The configuration words are written after every reset; pass 0 is cut
// by a reset in the middle of the subframe, passes 1 and 2 run the subframe back to back.
// Checked per output byte: data, tlast, and on the last byte tuser (the CRC verdict).
module tb_pdsch_rx_backend;
  import lte_baseband_pkg::*;

  localparam int MAX_RE = 8400;
  localparam int MAX_BYTES = 4096;
  localparam int MAX_CFG = 16;
  int last_pass = 2;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int n_cfg = 0;
  int n_re = 0;
  int g_bits = 0;
  int n_cb = 0;
  int n_bytes = 0;
  int crc_ok = 0;
  int harq = 0;
  int crc1_ok = 0;
  logic cfg_sel = 1'b0;  // 1: the retransmission's configuration words
  logic retx_in;  // the input pass is the retransmission
  int seed = 1;
  logic full_rate = 1'b0;
  int abort_at = 0;
  longint limit = 0;

  logic [31:0] cfg_words[MAX_CFG];
  logic [EQ_TDATA_W-1:0] stim_iq[MAX_RE];
  logic [LLR_SCALE_W-1:0] stim_scale[MAX_RE];
  logic [7:0] exp_byte[MAX_BYTES];
  logic [31:0] cfg2_words[MAX_CFG];
  logic [EQ_TDATA_W-1:0] stim2_iq[MAX_RE];
  logic [LLR_SCALE_W-1:0] stim2_scale[MAX_RE];
  logic [7:0] exp1_byte[MAX_BYTES];

  int in_idx = 0;
  int out_idx = 0;
  int cfg_idx = 0;
  longint cycle = 0;
  longint start_cycle = 0;
  longint end_cycle = 0;
  int errors = 0;
  int samples = 0;
  int pass_no = 0;  // output side
  int in_pass = 0;  // input side, runs ahead of the output
  int rst_cnt = 4;
  logic gate_r = 1'b0;
  logic ready_r = 1'b0;

  `define TB_BE_CFG_WDATA cfg_sel ? cfg2_words[cfg_idx%MAX_CFG] : cfg_words[cfg_idx%MAX_CFG]
  `define TB_BE_IQ retx_in ? stim2_iq[in_idx%MAX_RE] : stim_iq[in_idx%MAX_RE]
  `define TB_BE_SCALE retx_in ? stim2_scale[in_idx%MAX_RE] : stim_scale[in_idx%MAX_RE]
  `include "tb_backend_dut.svh"
  `undef TB_BE_CFG_WDATA
  `undef TB_BE_IQ
  `undef TB_BE_SCALE
  assign cfg_we = rst_n && (cfg_idx < n_cfg);
  assign cfg_addr = cfg_idx[3:0];

  always #5 clk = ~clk;

  assign retx_in = (harq != 0) && (in_pass == 2);
  assign s_tvalid = rst_n && (cfg_idx >= n_cfg) && gate_r && (in_pass <= last_pass) &&
      (!retx_in || cfg_sel);
  assign s_tlast = (in_idx == n_re - 1);

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("N_CFG=%d", n_cfg)) $fatal(1, "tb: +N_CFG missing");
    if (!$value$plusargs("N_RE=%d", n_re)) $fatal(1, "tb: +N_RE missing");
    if (!$value$plusargs("G=%d", g_bits)) $fatal(1, "tb: +G missing");
    if (!$value$plusargs("C=%d", n_cb)) $fatal(1, "tb: +C missing");
    if (!$value$plusargs("N_BYTES=%d", n_bytes)) $fatal(1, "tb: +N_BYTES missing");
    if (!$value$plusargs("CRC_OK=%d", crc_ok)) $fatal(1, "tb: +CRC_OK missing");
    if (!$value$plusargs("HARQ=%d", harq)) $fatal(1, "tb: +HARQ missing");
    if (!$value$plusargs("CRC1_OK=%d", crc1_ok)) $fatal(1, "tb: +CRC1_OK missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    full_rate = $test$plusargs("FULL_RATE") != 0;
    if (n_cfg < 8 || n_cfg > MAX_CFG || n_re < 1 || n_re > MAX_RE || n_bytes < 1 ||
        n_bytes > MAX_BYTES || n_cb < 1 || n_cb > 2)
      $fatal(1, "tb: case out of range for the harness");
    $readmemh({dir, "/stimulus_config.hex"}, cfg_words, 0, n_cfg - 1);
    $readmemh({dir, "/stimulus_eq_iq.hex"}, stim_iq, 0, n_re - 1);
    $readmemh({dir, "/stimulus_llr_scale.hex"}, stim_scale, 0, n_re - 1);
    $readmemh({dir, "/expected_tb_bytes.hex"}, exp_byte, 0, n_bytes - 1);
    if (harq != 0) begin
      $readmemh({dir, "/stimulus_config2.hex"}, cfg2_words, 0, n_cfg - 1);
      $readmemh({dir, "/stimulus_eq_iq2.hex"}, stim2_iq, 0, n_re - 1);
      $readmemh({dir, "/stimulus_llr_scale2.hex"}, stim2_scale, 0, n_re - 1);
      $readmemh({dir, "/expected_tb1_bytes.hex"}, exp1_byte, 0, n_bytes - 1);
    end
    abort_at = n_re / 3;
    // Three passes of demapping, rate dematching and up to 8 turbo iterations, with gaps.
    limit = 3 * (4 * longint'(g_bits) + longint'(n_cb) * 40 * 6200) * 3;
    seed = int'($urandom(seed));
  end

  `define TB_IN_BEATS n_re
  `include "tb_rx_passes.svh"
  `undef TB_IN_BEATS
endmodule
`default_nettype wire
