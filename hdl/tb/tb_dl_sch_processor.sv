`default_nettype none
`include "tb_harness.svh"
// Self-checking testbench of dl_sch_processor against refmodels vectors (dl_sch_processor
// generator: the fixed-point turbo decoder's APP LLRs per code block in, the transport block
// bytes and the CRC-24A verdict out). Plusargs: VECTORS=<case dir>, TBS, C, F, KMINUS, KPLUS,
// CMINUS, NAPP, optional SEED. Random input gaps and output back-pressure (with long stalls);
// pass 0 is cut by a reset in the middle of the input, pass 1 and pass 2 run the whole
// transport block back to back (the second proves the block returns to its start state).
// tbs_i, num_cb_i and filler_i hold the case's values until a pass's first LLR is accepted and
// are random after it.
// +FULL_RATE drops the gaps and back-pressure and prints the last pass's cycle count
// ("tb: block_cycles=") for bench/hdl_dlsch_bench.py. The run stops after MAX_ERRORS
// mismatches.
module tb_dl_sch_processor;
  import lte_baseband_pkg::*;

  localparam int MAX_IN = 16 * 6144;
  localparam int MAX_BYTES = 8192;
  localparam int MAX_CB = 15;
  localparam int LAST_PASS = 2;
  localparam int MAX_ERRORS = 64;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int tbs = 0;
  int n_cb = 0;
  int f_bits = 0;
  int k_minus = 0;
  int k_plus = 0;
  int c_minus = 0;
  int n_in = 0;
  int n_out = 0;
  int seed = 1;
  int abort_at = 0;

  logic [APP_LLR_W-1:0] stim[MAX_IN];
  logic cb_end[MAX_IN];
  logic [7:0] exp_byte[MAX_BYTES];
  logic exp_ok[1];

  int in_idx = 0;
  int out_idx = 0;
  int cycle = 0;
  int errors = 0;
  int samples = 0;
  int pass_no = 0;
  int rst_cnt = 4;
  int limit = 0;
  int pos = 0;
  int stall = 0;
  int start_cycle = -1;  // first accepted input beat of the last pass
  logic full_rate = 1'b0;
  logic gate_r = 1'b0;
  logic ready_r = 1'b0;

  logic s_tvalid, s_tready, s_tlast;
  logic [APP_LLR_W-1:0] s_tdata;
  logic [BYTE_TDATA_W-1:0] m_tdata;
  logic m_tuser, m_tvalid, m_tlast;
  logic last_w, user_w;
  logic [16:0] junk_tbs = '0;
  logic [3:0] junk_cb = '0;
  logic [5:0] junk_f = '0;

  dl_sch_processor dut (
      .clk(clk),
      .rst_n(rst_n),
      .tbs_i(in_idx == 0 ? tbs[16:0] : junk_tbs),
      .num_cb_i(in_idx == 0 ? n_cb[3:0] : junk_cb),
      .filler_i(in_idx == 0 ? f_bits[5:0] : junk_f),
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

  assign s_tvalid = rst_n && gate_r && (in_idx < n_in);
  assign s_tdata = stim[in_idx%MAX_IN];
  assign s_tlast = cb_end[in_idx%MAX_IN];
  assign last_w = (out_idx == n_out - 1);
  assign user_w = last_w && exp_ok[0];

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("TBS=%d", tbs)) $fatal(1, "tb: +TBS missing");
    if (!$value$plusargs("C=%d", n_cb)) $fatal(1, "tb: +C missing");
    if (!$value$plusargs("F=%d", f_bits)) $fatal(1, "tb: +F missing");
    if (!$value$plusargs("KMINUS=%d", k_minus)) $fatal(1, "tb: +KMINUS missing");
    if (!$value$plusargs("KPLUS=%d", k_plus)) $fatal(1, "tb: +KPLUS missing");
    if (!$value$plusargs("CMINUS=%d", c_minus)) $fatal(1, "tb: +CMINUS missing");
    if (!$value$plusargs("NAPP=%d", n_in)) $fatal(1, "tb: +NAPP missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    full_rate = $test$plusargs("FULL_RATE") != 0;
    if (n_cb < 1 || n_cb > MAX_CB || n_in < 40 || n_in > MAX_IN || tbs % 8 != 0 ||
        tbs < 8 || tbs / 8 > MAX_BYTES)
      $fatal(1, "tb: case out of range for the harness");
    // tlast on the last LLR of every code block: the C- blocks of K- come first (5.1.2).
    for (int i = 0; i < MAX_IN; i++) cb_end[i] = 1'b0;
    pos = 0;
    for (int r = 0; r < n_cb; r++) begin
      pos = pos + ((r < c_minus) ? k_minus : k_plus);
      if (pos > n_in) $fatal(1, "tb: code block sizes exceed NAPP");
      cb_end[pos-1] = 1'b1;
    end
    if (pos != n_in) $fatal(1, "tb: code block sizes do not add up to NAPP");
    n_out = tbs / 8;
    abort_at = n_in / 3;
    limit = 8 * n_in + 2000;
    $readmemh({dir, "/stimulus_cb_app_llr.hex"}, stim, 0, n_in - 1);
    $readmemh({dir, "/expected_tb_bytes.hex"}, exp_byte, 0, n_out - 1);
    $readmemh({dir, "/expected_tb_crc_ok.hex"}, exp_ok, 0, 0);
    seed = int'($urandom(seed));
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    `TB_RESET_RELEASE
    if (rst_n) begin
      if (s_tvalid && s_tready) begin
        in_idx <= in_idx + 1;
        if (pass_no == LAST_PASS && start_cycle < 0) start_cycle = cycle;
      end
      if (m_tvalid && ready_r) begin
        samples = samples + 1;
        `TB_MISMATCH_IF(out_idx >= n_out || m_tdata !== exp_byte[out_idx%MAX_BYTES],
                        "m_axis_tdata_o", exp_byte[out_idx%MAX_BYTES], m_tdata)
        `TB_EXPECT("m_axis_tlast_o", last_w, m_tlast)
        `TB_EXPECT("m_axis_tuser_o", user_w, m_tuser)
        out_idx <= out_idx + 1;
        if (errors >= MAX_ERRORS) begin
          // A broken design has shown itself; the rest of the block would only cost time.
          `TB_FINISH
        end
        if (out_idx + 1 == n_out) begin
          if (pass_no == LAST_PASS) begin
            if (full_rate) $display("tb: block_cycles=%0d", cycle - start_cycle + 1);
            `TB_FINISH
          end
          in_idx <= 0;
          out_idx <= 0;
          pass_no <= pass_no + 1;
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
    if (!s_tvalid || s_tready) gate_r <= full_rate || (($urandom % 5) != 0);
    junk_tbs <= 17'($urandom);
    junk_cb <= 4'($urandom);
    junk_f <= 6'($urandom);
    // One byte leaves per 8 input bits, so short random gaps alone would hardly ever fill the
    // output: long stalls now and then push the back-pressure through to the input.
    if (full_rate) begin
      ready_r <= 1'b1;
    end else if (stall > 0) begin
      stall <= stall - 1;
      ready_r <= 1'b0;
    end else if (($urandom % 24) == 0) begin
      stall <= 8 + ($urandom % 40);
      ready_r <= 1'b0;
    end else begin
      ready_r <= ($urandom % 3) != 0;
    end
    `TB_WATCHDOG(limit, n_out, out_idx)
  end
endmodule
`default_nettype wire
