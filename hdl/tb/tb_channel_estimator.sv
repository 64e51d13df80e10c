`default_nettype none
`include "tb_harness.svh"
// Self-checking testbench of channel_estimator against refmodels vectors (channel_estimator
// generator). Plusargs: VECTORS=<case dir>, N_SF=<subframes, 1..MAX_SF>, optional SEED and
// FULL_RATE (no gaps, no back-pressure: the cycle count of bench/hdl_eq_chest_bench.py). The
// case's subframes follow back to back, each with its {cell_id_i, subframe_i}
// (stimulus_cfg.hex), held while its first RE is presented and random on every other RE (the
// block takes them with the first RE). Random input gaps and output back-pressure. Pass 0 is
// reset a quarter into the first subframe's input phase, pass 1 a sixth into its output
// phase, pass 2 runs every subframe whole. Every CHAN_EST beat, its tuser (the subframe's N0)
// and tlast are checked, and s_axis_tready_o stays low from a subframe's last RE until its
// last estimate has left (no overlap).
module tb_channel_estimator;
  import lte_baseband_pkg::*;

  localparam int N_RE = 14 * 600;
  localparam int MAX_SF = 3;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int n_sf = 1;
  int seed = 1;

  logic [FFT_TDATA_W-1:0] stim_grid[MAX_SF*N_RE];
  logic [N_CELL_ID_W+SUBFRAME_W-1:0] stim_cfg[MAX_SF];
  logic [CHAN_TDATA_W-1:0] exp_h[MAX_SF*N_RE];
  logic [NOISE_VAR_W-1:0] exp_n0[MAX_SF];

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
  logic [31:0] junk_r = '0;

  logic s_tvalid, s_tready;
  logic [FFT_TDATA_W-1:0] s_tdata;
  logic [CHAN_TDATA_W-1:0] m_tdata;
  logic [NOISE_VAR_W-1:0] m_tuser;
  logic m_tvalid, m_tlast;
  logic [N_CELL_ID_W+SUBFRAME_W-1:0] cfg_w;
  logic at_first;

  channel_estimator dut (
      .clk(clk),
      .rst_n(rst_n),
      .cell_id_i(cfg_w[N_CELL_ID_W+SUBFRAME_W-1:SUBFRAME_W]),
      .subframe_i(cfg_w[SUBFRAME_W-1:0]),
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

  assign at_first = (in_idx % N_RE == 0);
  assign cfg_w = at_first ? stim_cfg[(in_idx/N_RE)%MAX_SF] : junk_r[N_CELL_ID_W+SUBFRAME_W-1:0];
  assign s_tvalid = rst_n && gate_r && (in_idx < n_sf * N_RE);
  assign s_tdata = stim_grid[in_idx%(MAX_SF*N_RE)];

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("N_SF=%d", n_sf)) $fatal(1, "tb: +N_SF missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    full_rate = $test$plusargs("FULL_RATE") != 0;
    if (n_sf < 1 || n_sf > MAX_SF) $fatal(1, "tb: N_SF out of range for the harness");
    limit = 6 * (n_sf + 1) * N_RE + 5000;
    $readmemh({dir, "/stimulus_grid_iq.hex"}, stim_grid, 0, n_sf * N_RE - 1);
    $readmemh({dir, "/stimulus_cfg.hex"}, stim_cfg, 0, n_sf - 1);
    $readmemh({dir, "/expected_h_iq.hex"}, exp_h, 0, n_sf * N_RE - 1);
    $readmemh({dir, "/expected_n0.hex"}, exp_n0, 0, n_sf - 1);
    seed = int'($urandom(seed));
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    junk_r <= $urandom;
    `TB_RESET_RELEASE
    if (rst_n) begin
      // Not overlapped: no RE of the next subframe while an estimate of this one is to leave.
      `TB_MISMATCH_IF(s_tready && in_idx > 0 && at_first && out_idx < in_idx, "s_axis_tready_o",
                      1'b0, s_tready)
      if (s_tvalid && s_tready) in_idx <= in_idx + 1;
      if (s_tvalid && s_tready && pass_no == 2 && start_cycle < 0) start_cycle = cycle;
      if (m_tvalid && ready_r) begin
        samples = samples + 1;
        `TB_MISMATCH_IF(out_idx >= n_sf * N_RE || m_tdata !== exp_h[out_idx%(MAX_SF*N_RE)],
                        "m_axis_tdata_o", exp_h[out_idx%(MAX_SF*N_RE)], m_tdata)
        `TB_EXPECT("m_axis_tuser_o", exp_n0[(out_idx/N_RE)%MAX_SF], m_tuser)
        `TB_EXPECT("m_axis_tlast_o", out_idx % N_RE == N_RE - 1, m_tlast)
        out_idx <= out_idx + 1;
        if (pass_no == 2 && out_idx + 1 == n_sf * N_RE) begin
          $display("tb: stream_cycles=%0d items=%0d", cycle - start_cycle + 1, n_sf * N_RE);
          `TB_FINISH
        end
      end
      if ((pass_no == 0 && in_idx >= N_RE / 4) || (pass_no == 1 && out_idx >= N_RE / 6)) begin
        rst_n <= 1'b0;
        rst_cnt <= 3;
        in_idx <= 0;
        out_idx <= 0;
        pass_no <= pass_no + 1;
      end
    end
    `TB_HANDSHAKE(full_rate)
    `TB_WATCHDOG(limit, n_sf * N_RE, out_idx)
  end
endmodule
`default_nettype wire
