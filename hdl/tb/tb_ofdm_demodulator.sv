`default_nettype none
`include "tb_harness.svh"
// Self-checking testbench of ofdm_demodulator against refmodels vectors (ofdm_demodulator
// generator: per subframe 15360 IQ samples in, its 14 x 600 FFT_OUT REs expected).
// Plusargs: VECTORS=<case dir>, N_SF=<subframes in the files, 1 or 2>, ABORT=<input sample at
// which the reset cuts pass 0>, optional SEED, optional FULL_RATE (no input gaps, output always
// ready: the sustained-rate measurement of bench/hdl_fft_rate.py). Random input gaps and output
// back-pressure otherwise; pass 0 runs subframe 0 until the reset cuts it, passes 1 and 2 run
// subframe 0 then subframe N_SF - 1 back to back. Every output beat is compared: data, tuser
// (= symbol l) and tlast (last RE of the subframe); the run stops after MAX_ERRORS mismatches.
// The watchdog allows 80000 cycles per pass. Prints
// `tb: subframe_cycles=` (cycles between the last REs of passes 1 and 2, i.e. one subframe in
// steady state) and `tb: symbol_cycles=` (that / 14).
module tb_ofdm_demodulator;
  import lte_baseband_pkg::*;

  localparam int N_IN =
      N_SYMB_SUBFRAME * FFT_SIZE + 2 * CP_LEN_FIRST + (N_SYMB_SUBFRAME - 2) * CP_LEN_OTHER;
  localparam int N_SC = N_RB_DL_MAX * N_SC_RB;
  localparam int N_OUT = N_SYMB_SUBFRAME * N_SC;
  localparam int LAST_PASS = 2;
  localparam int MAX_SF = 2;
  localparam int PASS_CYCLES = 80000;
  localparam int MAX_ERRORS = 64;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int seed = 1;
  int full_rate = 0;
  int abort_at = N_IN / 3;
  int n_sf = 1;

  logic [IQ_TDATA_W-1:0] stim[MAX_SF*N_IN];
  logic [FFT_TDATA_W-1:0] exp_re[MAX_SF*N_OUT];

  int in_idx = 0;
  int out_idx = 0;
  int cycle = 0;
  int errors = 0;
  int samples = 0;
  int pass_no = 0;  // output side
  int in_pass = 0;  // input side, runs ahead of the output
  int rst_cnt = 4;
  int limit = 3 * PASS_CYCLES;  // pass 0 and two passes
  int pass1_end = -1;
  logic gate_r = 1'b0;
  logic ready_r = 1'b0;

  logic s_tvalid, s_tready;
  logic [IQ_TDATA_W-1:0] s_tdata;
  logic [FFT_TDATA_W-1:0] m_tdata;
  logic [3:0] m_tuser;
  logic m_tvalid, m_tlast;
  logic [3:0] exp_user;

  ofdm_demodulator dut (
      .clk(clk),
      .rst_n(rst_n),
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

  assign s_tvalid = rst_n && gate_r && (in_pass <= LAST_PASS);
  // Pass 0 and 1 read subframe 0, pass 2 the last subframe of the files.
  assign s_tdata = stim[(in_pass == LAST_PASS ? n_sf - 1 : 0) * N_IN + in_idx];
  assign exp_user = 4'($unsigned(out_idx / N_SC));

  initial begin
    if (N_IN != 15360) $fatal(1, "tb: subframe length %0d", N_IN);
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    if ($test$plusargs("FULL_RATE")) full_rate = 1;
    if (!$value$plusargs("N_SF=%d", n_sf)) $fatal(1, "tb: +N_SF missing");
    if (!$value$plusargs("ABORT=%d", abort_at)) $fatal(1, "tb: +ABORT missing");
    if (n_sf < 1 || n_sf > MAX_SF || abort_at < 1 || abort_at >= N_IN)
      $fatal(1, "tb: N_SF or ABORT out of range for the harness");
    $readmemh({dir, "/stimulus_iq.hex"}, stim, 0, n_sf * N_IN - 1);
    $readmemh({dir, "/expected_grid_iq.hex"}, exp_re, 0, n_sf * N_OUT - 1);
    seed = int'($urandom(seed));
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    `TB_RESET_RELEASE
    if (rst_n) begin
      if (s_tvalid && s_tready) begin
        in_idx <= (in_idx == N_IN - 1) ? 0 : in_idx + 1;
        if (in_idx == N_IN - 1) in_pass <= in_pass + 1;
      end
      if (m_tvalid && ready_r) begin
        samples = samples + 1;
        `TB_EXPECT("m_axis_tdata_o", exp_re[(pass_no == LAST_PASS ? n_sf - 1 : 0) * N_OUT + out_idx],
                   m_tdata)
        `TB_EXPECT("m_axis_tuser_o", exp_user, m_tuser)
        `TB_EXPECT("m_axis_tlast_o", out_idx == N_OUT - 1, m_tlast)
        out_idx <= out_idx + 1;
        if (errors >= MAX_ERRORS) begin
          // A broken design has shown itself; the rest of the subframe would only cost time.
          `TB_FINISH
        end
        if (out_idx == N_OUT - 1) begin
          if (pass_no == LAST_PASS) begin
            if (pass1_end >= 0) begin
              // One subframe in steady state (read by bench/hdl_fft_rate.py).
              $display("tb: subframe_cycles=%0d", cycle - pass1_end);
              $display("tb: symbol_cycles=%0d", (cycle - pass1_end) / N_SYMB_SUBFRAME);
            end
            `TB_FINISH
          end
          if (pass_no == 1) pass1_end = cycle;
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
    `TB_HANDSHAKE(full_rate != 0)
    `TB_WATCHDOG(limit, N_OUT, out_idx)
  end
endmodule
`default_nettype wire
