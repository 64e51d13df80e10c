`default_nettype none
// Self-checking FIFO testbench: random valid on the input, random ready on the output
// (back-pressure), a scoreboard of sent beats compared with every received beat.
module tb_fifo;
  localparam int WIDTH = 8;
  localparam int BEATS = 400;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  logic [WIDTH-1:0] s_data = '0;
  logic s_valid = 1'b0;
  logic s_ready;
  logic [WIDTH-1:0] m_data;
  logic m_valid;
  logic m_ready = 1'b0;

  logic [WIDTH-1:0] sent[BEATS];
  int n_sent = 0;
  int n_recv = 0;
  int errors = 0;
  int cycle = 0;

  fifo #(.WIDTH(WIDTH), .DEPTH(8)) dut (
      .clk(clk), .rst_n(rst_n),
      .s_axis_tdata_i(s_data), .s_axis_tvalid_i(s_valid), .s_axis_tready_o(s_ready),
      .m_axis_tdata_o(m_data), .m_axis_tvalid_o(m_valid), .m_axis_tready_i(m_ready));

  always #5 clk = ~clk;

  always @(posedge clk) begin
    cycle <= cycle + 1;
    if (rst_n && s_valid && s_ready) begin
      sent[n_sent] = s_data;
      n_sent = n_sent + 1;
    end
    if (rst_n && m_valid && m_ready) begin
      if (n_recv >= n_sent || m_data !== sent[n_recv]) begin
        errors = errors + 1;
        $display("MISMATCH time=%0t cycle=%0d signal=m_axis_tdata_o expected=%h actual=%h",
                 $time, cycle, (n_recv < n_sent) ? sent[n_recv] : 'x, m_data);
      end
      n_recv = n_recv + 1;
    end
  end

  // Drive after the edge; hold data stable while valid and not accepted (AXI-Stream rule).
  always @(negedge clk) begin
    if (cycle == 4) rst_n <= 1'b1;
    if (!s_valid || s_ready) begin
      if (n_sent + (s_valid && s_ready ? 1 : 0) < BEATS) begin
        s_valid <= ($urandom % 3) != 0;
        s_data <= $urandom;
      end else begin
        s_valid <= 1'b0;
      end
    end
    m_ready <= ($urandom % 2) == 0;
    if (n_recv == BEATS || cycle > 20 * BEATS) begin
      if (n_recv != BEATS) begin
        errors = errors + 1;
        $display("MISMATCH time=%0t cycle=%0d signal=beats expected=%h actual=%h",
                 $time, cycle, BEATS, n_recv);
      end
      $display("Mismatches: %0d in %0d samples", errors, n_recv);
      $finish;
    end
  end
endmodule
`default_nettype wire
