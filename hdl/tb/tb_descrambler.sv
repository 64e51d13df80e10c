`default_nettype none
`include "tb_harness.svh"
// Self-checking testbench of descrambler against refmodels vectors (descrambler generator).
// Plusargs: VECTORS=<case dir>, N=<LLRs in all>, NCW=<codewords>, optional SEED. The codewords
// run back to back, each with its own {n, c_init} (rnti, q, subframe and cell on the
// configuration ports until its first LLR is accepted, random values after that). Random input
// gaps and output back-pressure; a reset in the middle of the stream (pass 0), after which
// every codeword is replayed (pass 1). Checked: every output LLR, tlast on each codeword's last
// LLR, that each codeword's first LLR waits 100 or 101 cycles (the warm-up) for tready, and
// that past it tready is low only while an output beat waits for m_axis_tready_i.
module tb_descrambler;
  import lte_baseband_pkg::*;

  localparam int MAX_N = 32768;
  localparam int MAX_CW = 8;
  localparam int WARM_MIN = 100;
  localparam int WARM_MAX = 101;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int n_llr = 0;
  int n_cw = 0;
  logic [47:0] cw_word[MAX_CW];
  logic cw_first[MAX_N];  // the codeword's first LLR
  logic cw_last[MAX_N];  // the codeword's last LLR
  int in_cw = 0;
  int wait_cnt = 0;
  logic [31:0] c_init_w;
  logic [31:0] noise_r = '0;
  int seed = 1;
  int abort_at = 0;

  logic [LLR_W-1:0] stim[MAX_N];
  logic [LLR_W-1:0] exp_llr[MAX_N];

  int in_idx = 0;
  int out_idx = 0;
  int cycle = 0;
  int errors = 0;
  int samples = 0;
  int pass_no = 0;
  int rst_cnt = 4;
  int limit = 0;
  logic gate_r = 1'b0;
  logic ready_r = 1'b0;

  logic s_tvalid, s_tready, s_tlast;
  logic [LLR_W-1:0] s_tdata;
  logic [LLR_W-1:0] m_tdata;
  logic m_tvalid, m_tlast;

  descrambler dut (
      .clk(clk),
      .rst_n(rst_n),
      .rnti_i(c_init_w[29:14]),
      .cell_id_i(c_init_w[8:0]),
      .subframe_i(c_init_w[12:9]),
      .codeword_i(c_init_w[13]),
      .s_axis_tdata_i(s_tdata),
      .s_axis_tvalid_i(s_tvalid),
      .s_axis_tready_o(s_tready),
      .s_axis_tlast_i(s_tlast),
      .m_axis_tdata_o(m_tdata),
      .m_axis_tvalid_o(m_tvalid),
      .m_axis_tready_i(ready_r),
      .m_axis_tlast_o(m_tlast)
  );

  always #5 clk = ~clk;

  assign s_tvalid = rst_n && gate_r && (in_idx < n_llr);
  assign s_tdata = stim[in_idx%MAX_N];
  assign s_tlast = (in_idx < n_llr) && cw_last[in_idx%MAX_N];
  // The codeword's configuration until its first LLR is accepted, then anything.
  assign c_init_w = (in_idx < n_llr && cw_first[in_idx%MAX_N]) ? cw_word[in_cw%MAX_CW][31:0] :
      noise_r;

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("N=%d", n_llr)) $fatal(1, "tb: +N missing");
    if (!$value$plusargs("NCW=%d", n_cw)) $fatal(1, "tb: +NCW missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    if (n_llr < 2 || n_llr > MAX_N) $fatal(1, "tb: N out of range for the harness");
    if (n_cw < 1 || n_cw > MAX_CW) $fatal(1, "tb: NCW out of range for the harness");
    abort_at = n_llr / 3;
    limit = 8 * n_llr + 2000;
    $readmemh({dir, "/stimulus_llr_in.hex"}, stim, 0, n_llr - 1);
    $readmemh({dir, "/expected_llr_out.hex"}, exp_llr, 0, n_llr - 1);
    $readmemh({dir, "/stimulus_codewords.hex"}, cw_word, 0, n_cw - 1);
    begin
      int at;
      at = 0;
      for (int i = 0; i < MAX_N; i++) begin
        cw_first[i] = 1'b0;
        cw_last[i] = 1'b0;
      end
      for (int c = 0; c < n_cw; c++) begin
        cw_first[at] = 1'b1;
        at = at + int'(cw_word[c][47:32]);
        if (at > n_llr) $fatal(1, "tb: codeword lengths exceed N");
        cw_last[at-1] = 1'b1;
      end
      if (at != n_llr) $fatal(1, "tb: codeword lengths do not add up to N");
    end
    seed = int'($urandom(seed));
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    `TB_RESET_RELEASE
    if (rst_n) begin
      noise_r <= $urandom;
      if (s_tvalid && !s_tready && cw_first[in_idx%MAX_N]) wait_cnt <= wait_cnt + 1;
      // Past the warm-up one LLR per cycle: tready low only while an output beat waits.
      `TB_MISMATCH_IF(s_tvalid && !s_tready && !cw_first[in_idx%MAX_N] && !(m_tvalid && !ready_r),
                      "s_axis_tready_o", 1'b1, s_tready)
      if (s_tvalid && s_tready) begin
        in_idx <= in_idx + 1;
        if (s_tlast) in_cw <= in_cw + 1;
        if (cw_first[in_idx%MAX_N]) begin
          // The warm-up: the first LLR waits while the m-sequences pass N_C.
          `TB_MISMATCH_IF(wait_cnt < WARM_MIN || wait_cnt > WARM_MAX, "s_axis_tready_o",
                          WARM_MIN, wait_cnt)
          wait_cnt <= 0;
        end
      end
      if (m_tvalid && ready_r) begin
        samples = samples + 1;
        `TB_MISMATCH_IF(out_idx >= n_llr || m_tdata !== exp_llr[out_idx%MAX_N],
                        "m_axis_tdata_o", exp_llr[out_idx%MAX_N], m_tdata)
        `TB_EXPECT("m_axis_tlast_o", out_idx < n_llr && cw_last[out_idx%MAX_N], m_tlast)
        out_idx <= out_idx + 1;
        if (pass_no == 1 && out_idx + 1 == n_llr) begin
          `TB_FINISH
        end
      end
      if (pass_no == 0 && in_idx >= abort_at) begin
        rst_n <= 1'b0;
        rst_cnt <= 3;
        in_idx <= 0;
        in_cw <= 0;
        wait_cnt <= 0;
        out_idx <= 0;
        pass_no <= 1;
      end
    end
    `TB_HANDSHAKE(1'b0)
    `TB_WATCHDOG(limit, n_llr, out_idx)
  end
endmodule
`default_nettype wire
