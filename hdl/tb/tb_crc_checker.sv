`default_nettype none
`include "tb_harness.svh"
// Self-checking testbench of crc_checker against refmodels vectors (crc_checker generator).
// Plusargs: VECTORS=<case dir>, CRC=<0 24A|1 24B>, K=<bits per block>, NBLK=<blocks>,
// optional SEED. Random input gaps and random output back-pressure throughout; a reset in the
// middle of the stream (pass 0) after which the whole case is replayed (pass 1). tuser carries
// the polynomial on each block's first beat and random values on the others.
module tb_crc_checker;
  import lte_baseband_pkg::*;

  localparam int MAX_BITS = 8 * 6144;
  localparam int MAX_BLK = 8;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  string dir;
  int k_bits = 0;
  int n_blk = 0;
  int crc_sel = 0;
  int seed = 1;
  int n_in = 0;
  int abort_at = 0;

  logic stim[MAX_BITS];
  logic [CRC_W-1:0] exp_syn[MAX_BLK];
  logic exp_pass[MAX_BLK];

  int in_idx = 0;
  int out_idx = 0;
  int cycle = 0;
  int errors = 0;
  int samples = 0;
  int pass_no = 0;
  int rst_cnt = 4;
  int limit = 0;
  logic gate_r = 1'b0;
  logic noise_r = 1'b0;
  logic ready_r = 1'b0;

  logic s_tdata, s_tuser, s_tvalid, s_tready, s_tlast;
  logic [CRC_TDATA_W-1:0] m_tdata;
  logic m_tvalid, m_tlast;
  logic [CRC_TDATA_W-1:0] expected;

  crc_checker dut (
      .clk(clk),
      .rst_n(rst_n),
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

  assign s_tvalid = rst_n && gate_r && (in_idx < n_in);
  assign s_tdata = (in_idx < n_in) ? stim[in_idx] : 1'b0;
  assign s_tuser = ((in_idx % k_bits) == 0) ? crc_sel[0] : noise_r;
  assign s_tlast = ((in_idx % k_bits) == k_bits - 1);
  assign expected = {exp_pass[out_idx % MAX_BLK], exp_syn[out_idx % MAX_BLK]};

  initial begin
    if (!$value$plusargs("VECTORS=%s", dir)) $fatal(1, "tb: +VECTORS=<dir> missing");
    if (!$value$plusargs("K=%d", k_bits)) $fatal(1, "tb: +K missing");
    if (!$value$plusargs("NBLK=%d", n_blk)) $fatal(1, "tb: +NBLK missing");
    if (!$value$plusargs("CRC=%d", crc_sel)) $fatal(1, "tb: +CRC missing");
    if ($value$plusargs("SEED=%d", seed)) seed = seed + 1;
    if (k_bits < 1 || n_blk < 1 || n_blk > MAX_BLK || k_bits * n_blk > MAX_BITS)
      $fatal(1, "tb: case too large for the harness");
    n_in = k_bits * n_blk;
    abort_at = n_in / 3;
    limit = 8 * n_in + 1000;
    $readmemh({dir, "/stimulus_bits.hex"}, stim, 0, n_in - 1);
    $readmemh({dir, "/expected_syndrome.hex"}, exp_syn, 0, n_blk - 1);
    $readmemh({dir, "/expected_pass.hex"}, exp_pass, 0, n_blk - 1);
    seed = int'($urandom(seed));
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    `TB_RESET_RELEASE
    if (rst_n) begin
      noise_r <= 1'($urandom);
      if (s_tvalid && s_tready) in_idx <= in_idx + 1;
      if (m_tvalid && ready_r) begin
        samples = samples + 1;
        `TB_MISMATCH_IF(out_idx >= n_blk || m_tdata !== expected,
                        "m_axis_tdata_o", expected, m_tdata)
        `TB_EXPECT("m_axis_tlast_o", 1'b1, m_tlast)
        out_idx <= out_idx + 1;
        if (pass_no == 1 && out_idx + 1 == n_blk) begin
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
    `TB_WATCHDOG(limit, n_blk, out_idx)
  end
endmodule
`default_nettype wire
