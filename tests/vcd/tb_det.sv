`default_nettype none
// Deterministic testbench (no $urandom) so that every simulator dumps the same waveform:
// an LFSR drives the counter's enable and both AXI-Stream sides of the FIFO.
module tb_det;
  logic clk = 1'b0;
  logic rst_n = 1'b0;
  logic [15:0] lfsr = 16'hace1;
  logic [7:0] count;
  logic [7:0] s_data = 8'h00;
  logic s_valid = 1'b0;
  logic s_ready;
  logic [7:0] m_data;
  logic m_valid;
  logic m_ready = 1'b0;
  int cycle = 0;
  int beats = 0;
  int errors = 0;
  logic [7:0] expect_r = 8'h00;
  logic took = 1'b0;

  counter #(.WIDTH(8)) u_count (.clk(clk), .rst_n(rst_n), .en_i(lfsr[0]), .count_o(count));
  fifo #(.WIDTH(8), .DEPTH(8)) u_fifo (
      .clk(clk), .rst_n(rst_n),
      .s_axis_tdata_i(s_data), .s_axis_tvalid_i(s_valid), .s_axis_tready_o(s_ready),
      .m_axis_tdata_o(m_data), .m_axis_tvalid_o(m_valid), .m_axis_tready_i(m_ready));

  always #5 clk = ~clk;

  always @(posedge clk) begin
    cycle <= cycle + 1;
    lfsr <= {lfsr[14:0], lfsr[15] ^ lfsr[13] ^ lfsr[12] ^ lfsr[10]};
    took <= rst_n && s_valid && s_ready;
    if (rst_n && s_valid && s_ready) s_data <= s_data + 8'd1;
    if (rst_n && m_valid && m_ready) begin
      if (m_data !== expect_r) errors = errors + 1;
      expect_r = expect_r + 8'd1;
      beats = beats + 1;
    end
  end

  always @(negedge clk) begin
    if (cycle == 3) rst_n <= 1'b1;
    if (!s_valid || took) s_valid <= rst_n && (lfsr[3] | lfsr[7]);
    m_ready <= lfsr[5] ^ lfsr[9];
    if (cycle == 200) begin
      $display("Mismatches: %0d in %0d samples", errors, beats);
      $finish;
    end
  end
endmodule
`default_nettype wire
