`default_nettype none
`include "tb_harness.svh"
// Self-checking testbench of rate_dematcher against refmodels vectors (rate_dematcher
// generator). Plusargs: VECTORS=<case dir>, K, F, E, RV, NCB, RV2, E2, optional SEED, PROC2
// and OFF2 (buffer 1: process and first word, default 0 and 6148). Random input gaps and
// output back-pressure; pass 0 is cut by a reset in the middle of the input, pass 1 and the
// last pass run the whole code block (the last proves the buffer is cleared). Two HARQ
// processes (N_PROC = 2); the configuration ports carry random values once a pass's first LLR
// is accepted (the block took them with it).
// With RV2 >= 0 (HARQ case) the passes use two soft buffers, buffer 0 (process 0, word 0) and
// buffer 1 (PROC2, OFF2): pass 1 sends the first
// transmission into buffer 0; pass 2 the retransmission (E2 LLRs of redundancy version RV2)
// into buffer 1 as a new transmission; pass 3 the retransmission into buffer 0 with
// combine_i = 1, checked against the combination with pass 1's (so buffer 1 must not have
// touched buffer 0); pass 4 the first transmission into buffer 1 (it is cleared after use).
// The expected d streams are read stream-major (d0[0..K+3], d1[..], d2[..]); each output beat
// k is checked against the triplet {d2[k], d1[k], d0[k]} (index s (K + 4) + k) and tlast.
module tb_rate_dematcher;
  import lte_baseband_pkg::*;

  localparam int MAX_E = 32768;
  localparam int MAX_D = 3 * (6144 + 4);

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int k_bits = 0;
  int f_bits = 0;
  int e_len = 0;
  int rv = 0;
  int ncb = 0;
  int rv2 = -1;
  int e2_len = 0;
  int proc2 = 0;
  int off2 = 6144 + 4;  // buffer 1 after a K = 6144 block
  logic cfg_live = 1'b0;  // this pass's first LLR is accepted: the ports may change
  logic [63:0] junk_r = '0;
  int last_pass = 2;
  int n_out = 0;  // output beats, K + 4
  int seed = 1;
  int abort_at = 0;

  logic [LLR_W-1:0] stim[MAX_E];
  logic [LLR_W-1:0] exp_llr[MAX_D];
  logic [LLR_W-1:0] stim2[MAX_E];
  logic [LLR_W-1:0] exp2_llr[MAX_D];
  logic [LLR_W-1:0] alone2_llr[MAX_D];

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
  logic [3*LLR_W-1:0] m_tdata;
  logic m_tvalid, m_tlast;
  logic retx;  // this pass sends the HARQ retransmission
  logic combine;  // ... combined into the first transmission's buffer
  logic buf_sel;
  int e_cur;
  int rv_cur;
  int exp_idx[3];  // stream s of beat out_idx in the stream-major vectors
  logic [LLR_W-1:0] exp_lane[3];
  logic [3*LLR_W-1:0] exp_cur;

  rate_dematcher #(
      .N_PROC(2)
  ) dut (
      .clk(clk),
      .rst_n(rst_n),
      .k_i(cfg_live ? junk_r[12:0] : k_bits[12:0]),
      .f_i(cfg_live ? junk_r[18:13] : f_bits[5:0]),
      .rv_i(cfg_live ? junk_r[20:19] : rv_cur[1:0]),
      .ncb_i(cfg_live ? junk_r[35:21] : ncb[14:0]),
      .combine_i(cfg_live ? junk_r[36] : combine),
      .proc_i(cfg_live ? junk_r[39:37] : (buf_sel ? proc2[2:0] : 3'd0)),
      .off_i(cfg_live ? junk_r[53:40] : (buf_sel ? off2[13:0] : 14'd0)),
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

  assign retx = (rv2 >= 0) && (pass_no == 2 || pass_no == 3);
  assign combine = (rv2 >= 0) && (pass_no == 3);
  assign buf_sel = ((rv2 >= 0) && (pass_no == 2 || pass_no == 4));
  assign e_cur = retx ? e2_len : e_len;
  assign rv_cur = retx ? rv2 : rv;
  for (genvar s = 0; s < 3; s++) begin : g_lane
    assign exp_idx[s] = (s * n_out + out_idx) % MAX_D;
    assign exp_lane[s] = !retx ? exp_llr[exp_idx[s]] :
        (combine ? exp2_llr[exp_idx[s]] : alone2_llr[exp_idx[s]]);
  end
  assign exp_cur = {exp_lane[2], exp_lane[1], exp_lane[0]};
  assign s_tvalid = rst_n && gate_r && (in_idx < e_cur);
  assign s_tdata = retx ? stim2[in_idx%MAX_E] : stim[in_idx%MAX_E];
  assign s_tlast = (in_idx == e_cur - 1);

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("K=%d", k_bits)) $fatal(1, "tb: +K missing");
    if (!$value$plusargs("F=%d", f_bits)) $fatal(1, "tb: +F missing");
    if (!$value$plusargs("E=%d", e_len)) $fatal(1, "tb: +E missing");
    if (!$value$plusargs("RV=%d", rv)) $fatal(1, "tb: +RV missing");
    if (!$value$plusargs("NCB=%d", ncb)) $fatal(1, "tb: +NCB missing");
    if (!$value$plusargs("RV2=%d", rv2)) $fatal(1, "tb: +RV2 missing");
    if (!$value$plusargs("E2=%d", e2_len)) $fatal(1, "tb: +E2 missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    if (!$value$plusargs("PROC2=%d", proc2)) proc2 = 0;
    if (!$value$plusargs("OFF2=%d", off2)) off2 = 6144 + 4;
    if (e_len < 2 || e_len > MAX_E || k_bits < 40 || k_bits > 6144)
      $fatal(1, "tb: case out of range for the harness");
    if (rv2 >= 0 && (e2_len < 2 || e2_len > MAX_E || rv2 > 3))
      $fatal(1, "tb: retransmission out of range for the harness");
    n_out = k_bits + 4;
    abort_at = e_len / 3;
    last_pass = (rv2 >= 0) ? 4 : 2;
    limit = 12 * (e_len + e2_len + n_out) + 5000;
    $readmemh({dir, "/stimulus_e_llr.hex"}, stim, 0, e_len - 1);
    $readmemh({dir, "/expected_d_llr.hex"}, exp_llr, 0, 3 * n_out - 1);
    if (rv2 >= 0) begin
      $readmemh({dir, "/stimulus_e2_llr.hex"}, stim2, 0, e2_len - 1);
      $readmemh({dir, "/expected_d2_llr.hex"}, exp2_llr, 0, 3 * n_out - 1);
      $readmemh({dir, "/expected_d2_alone_llr.hex"}, alone2_llr, 0, 3 * n_out - 1);
    end
    seed = int'($urandom(seed));
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    junk_r <= {$urandom, $urandom};
    `TB_RESET_RELEASE
    if (rst_n) begin
      if (s_tvalid && s_tready) begin
        in_idx <= in_idx + 1;
        cfg_live <= 1'b1;
      end
      if (m_tvalid && ready_r) begin
        samples = samples + 1;
        `TB_MISMATCH_IF(out_idx >= n_out || m_tdata !== exp_cur, "m_axis_tdata_o", exp_cur, m_tdata)
        `TB_EXPECT("m_axis_tlast_o", out_idx == n_out - 1, m_tlast)
        out_idx <= out_idx + 1;
        if (out_idx + 1 == n_out) begin
          if (pass_no == last_pass) begin
            `TB_FINISH
          end
          in_idx <= 0;
          out_idx <= 0;
          cfg_live <= 1'b0;
          pass_no <= pass_no + 1;
        end
      end
      if (pass_no == 0 && in_idx >= abort_at) begin
        rst_n <= 1'b0;
        rst_cnt <= 3;
        in_idx <= 0;
        out_idx <= 0;
        cfg_live <= 1'b0;
        pass_no <= 1;
      end
    end
    `TB_HANDSHAKE(1'b0)
    `TB_WATCHDOG(limit, n_out, out_idx)
  end
endmodule
`default_nettype wire
