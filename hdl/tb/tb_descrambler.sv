`default_nettype none
`include "tb_harness.svh"
// Self-checking testbench of descrambler against refmodels vectors (descrambler generator).
// Plusargs: VECTORS=<case dir>, N=<LLRs>, RNTI, CELL, SF, optional SEED. Random input gaps and
// random output back-pressure; a reset in the middle of the codeword (pass 0), after which the
// whole codeword is replayed (pass 1). Every output LLR and the tlast of the last one are checked.
module tb_descrambler;
  import lte_baseband_pkg::*;

  localparam int MAX_N = 32768;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int n_llr = 0;
  int rnti = 0;
  int cell_id_v = 0;
  int sf = 0;
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
      .rnti_i(rnti[RNTI_W-1:0]),
      .cell_id_i(cell_id_v[N_CELL_ID_W-1:0]),
      .subframe_i(sf[SUBFRAME_W-1:0]),
      .codeword_i(1'b0),
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
  assign s_tlast = (in_idx == n_llr - 1);

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("N=%d", n_llr)) $fatal(1, "tb: +N missing");
    if (!$value$plusargs("RNTI=%d", rnti)) $fatal(1, "tb: +RNTI missing");
    if (!$value$plusargs("CELL=%d", cell_id_v)) $fatal(1, "tb: +CELL missing");
    if (!$value$plusargs("SF=%d", sf)) $fatal(1, "tb: +SF missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    if (n_llr < 2 || n_llr > MAX_N) $fatal(1, "tb: N out of range for the harness");
    abort_at = n_llr / 3;
    limit = 8 * n_llr + 2000;
    $readmemh({dir, "/stimulus_llr_in.hex"}, stim, 0, n_llr - 1);
    $readmemh({dir, "/expected_llr_out.hex"}, exp_llr, 0, n_llr - 1);
    seed = int'($urandom(seed));
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    `TB_RESET_RELEASE
    if (rst_n) begin
      if (s_tvalid && s_tready) in_idx <= in_idx + 1;
      if (m_tvalid && ready_r) begin
        samples = samples + 1;
        `TB_MISMATCH_IF(out_idx >= n_llr || m_tdata !== exp_llr[out_idx%MAX_N],
                        "m_axis_tdata_o", exp_llr[out_idx%MAX_N], m_tdata)
        `TB_EXPECT("m_axis_tlast_o", out_idx == n_llr - 1, m_tlast)
        out_idx <= out_idx + 1;
        if (pass_no == 1 && out_idx + 1 == n_llr) begin
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
    `TB_HANDSHAKE(1'b0)
    `TB_WATCHDOG(limit, n_llr, out_idx)
  end
endmodule
`default_nettype wire
