`default_nettype none
`include "tb_harness.svh"
// Self-checking end-to-end testbench of lte_baseband_top against refmodels vectors
// (lte_baseband_top generator: the 15360 IQ samples of an R.2 / R.31-1 subframe sent by the
// refmodels transmitter through AWGN, the configuration words, and the MAC PDU it carries).
// Plusargs: VECTORS=<case dir>, N_CFG (config words, the last one the commit), G (coded bits),
// C (code blocks), N_BYTES, CRC_OK (expected CRC-24A verdict), HARQ and CRC1_OK (a
// retransmission case, see tb_rx_passes.svh), optional PASSES (subframes back to back after
// the reset, default 2), SEED and FULL_RATE (no gaps, no back-pressure: for the cycle count).
// Pass 0 is cut by a reset in the middle of the subframe, passes 1 .. PASSES run back to back.
// Every pass is configured by its own committed words, written as soon as the top takes the
// previous ones (cfg_pending_o low), so pass n + 1's words are written while pass n is still
// being decoded: odd passes carry stimulus_config.hex, even ones stimulus_config2.hex (the
// retransmission's words in a HARQ case, else the same words with the NDI toggled, so that
// every pass is new data for the HARQ process). Checked per output byte: data, tlast, and on
// the last byte tuser (the CRC verdict).
module tb_lte_baseband_top;
  import lte_baseband_pkg::*;

  localparam int N_IQ = 15360;  // samples per subframe at 15.36 Msps
  localparam int MAX_BYTES = 4096;
  localparam int MAX_CFG = 16;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int n_cfg = 0;
  int g_bits = 0;
  int n_cb = 0;
  int n_bytes = 0;
  int crc_ok = 0;
  int harq = 0;
  int crc1_ok = 0;
  int last_pass = 2;
  int cfg_pass = 0;  // the pass whose configuration words are written
  logic cfg_sel;  // 1: stimulus_config2.hex's words
  logic cfg_pending;
  logic retx_in;  // the input pass is the retransmission
  int seed = 1;
  logic full_rate = 1'b0;
  int abort_at = 0;
  longint limit = 0;

  logic [31:0] cfg_words[MAX_CFG];
  logic [IQ_TDATA_W-1:0] stim_iq[N_IQ];
  logic [7:0] exp_byte[MAX_BYTES];
  logic [31:0] cfg2_words[MAX_CFG];
  logic [IQ_TDATA_W-1:0] stim2_iq[N_IQ];
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

  logic cfg_we;
  logic [3:0] cfg_addr;
  logic s_tvalid, s_tready;
  logic [7:0] m_tdata;
  logic m_tuser, m_tvalid, m_tlast;

  assign cfg_we = rst_n && (cfg_idx < n_cfg) && !cfg_pending;
  assign cfg_addr = cfg_idx[3:0];
  assign cfg_sel = (cfg_pass >= 2) && (cfg_pass % 2 == 0);

  lte_baseband_top dut (
      .clk(clk),
      .rst_n(rst_n),
      .cfg_we_i(cfg_we),
      .cfg_addr_i(cfg_addr),
      .cfg_wdata_i(cfg_sel ? cfg2_words[cfg_idx%MAX_CFG] : cfg_words[cfg_idx%MAX_CFG]),
      .cfg_pending_o(cfg_pending),
      .s_axis_tdata_i(retx_in ? stim2_iq[in_idx%N_IQ] : stim_iq[in_idx%N_IQ]),
      .s_axis_tvalid_i(s_tvalid),
      .s_axis_tready_o(s_tready),
      .m_axis_tdata_o(m_tdata),
      .m_axis_tuser_o(m_tuser),
      .m_axis_tvalid_o(m_tvalid),
      .m_axis_tready_i(ready_r),
      .m_axis_tlast_o(m_tlast)
  );

  always #5 clk = ~clk;

  assign retx_in = (harq != 0) && (in_pass == 2);
  assign s_tvalid = rst_n && gate_r && (in_pass <= last_pass);

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("N_CFG=%d", n_cfg)) $fatal(1, "tb: +N_CFG missing");
    if (!$value$plusargs("G=%d", g_bits)) $fatal(1, "tb: +G missing");
    if (!$value$plusargs("C=%d", n_cb)) $fatal(1, "tb: +C missing");
    if (!$value$plusargs("N_BYTES=%d", n_bytes)) $fatal(1, "tb: +N_BYTES missing");
    if (!$value$plusargs("CRC_OK=%d", crc_ok)) $fatal(1, "tb: +CRC_OK missing");
    if (!$value$plusargs("HARQ=%d", harq)) $fatal(1, "tb: +HARQ missing");
    if (!$value$plusargs("CRC1_OK=%d", crc1_ok)) $fatal(1, "tb: +CRC1_OK missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    if ($value$plusargs("PASSES=%d", last_pass) && (last_pass < 2 || (harq != 0 && last_pass != 2)))
      $fatal(1, "tb: PASSES must be >= 2 (2 in a HARQ case)");
    full_rate = $test$plusargs("FULL_RATE") != 0;
    if (n_cfg < 8 || n_cfg > MAX_CFG || n_bytes < 1 ||
        n_bytes > MAX_BYTES || n_cb < 1 || n_cb > 2)
      $fatal(1, "tb: case out of range for the harness");
    $readmemh({dir, "/stimulus_config.hex"}, cfg_words, 0, n_cfg - 1);
    $readmemh({dir, "/stimulus_iq.hex"}, stim_iq, 0, N_IQ - 1);
    $readmemh({dir, "/expected_tb_bytes.hex"}, exp_byte, 0, n_bytes - 1);
    if (harq == 0) $readmemh({dir, "/stimulus_config_ndi.hex"}, cfg2_words, 0, n_cfg - 1);
    if (harq != 0) begin
      $readmemh({dir, "/stimulus_config2.hex"}, cfg2_words, 0, n_cfg - 1);
      $readmemh({dir, "/stimulus_iq2.hex"}, stim2_iq, 0, N_IQ - 1);
      $readmemh({dir, "/expected_tb1_bytes.hex"}, exp1_byte, 0, n_bytes - 1);
    end
    abort_at = N_IQ / 3;
    // The passes' FFTs (5120 cycles a symbol), estimation, rate dematching and up to 8 turbo
    // iterations, with gaps.
    limit = (longint'(last_pass) + 1) * (14 * 5200 + 3 * 8400 + 4 * longint'(g_bits) +
                               longint'(n_cb) * 40 * 6200) * 3;
    seed = int'($urandom(seed));
  end

  // Who waits for whom, summed from pass 1 on (bench/hdl_e2e.py prints them per subframe): the IQ input held off, the FFT's grid output held, the estimator's output phase,
  // its estimates held by the demappers / equaliser / FIFO, the FIFO full, and symbols waiting
  // in the FIFO for the back end's configuration slot.
  longint st_in = 0, st_grid = 0, st_drain = 0, st_h = 0, st_full = 0, st_slot = 0;
  always @(posedge clk) begin
    if (rst_n && in_pass >= 1 && pass_no <= last_pass) begin
      if (s_tvalid && !s_tready) st_in <= st_in + 1;
      if (dut.grid_valid_w && !dut.grid_ready_w) st_grid <= st_grid + 1;
      if (dut.draining_r) st_drain <= st_drain + 1;
      if (dut.h_valid_w && !dut.h_ready_w) st_h <= st_h + 1;
      if (dut.x_valid_w && !dut.x_ready_w) st_full <= st_full + 1;
      if (dut.sym_valid_w && !dut.back_open_w) st_slot <= st_slot + 1;
    end
    // Totals up to each verdict (the last pass's may be cut by $finish).
    if (m_tvalid && ready_r && m_tlast)
      $display("tb: stalls passes=%0d in=%0d grid=%0d drain=%0d h=%0d fifo_full=%0d slot=%0d",
               pass_no, st_in, st_grid, st_drain, st_h, st_full, st_slot);
  end

  `define TB_IN_BEATS N_IQ
  `define TB_CFG_PER_PASS
  `include "tb_rx_passes.svh"
  `undef TB_CFG_PER_PASS
  `undef TB_IN_BEATS
endmodule
`default_nettype wire
