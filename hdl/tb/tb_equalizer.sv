`default_nettype none
`include "tb_harness.svh"
// Self-checking testbench of equalizer against refmodels vectors (equalizer generator).
// Plusargs: VECTORS=<case dir>, N=<REs>, optional SEED and FULL_RATE (no gaps, no
// back-pressure: the cycle count of bench/hdl_eq_chest_bench.py). n0_i and mmse_i come with
// each RE (stimulus_n0_mmse.hex) and carry random values while no RE is presented.
// Random input gaps and output back-pressure; a reset in the middle of the stream (pass 0),
// after which the whole case is replayed (pass 1). Every {X_I, X_Q}, every 1/N0_eff and every
// tlast are checked, s_axis_tready_o in every cycle (low only while an output beat waits) and
// each RE's latency: LATENCY cycles in which the pipeline advanced (tready high) from its
// accepted beat to its output beat.
module tb_equalizer;
  import lte_baseband_pkg::*;

  localparam int MAX_RE = 8400;
  localparam int LATENCY = 18;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int n_re = 0;
  logic [31:0] junk_r = '0;
  int adv_cnt = 0;  // cycles in which the pipeline advanced
  int accepted_at[MAX_RE];
  int seed = 1;
  int abort_at = 0;

  logic [FFT_TDATA_W-1:0] stim_y[MAX_RE];
  logic [CHAN_TDATA_W-1:0] stim_h[MAX_RE];
  logic [EQ_TDATA_W-1:0] exp_x[MAX_RE];
  logic [LLR_SCALE_W-1:0] exp_scale[MAX_RE];
  logic [NOISE_VAR_W:0] stim_n0_mmse[MAX_RE];  // {mmse_i, n0_i} per RE

  int in_idx = 0;
  int out_idx = 0;
  int cycle = 0;
  int errors = 0;
  int samples = 0;
  int pass_no = 0;
  int rst_cnt = 4;
  int limit = 0;
  logic gate_r = 1'b0;
  logic full_rate = 1'b0;
  int start_cycle = -1;
  logic ready_r = 1'b0;

  logic s_tvalid, s_tready, s_tlast;
  logic [EQ_IN_TDATA_W-1:0] s_tdata;
  logic [EQ_TDATA_W-1:0] m_tdata;
  logic [LLR_SCALE_W-1:0] m_tuser;
  logic m_tvalid, m_tlast;
  logic [NOISE_VAR_W-1:0] n0_w;
  logic mmse_w;

  equalizer dut (
      .clk(clk),
      .rst_n(rst_n),
      .n0_i(n0_w),
      .mmse_i(mmse_w),
      .s_axis_tdata_i(s_tdata),
      .s_axis_tvalid_i(s_tvalid),
      .s_axis_tready_o(s_tready),
      .s_axis_tlast_i(s_tlast),
      .m_axis_tdata_o(m_tdata),
      .m_axis_tuser_o(m_tuser),
      .m_axis_tvalid_o(m_tvalid),
      .m_axis_tready_i(ready_r),
      .m_axis_tlast_o(m_tlast)
  );

  always #5 clk = ~clk;

  assign n0_w = s_tvalid ? stim_n0_mmse[in_idx%MAX_RE][NOISE_VAR_W-1:0] : junk_r[NOISE_VAR_W-1:0];
  assign mmse_w = s_tvalid ? stim_n0_mmse[in_idx%MAX_RE][NOISE_VAR_W] : junk_r[31];
  assign s_tvalid = rst_n && gate_r && (in_idx < n_re);
  assign s_tdata = {stim_y[in_idx%MAX_RE], stim_h[in_idx%MAX_RE]};
  assign s_tlast = (in_idx == n_re - 1);

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("N=%d", n_re)) $fatal(1, "tb: +N missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    full_rate = $test$plusargs("FULL_RATE") != 0;
    if (n_re < 2 || n_re > MAX_RE) $fatal(1, "tb: N out of range for the harness");
    abort_at = n_re / 3;
    limit = 8 * n_re + 2000;
    $readmemh({dir, "/stimulus_y_iq.hex"}, stim_y, 0, n_re - 1);
    $readmemh({dir, "/stimulus_h_iq.hex"}, stim_h, 0, n_re - 1);
    $readmemh({dir, "/stimulus_n0_mmse.hex"}, stim_n0_mmse, 0, n_re - 1);
    $readmemh({dir, "/expected_x_iq.hex"}, exp_x, 0, n_re - 1);
    $readmemh({dir, "/expected_llr_scale.hex"}, exp_scale, 0, n_re - 1);
    seed = int'($urandom(seed));
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    junk_r <= $urandom;
    `TB_RESET_RELEASE
    if (rst_n) begin
      `TB_EXPECT("s_axis_tready_o", !(m_tvalid && !ready_r), s_tready)
      if (s_tready) adv_cnt <= adv_cnt + 1;
      if (s_tvalid && s_tready) accepted_at[in_idx%MAX_RE] = adv_cnt;
      if (s_tvalid && s_tready) in_idx <= in_idx + 1;
      if (s_tvalid && s_tready && pass_no == 1 && start_cycle < 0) start_cycle = cycle;
      if (m_tvalid && ready_r) begin
        samples = samples + 1;
        `TB_MISMATCH_IF(out_idx >= n_re || m_tdata !== exp_x[out_idx%MAX_RE],
                        "m_axis_tdata_o", exp_x[out_idx%MAX_RE], m_tdata)
        `TB_EXPECT("m_axis_tuser_o", exp_scale[out_idx%MAX_RE], m_tuser)
        `TB_EXPECT("m_axis_tlast_o", out_idx == n_re - 1, m_tlast)
        `TB_EXPECT("latency", LATENCY, adv_cnt - accepted_at[out_idx%MAX_RE])
        out_idx <= out_idx + 1;
        if (pass_no == 1 && out_idx + 1 == n_re) begin
          $display("tb: stream_cycles=%0d items=%0d", cycle - start_cycle + 1, n_re);
          `TB_FINISH
        end
      end
      if (pass_no == 0 && in_idx >= abort_at) begin
        rst_n <= 1'b0;
        rst_cnt <= 3;
        in_idx <= 0;
        out_idx <= 0;
        pass_no <= 1;
      end
    end
    `TB_HANDSHAKE(full_rate)
    `TB_WATCHDOG(limit, n_re, out_idx)
  end
endmodule
`default_nettype wire
