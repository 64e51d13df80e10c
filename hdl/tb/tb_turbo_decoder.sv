`default_nettype none
`include "tb_harness.svh"
// Self-checking testbench of turbo_decoder against refmodels vectors (turbo_decoder generator).
// Plusargs: VECTORS=<case dir>, K, F1, F2 (QPP parameters), ITERS (maximum), CRC (0 24A,
// 1 24B), CRC_OK (expected verdict), optional SEED. Random input gaps and output back-pressure;
// pass 0 is cut by a reset while the code block is being loaded, pass 1 streams it BLOCKS times
// back to back (default 2: the next block arrives while one decodes) and checks every copy.
// Checked per output beat: the APP LLR, the hard bit it implies, tuser {crc_ok, iterations}.
// The stimulus is read stream-major (d0[0..K+3], d1[..], d2[..]) and sent as K + 4 beats of
// {d2[k], d1[k], d0[k]} (index s (K + 4) + k).
// +FULL_RATE drops the random gaps and back-pressure (for cycle counts in bench/hdl_bench.py).
// Printed for the bench: block_cycles (first input to last output of block 1), decode_cycles
// (its last input beat to its first output beat), steady_cycles (between the last output
// beats of the last two blocks).
module tb_turbo_decoder;
  import lte_baseband_pkg::*;

  localparam int MAX_K = 6144;
  localparam int MAX_D = 3 * (MAX_K + 4);
  localparam int LAST_PASS = 1;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int k_bits = 0;
  int f1 = 0;
  int f2 = 0;
  int iters = 0;
  int crc_sel = 0;
  int crc_ok = 0;
  int n_in = 0;  // input beats per block, K + 4
  int blocks = 2;  // copies streamed in the checked pass
  int reps = 1;  // copies streamed in this pass
  int prev_end = -1;  // last output beat of the previous block
  int seed = 1;
  logic full_rate = 1'b0;
  int abort_at = 0;

  logic [LLR_W-1:0] stim[MAX_D];
  logic exp_bit[MAX_K];
  logic [APP_LLR_W-1:0] exp_app[MAX_K];
  logic [3:0] exp_iter[1];

  int in_idx = 0;
  int out_idx = 0;
  int cycle = 0;
  int errors = 0;
  int samples = 0;
  int pass_no = 0;
  int rst_cnt = 4;
  int limit = 0;
  int start_cycle = -1;  // first accepted input beat of the last pass
  int load_end_cycle = -1;  // its last input beat
  int out_start_cycle = -1;  // its first output beat
  logic gate_r = 1'b0;
  logic ready_r = 1'b0;

  logic s_tvalid, s_tready, s_tlast;
  logic [3*LLR_W-1:0] s_tdata;
  int in_beat;  // index k of the beat within its block
  logic [APP_LLR_W-1:0] m_tdata;
  logic [4:0] m_tuser;
  logic [4:0] exp_user;
  logic m_tvalid, m_tlast;

  turbo_decoder dut (
      .clk(clk),
      .rst_n(rst_n),
      .k_i(k_bits[12:0]),
      .f1_i(f1[9:0]),
      .f2_i(f2[10:0]),
      .max_iter_i(iters[3:0]),
      .crc_type_i(crc_sel[0]),
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

  assign s_tvalid = rst_n && gate_r && (in_idx < n_in * reps);
  assign in_beat = in_idx % n_in;
  assign s_tdata = {
    stim[(2*n_in+in_beat)%MAX_D], stim[(n_in+in_beat)%MAX_D], stim[in_beat%MAX_D]
  };
  assign s_tlast = (in_idx % n_in == n_in - 1);
  assign exp_user = {crc_ok[0], exp_iter[0]};

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("K=%d", k_bits)) $fatal(1, "tb: +K missing");
    if (!$value$plusargs("F1=%d", f1)) $fatal(1, "tb: +F1 missing");
    if (!$value$plusargs("F2=%d", f2)) $fatal(1, "tb: +F2 missing");
    if (!$value$plusargs("ITERS=%d", iters)) $fatal(1, "tb: +ITERS missing");
    if (!$value$plusargs("CRC=%d", crc_sel)) $fatal(1, "tb: +CRC missing");
    if (!$value$plusargs("CRC_OK=%d", crc_ok)) $fatal(1, "tb: +CRC_OK missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    full_rate = $test$plusargs("FULL_RATE") != 0;
    if (!$value$plusargs("BLOCKS=%d", blocks)) blocks = 2;
    if (blocks < 1) $fatal(1, "tb: +BLOCKS must be >= 1");
    if (k_bits < 40 || k_bits > MAX_K || iters < 1 || iters > 15)
      $fatal(1, "tb: case out of range for the harness");
    n_in = k_bits + 4;
    abort_at = n_in / 3;
    // Worst case per block: gapped load, every iteration at one SISO, throttled unload.
    limit = (blocks + 1) * (2 * n_in + 2 * k_bits + (iters + 1) * 4 * (k_bits + 3)) + 5000;
    $readmemh({dir, "/stimulus_d_llr.hex"}, stim, 0, 3 * n_in - 1);
    $readmemh({dir, "/expected_bits.hex"}, exp_bit, 0, k_bits - 1);
    $readmemh({dir, "/expected_app_llr.hex"}, exp_app, 0, k_bits - 1);
    $readmemh({dir, "/expected_iterations.hex"}, exp_iter, 0, 0);
    seed = int'($urandom(seed));
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    if (rst_cnt > 0) begin
      rst_cnt <= rst_cnt - 1;
      if (rst_cnt == 1) rst_n <= 1'b1;
    end
    if (rst_n) begin
      if (s_tvalid && s_tready) begin
        in_idx <= in_idx + 1;
        if (pass_no == LAST_PASS && start_cycle < 0) start_cycle = cycle;
        if (pass_no == LAST_PASS && s_tlast && load_end_cycle < 0) load_end_cycle = cycle;
      end
      if (m_tvalid && ready_r) begin
        samples = samples + 1;
        if (pass_no == LAST_PASS && out_start_cycle < 0) out_start_cycle = cycle;
        if (out_idx >= k_bits * reps || m_tdata !== exp_app[(out_idx%k_bits)%MAX_K]) begin
          errors = errors + 1;
          $display("%sMISMATCH time=%0t cycle=%0d signal=m_axis_tdata_o expected=%h actual=%h",
                   tb_verdict_tag(), $time, cycle, exp_app[(out_idx%k_bits)%MAX_K], m_tdata);
        end
        if (($signed(m_tdata) > 0) !== exp_bit[(out_idx%k_bits)%MAX_K]) begin
          errors = errors + 1;
          $display("%sMISMATCH time=%0t cycle=%0d signal=hard_bit expected=%h actual=%h",
                   tb_verdict_tag(), $time, cycle, exp_bit[(out_idx%k_bits)%MAX_K],
                   $signed(m_tdata) > 0);
        end
        if (m_tuser !== exp_user) begin
          errors = errors + 1;
          $display("%sMISMATCH time=%0t cycle=%0d signal=m_axis_tuser_o expected=%h actual=%h",
                   tb_verdict_tag(), $time, cycle, exp_user, m_tuser);
        end
        if (m_tlast !== (out_idx % k_bits == k_bits - 1)) begin
          errors = errors + 1;
          $display("%sMISMATCH time=%0t cycle=%0d signal=m_axis_tlast_o expected=%h actual=%h",
                   tb_verdict_tag(), $time, cycle, out_idx % k_bits == k_bits - 1, m_tlast);
        end
        out_idx <= out_idx + 1;
        if (out_idx + 1 == k_bits && pass_no == LAST_PASS) begin
          // Load, decode and unload of one code block (read by bench/hdl_bench.py).
          $display("tb: block_cycles=%0d", cycle - start_cycle + 1);
          // Decode only: from the last input beat to the first output beat.
          $display("tb: decode_cycles=%0d", out_start_cycle - load_end_cycle);
        end
        if (out_idx + 1 == k_bits * blocks && pass_no == LAST_PASS) begin
          if (blocks > 1) $display("tb: steady_cycles=%0d", cycle - prev_end);
          $display("%sMismatches: %0d in %0d samples", tb_verdict_tag(), errors, samples);
          $finish;
        end
        if ((out_idx + 1) % k_bits == 0 && pass_no == LAST_PASS) prev_end = cycle;
      end
      if (pass_no == 0 && in_idx >= abort_at) begin
        rst_n <= 1'b0;
        rst_cnt <= 3;
        in_idx <= 0;
        out_idx <= 0;
        pass_no <= 1;
        reps <= blocks;
      end
    end
    if (!s_tvalid || s_tready) gate_r <= full_rate || (($urandom % 5) != 0);
    ready_r <= full_rate || (($urandom % 3) != 0);
    if (cycle > limit) begin
      $display("%sMISMATCH time=%0t cycle=%0d signal=beats expected=%h actual=%h",
               tb_verdict_tag(), $time, cycle, k_bits, out_idx);
      $display("%sMismatches: %0d in %0d samples", tb_verdict_tag(), errors + 1, samples + 1);
      $finish;
    end
  end
endmodule
`default_nettype wire
