`default_nettype none
`include "tb_harness.svh"
// Self-checking testbench of qam_demodulator against refmodels vectors (qam_demodulator
// generator). Plusargs: VECTORS=<case dir>, N=<symbols>, QM=<2|4|6>, optional SEED. Random
// input gaps and output back-pressure; a reset in the middle of the stream (pass 0), after
// which the whole case is replayed (pass 1). Every LLR and the final tlast are checked.
module tb_qam_demodulator;
  import lte_baseband_pkg::*;

  localparam int MAX_SYM = 8192;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int n_sym = 0;
  int qm = 0;
  int n_out = 0;
  int seed = 1;
  int abort_at = 0;

  logic [EQ_TDATA_W-1:0] stim_iq[MAX_SYM];
  logic [LLR_SCALE_W-1:0] stim_scale[MAX_SYM];
  logic [LLR_W-1:0] exp_llr[6*MAX_SYM];

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
  logic [1:0] modulation;

  logic s_tvalid, s_tready, s_tlast;
  logic [EQ_TDATA_W-1:0] s_tdata;
  logic [LLR_SCALE_W-1:0] s_tuser;
  logic [LLR_W-1:0] m_tdata;
  logic m_tvalid, m_tlast;

  qam_demodulator dut (
      .clk(clk),
      .rst_n(rst_n),
      .modulation_i(modulation),
      .s_axis_tdata_i(s_tdata),
      .s_axis_tuser_i(s_tuser),
      .s_axis_tvalid_i(s_tvalid),
      .s_axis_tready_o(s_tready),
      .s_axis_tlast_i(s_tlast),
      .m_axis_tdata_o(m_tdata),
      .m_axis_tvalid_o(m_tvalid),
      .m_axis_tready_i(ready_r),
      .m_axis_tlast_o(m_tlast)
  );

  always #5 clk = ~clk;

  assign modulation = (qm == 2) ? MOD_QPSK : ((qm == 4) ? MOD_16QAM : MOD_64QAM);
  assign s_tvalid = rst_n && gate_r && (in_idx < n_sym);
  assign s_tdata = stim_iq[in_idx%MAX_SYM];
  assign s_tuser = stim_scale[in_idx%MAX_SYM];
  assign s_tlast = (in_idx == n_sym - 1);

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("N=%d", n_sym)) $fatal(1, "tb: +N missing");
    if (!$value$plusargs("QM=%d", qm)) $fatal(1, "tb: +QM missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    if (n_sym < 2 || n_sym > MAX_SYM) $fatal(1, "tb: N out of range for the harness");
    if (qm != 2 && qm != 4 && qm != 6) $fatal(1, "tb: QM must be 2, 4 or 6");
    n_out = qm * n_sym;
    abort_at = n_sym / 3;
    limit = 8 * n_out + 2000;
    $readmemh({dir, "/stimulus_eq_iq.hex"}, stim_iq, 0, n_sym - 1);
    $readmemh({dir, "/stimulus_llr_scale.hex"}, stim_scale, 0, n_sym - 1);
    $readmemh({dir, "/expected_llr.hex"}, exp_llr, 0, n_out - 1);
    seed = int'($urandom(seed));
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    `TB_RESET_RELEASE
    if (rst_n) begin
      if (s_tvalid && s_tready) in_idx <= in_idx + 1;
      if (m_tvalid && ready_r) begin
        samples = samples + 1;
        `TB_MISMATCH_IF(out_idx >= n_out || m_tdata !== exp_llr[out_idx%(6*MAX_SYM)],
                        "m_axis_tdata_o", exp_llr[out_idx%(6*MAX_SYM)], m_tdata)
        `TB_EXPECT("m_axis_tlast_o", out_idx == n_out - 1, m_tlast)
        out_idx <= out_idx + 1;
        if (pass_no == 1 && out_idx + 1 == n_out) begin
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
    `TB_WATCHDOG(limit, n_out, out_idx)
  end
endmodule
`default_nettype wire
