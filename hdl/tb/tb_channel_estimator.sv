`default_nettype none
`include "tb_harness.svh"
// Self-checking testbench of channel_estimator against refmodels vectors (channel_estimator
// generator). Plusargs: VECTORS=<case dir>, CELL=<N_ID>, SF=<subframe>, N0=<NOISE_VAR raw>,
// optional SEED and FULL_RATE (no gaps, no back-pressure: the cycle count of
// bench/hdl_eq_chest_bench.py). Random input gaps and output back-pressure. Pass 0 is reset in
// the middle of the input phase, pass 1 in the middle of the output phase, pass 2 runs the
// subframe whole. Every CHAN_EST beat, its tuser (N0) and tlast are checked.
module tb_channel_estimator;
  import lte_baseband_pkg::*;

  localparam int N_RE = 14 * 600;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int cell_no = -1;
  int sf_no = -1;
  int n0 = 0;
  int seed = 1;

  logic [FFT_TDATA_W-1:0] stim_grid[N_RE];
  logic [CHAN_TDATA_W-1:0] exp_h[N_RE];

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

  logic s_tvalid, s_tready;
  logic [FFT_TDATA_W-1:0] s_tdata;
  logic [CHAN_TDATA_W-1:0] m_tdata;
  logic [NOISE_VAR_W-1:0] m_tuser;
  logic m_tvalid, m_tlast;
  logic [N_CELL_ID_W-1:0] cell_w;
  logic [SUBFRAME_W-1:0] sf_w;

  channel_estimator dut (
      .clk(clk),
      .rst_n(rst_n),
      .cell_id_i(cell_w),
      .subframe_i(sf_w),
      .s_axis_tdata_i(s_tdata),
      .s_axis_tvalid_i(s_tvalid),
      .s_axis_tready_o(s_tready),
      .m_axis_tdata_o(m_tdata),
      .m_axis_tuser_o(m_tuser),
      .m_axis_tvalid_o(m_tvalid),
      .m_axis_tready_i(ready_r),
      .m_axis_tlast_o(m_tlast)
  );

  always #5 clk = ~clk;

  assign cell_w = N_CELL_ID_W'(cell_no);
  assign sf_w = SUBFRAME_W'(sf_no);
  assign s_tvalid = rst_n && gate_r && (in_idx < N_RE);
  assign s_tdata = stim_grid[in_idx%N_RE];

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("CELL=%d", cell_no)) $fatal(1, "tb: +CELL missing");
    if (!$value$plusargs("SF=%d", sf_no)) $fatal(1, "tb: +SF missing");
    if (!$value$plusargs("N0=%d", n0)) $fatal(1, "tb: +N0 missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    full_rate = $test$plusargs("FULL_RATE") != 0;
    if (cell_no < 0 || cell_no > 503 || sf_no < 0 || sf_no > 9)
      $fatal(1, "tb: CELL or SF out of range");
    limit = 12 * N_RE + 5000;
    $readmemh({dir, "/stimulus_grid_iq.hex"}, stim_grid, 0, N_RE - 1);
    $readmemh({dir, "/expected_h_iq.hex"}, exp_h, 0, N_RE - 1);
    seed = int'($urandom(seed));
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    `TB_RESET_RELEASE
    if (rst_n) begin
      if (s_tvalid && s_tready) in_idx <= in_idx + 1;
      if (s_tvalid && s_tready && pass_no == 2 && start_cycle < 0) start_cycle = cycle;
      if (m_tvalid && ready_r) begin
        samples = samples + 1;
        `TB_MISMATCH_IF(out_idx >= N_RE || m_tdata !== exp_h[out_idx%N_RE],
                        "m_axis_tdata_o", exp_h[out_idx%N_RE], m_tdata)
        `TB_EXPECT("m_axis_tuser_o", NOISE_VAR_W'(n0), m_tuser)
        `TB_EXPECT("m_axis_tlast_o", out_idx == N_RE - 1, m_tlast)
        out_idx <= out_idx + 1;
        if (pass_no == 2 && out_idx + 1 == N_RE) begin
          $display("tb: stream_cycles=%0d items=%0d", cycle - start_cycle + 1, N_RE);
          `TB_FINISH
        end
      end
      if ((pass_no == 0 && in_idx >= N_RE / 2) || (pass_no == 1 && out_idx >= N_RE / 3)) begin
        rst_n <= 1'b0;
        rst_cnt <= 3;
        in_idx <= 0;
        out_idx <= 0;
        pass_no <= pass_no + 1;
      end
    end
    `TB_HANDSHAKE(full_rate)
    `TB_WATCHDOG(limit, N_RE, out_idx)
  end
endmodule
`default_nettype wire
