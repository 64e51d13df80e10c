`default_nettype none
`include "tb_harness.svh"
// Self-checking testbench of resource_demapper against refmodels vectors (resource_demapper
// generator). Plusargs: VECTORS=<case dir>, CELL, CFI, SF, RBMASK=<hex bitmap, bit = RB>,
// N_OUT=<PDSCH REs>, optional SEED. Random input gaps and output back-pressure; pass 0 is cut
// by a reset in the middle of the subframe, pass 1 and pass 2 run the subframe back to back.
// The configuration ports hold the case's values while a subframe's first RE is presented and
// random values on every other RE (the block takes them with the first RE).
module tb_resource_demapper;
  import lte_baseband_pkg::*;

  localparam int N_IN = N_SYMB_SUBFRAME * N_RB_DL_MAX * N_SC_RB;
  localparam int LAST_PASS = 2;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int cell_id_v = 0;
  int cfi = 0;
  int sf = 0;
  logic [N_RB_DL_MAX-1:0] rb_mask = '0;
  int n_out = 0;
  int seed = 1;
  int abort_at = N_IN / 3;

  logic [FFT_TDATA_W-1:0] stim[N_IN];
  logic [FFT_TDATA_W-1:0] exp_re[N_IN];

  int in_idx = 0;
  int out_idx = 0;
  int cycle = 0;
  int errors = 0;
  int samples = 0;
  int pass_no = 0;  // output side
  int in_pass = 0;  // input side, runs ahead of the output by up to one subframe
  int rst_cnt = 4;
  int limit = 20 * N_IN;
  logic gate_r = 1'b0;
  logic [63:0] noise_r = '0;
  logic [63:0] noise2_r = '0;
  logic at_first;
  logic ready_r = 1'b0;

  logic s_tvalid, s_tready, s_tlast;
  logic [FFT_TDATA_W-1:0] s_tdata;
  logic [FFT_TDATA_W-1:0] m_tdata;
  logic m_tvalid, m_tlast;

  resource_demapper dut (
      .clk(clk),
      .rst_n(rst_n),
      .cell_id_i(at_first ? cell_id_v[N_CELL_ID_W-1:0] : noise_r[N_CELL_ID_W-1:0]),
      .cfi_i(at_first ? cfi[1:0] : noise_r[17:16]),
      .subframe_i(at_first ? sf[SUBFRAME_W-1:0] : noise_r[27:24]),
      .rb_mask_i(at_first ? rb_mask : noise2_r[N_RB_DL_MAX-1:0]),
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

  assign s_tvalid = rst_n && gate_r && (in_pass <= LAST_PASS);
  assign s_tdata = stim[in_idx%N_IN];
  assign s_tlast = (in_idx == N_IN - 1);
  assign at_first = (in_idx == 0);

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("CELL=%d", cell_id_v)) $fatal(1, "tb: +CELL missing");
    if (!$value$plusargs("CFI=%d", cfi)) $fatal(1, "tb: +CFI missing");
    if (!$value$plusargs("SF=%d", sf)) $fatal(1, "tb: +SF missing");
    if (!$value$plusargs("RBMASK=%h", rb_mask)) $fatal(1, "tb: +RBMASK missing");
    if (!$value$plusargs("N_OUT=%d", n_out)) $fatal(1, "tb: +N_OUT missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    if (n_out < 1 || n_out > N_IN) $fatal(1, "tb: N_OUT out of range");
    $readmemh({dir, "/stimulus_grid_iq.hex"}, stim, 0, N_IN - 1);
    $readmemh({dir, "/expected_pdsch_iq.hex"}, exp_re, 0, n_out - 1);
    seed = int'($urandom(seed));
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    `TB_RESET_RELEASE
    if (rst_n) begin
      noise_r <= {$urandom, $urandom};
      noise2_r <= {$urandom, $urandom};
      if (s_tvalid && s_tready) begin
        in_idx <= (in_idx == N_IN - 1) ? 0 : in_idx + 1;
        if (in_idx == N_IN - 1) in_pass <= in_pass + 1;
      end
      if (m_tvalid && ready_r) begin
        samples = samples + 1;
        `TB_MISMATCH_IF(out_idx >= n_out || m_tdata !== exp_re[out_idx%N_IN],
                        "m_axis_tdata_o", exp_re[out_idx%N_IN], m_tdata)
        `TB_EXPECT("m_axis_tlast_o", out_idx == n_out - 1, m_tlast)
        out_idx <= out_idx + 1;
        if (out_idx + 1 == n_out) begin
          if (pass_no == LAST_PASS) begin
            `TB_FINISH
          end
          out_idx <= 0;
          pass_no <= pass_no + 1;
        end
      end
      if (in_pass == 0 && in_idx >= abort_at) begin
        rst_n <= 1'b0;
        rst_cnt <= 3;
        in_idx <= 0;
        in_pass <= 1;
        out_idx <= 0;
        pass_no <= 1;
      end
    end
    `TB_HANDSHAKE(1'b0)
    `TB_WATCHDOG(limit, n_out, out_idx)
  end
endmodule
`default_nettype wire
