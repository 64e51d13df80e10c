`default_nettype none
`include "tb_harness.svh"
// Self-checking multi-subframe testbench of pdsch_rx_backend (behind lte_rx_config) for the
// HARQ entity (TS 36.321 5.3.2): a sequence of subframes from refmodels/harq_sequence.py, each
// with its own configuration words (HARQ process, NDI, rv, MCS, allocation, RNTI, TBS),
// equalised symbols and expected transport block, new and retransmitted blocks interleaved.
// Per subframe the 16 configuration words are written, its symbols sent (random gaps), and its
// bytes checked (random back-pressure); the next subframe's words are written once the last
// byte is out. Plusargs: VECTORS=<dir>, N_SF (subframes), RE_TOTAL, BYTES_TOTAL, optional
// SEED. Checked per byte: data, tlast, and tuser (the CRC-24A verdict) on the last.
module tb_pdsch_rx_seq;
  import lte_baseband_pkg::*;

  localparam int MAX_SF = 64;
  localparam int CFG_WORDS = 16;
  localparam int MAX_RE = 65536;
  localparam int MAX_BYTES = 16384;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int n_sf = 0;
  int re_total = 0;
  int bytes_total = 0;
  int seed = 1;

  logic [31:0] cfg_words[MAX_SF*CFG_WORDS];
  logic [EQ_TDATA_W-1:0] stim_iq[MAX_RE];
  logic [LLR_SCALE_W-1:0] stim_scale[MAX_RE];
  logic [15:0] sf_re[MAX_SF];

  int in_base = 0;
  longint cycle = 0;
  longint limit = 0;
  int errors = 0;
  int samples = 0;
  int rst_cnt = 4;
  logic gate_r = 1'b0;
  logic ready_r = 1'b0;

  `include "tb_seq_bytes.svh"
  `define TB_BE_CFG_WDATA cfg_words[(sf*CFG_WORDS+cfg_idx)%(MAX_SF*CFG_WORDS)]
  `define TB_BE_IQ stim_iq[(in_base+in_idx)%MAX_RE]
  `define TB_BE_SCALE stim_scale[(in_base+in_idx)%MAX_RE]
  `include "tb_backend_dut.svh"
  `undef TB_BE_CFG_WDATA
  `undef TB_BE_IQ
  `undef TB_BE_SCALE
  assign cfg_we = rst_n && (cfg_idx < CFG_WORDS) && (sf < n_sf);
  assign cfg_addr = cfg_idx[3:0];

  always #5 clk = ~clk;

  assign s_tvalid = rst_n && (sf < n_sf) && (cfg_idx >= CFG_WORDS) && !in_done && gate_r;
  assign s_tlast = (in_idx == int'(sf_re[sf%MAX_SF]) - 1);

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("N_SF=%d", n_sf)) $fatal(1, "tb: +N_SF missing");
    if (!$value$plusargs("RE_TOTAL=%d", re_total)) $fatal(1, "tb: +RE_TOTAL missing");
    if (!$value$plusargs("BYTES_TOTAL=%d", bytes_total)) $fatal(1, "tb: +BYTES_TOTAL missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    if (n_sf < 1 || n_sf > MAX_SF || re_total < 1 || re_total > MAX_RE || bytes_total < 1 ||
        bytes_total > MAX_BYTES)
      $fatal(1, "tb: case out of range for the harness");
    $readmemh({dir, "/seq_config.hex"}, cfg_words, 0, n_sf * CFG_WORDS - 1);
    $readmemh({dir, "/seq_eq_iq.hex"}, stim_iq, 0, re_total - 1);
    $readmemh({dir, "/seq_llr_scale.hex"}, stim_scale, 0, re_total - 1);
    $readmemh({dir, "/seq_n_re.hex"}, sf_re, 0, n_sf - 1);
    `TB_SEQ_READ
    // Demapping and rate dematching with gaps, up to 8 turbo iterations of 2 code blocks.
    limit = 3 * (8 * longint'(re_total) + longint'(n_sf) * 2 * 40 * 6200);
    seed = int'($urandom(seed));
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    `TB_RESET_RELEASE
    if (rst_n) begin
      if (cfg_we) cfg_idx <= cfg_idx + 1;
      if (s_tvalid && s_tready) begin
        in_idx <= in_idx + 1;
        if (s_tlast) in_done <= 1'b1;
      end
      if (`TB_SEQ_LAST) begin
        $display("tb: subframe %0d out at cycle %0d", sf, cycle);
        in_base <= in_base + int'(sf_re[sf%MAX_SF]);
      end
      `TB_SEQ_BYTES
    end
    `TB_HANDSHAKE(1'b0)
    `TB_WATCHDOG(limit, bytes_total, out_base + out_idx)
  end
endmodule
`default_nettype wire
