`default_nettype none
`include "tb_harness.svh"
// Self-checking multi-subframe testbench of lte_baseband_top (TS 36.321 5.3.2 HARQ entity over
// the whole receiver): a sequence of subframes from refmodels/top_sequence.py, each with its own
// configuration words (HARQ process, NDI, rv, MCS, allocation, RNTI, TBS) and 15360 IQ samples,
// new and retransmitted transport blocks interleaved. Per subframe the 16 configuration words
// are written, its samples sent (random gaps unless FULL_RATE), and its bytes checked (random
// back-pressure unless FULL_RATE); the next subframe's words are written once the last byte is
// out. Plusargs: VECTORS=<dir>, N_SF (subframes), BYTES_TOTAL, optional SEED and FULL_RATE.
// Checked per byte: data, tlast, and tuser (the CRC-24A verdict) on the last. Prints per
// subframe its first-sample-to-CRC latency (tb_cycles) and the cycles since the previous
// subframe's CRC (tb_interval).
module tb_lte_top_seq;
  import lte_baseband_pkg::*;

  localparam int N_IQ = 15360;  // samples per subframe at 15.36 Msps
  localparam int MAX_SF = 16;
  localparam int CFG_WORDS = 16;
  localparam int MAX_BYTES = 16384;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int n_sf = 0;
  int bytes_total = 0;
  int seed = 1;
  logic full_rate = 1'b0;

  logic [31:0] cfg_words[MAX_SF*CFG_WORDS];
  logic [IQ_TDATA_W-1:0] stim_iq[MAX_SF*N_IQ];

  longint cycle = 0;
  longint limit = 0;
  longint start_cycle = 0;
  longint end_cycle = 0;
  int errors = 0;
  int samples = 0;
  int rst_cnt = 4;
  logic gate_r = 1'b0;
  logic ready_r = 1'b0;

  logic cfg_we;
  logic [3:0] cfg_addr;
  logic s_tvalid, s_tready;
  logic [7:0] m_tdata;
  logic m_tuser, m_tvalid, m_tlast;
  `include "tb_seq_bytes.svh"

  assign cfg_we = rst_n && (cfg_idx < CFG_WORDS) && (sf < n_sf);
  assign cfg_addr = cfg_idx[3:0];

  lte_baseband_top dut (
      .clk(clk),
      .rst_n(rst_n),
      .cfg_we_i(cfg_we),
      .cfg_addr_i(cfg_addr),
      .cfg_wdata_i(cfg_words[(sf*CFG_WORDS+cfg_idx)%(MAX_SF*CFG_WORDS)]),
      .s_axis_tdata_i(stim_iq[(sf*N_IQ+in_idx)%(MAX_SF*N_IQ)]),
      .s_axis_tvalid_i(s_tvalid),
      .s_axis_tready_o(s_tready),
      .m_axis_tdata_o(m_tdata),
      .m_axis_tuser_o(m_tuser),
      .m_axis_tvalid_o(m_tvalid),
      .m_axis_tready_i(ready_r),
      .m_axis_tlast_o(m_tlast)
  );

  always #5 clk = ~clk;

  assign s_tvalid = rst_n && (sf < n_sf) && (cfg_idx >= CFG_WORDS) && !in_done && gate_r;

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("N_SF=%d", n_sf)) $fatal(1, "tb: +N_SF missing");
    if (!$value$plusargs("BYTES_TOTAL=%d", bytes_total)) $fatal(1, "tb: +BYTES_TOTAL missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    full_rate = $test$plusargs("FULL_RATE") != 0;
    if (n_sf < 1 || n_sf > MAX_SF || bytes_total < 1 || bytes_total > MAX_BYTES)
      $fatal(1, "tb: case out of range for the harness");
    $readmemh({dir, "/seq_config.hex"}, cfg_words, 0, n_sf * CFG_WORDS - 1);
    $readmemh({dir, "/seq_iq.hex"}, stim_iq, 0, n_sf * N_IQ - 1);
    `TB_SEQ_READ
    // Per subframe: FFT (5120 cycles a symbol), estimation, demapping and up to 8 turbo
    // iterations of 2 code blocks, with gaps.
    limit = 3 * longint'(n_sf) * (14 * 5200 + 3 * 8400 + 2 * 40 * 6200);
    seed = int'($urandom(seed));
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    `TB_RESET_RELEASE
    if (rst_n) begin
      if (cfg_we) cfg_idx <= cfg_idx + 1;
      if (s_tvalid && s_tready) begin
        if (in_idx == 0) start_cycle <= cycle;
        in_idx <= in_idx + 1;
        if (in_idx == N_IQ - 1) in_done <= 1'b1;
      end
      if (`TB_SEQ_LAST) begin
        // First input beat to CRC verdict out, and CRC to CRC (read by hdl/top_seq.py).
        $display("tb: sf=%0d tb_cycles=%0d tb_interval=%0d", sf, cycle - start_cycle + 1,
                 cycle - end_cycle);
        end_cycle <= cycle;
      end
      `TB_SEQ_BYTES
    end
    `TB_HANDSHAKE(full_rate)
    `TB_WATCHDOG(limit, bytes_total, out_base + out_idx)
  end
endmodule
`default_nettype wire
