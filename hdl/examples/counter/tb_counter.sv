`default_nettype none
// Self-checking testbench: a reference model counts alongside the DUT; enable toggles
// pseudo-randomly and reset is pulsed in the middle of the run.
module tb_counter;
  localparam int WIDTH = 8;
  localparam int CYCLES = 600;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  logic en = 1'b0;
  logic [WIDTH-1:0] count;
  logic [WIDTH-1:0] model_r = '0;
  int cycle = 0;
  int errors = 0;
  int samples = 0;
  int cycles_limit = CYCLES;

  counter #(.WIDTH(WIDTH)) dut (.clk(clk), .rst_n(rst_n), .en_i(en), .count_o(count));

  always #5 clk = ~clk;

  initial begin
    if ($value$plusargs("CYCLES=%d", cycles_limit)) $display("tb: %0d cycles", cycles_limit);
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    if (!rst_n) model_r <= '0;
    else if (en) model_r <= model_r + 1'b1;
  end

  always @(negedge clk) begin
    if (rst_n) begin
      samples = samples + 1;
      if (count !== model_r) begin
        errors = errors + 1;
        $display("MISMATCH time=%0t cycle=%0d signal=count_o expected=%h actual=%h",
                 $time, cycle, model_r, count);
      end
    end
    en <= ($urandom % 4) != 0;
    if (cycle == 3) rst_n <= 1'b1;
    if (cycle == 300) rst_n <= 1'b0;
    if (cycle == 303) rst_n <= 1'b1;
    if (cycle >= cycles_limit) begin
      $display("Mismatches: %0d in %0d samples", errors, samples);
      $finish;
    end
  end
endmodule
`default_nettype wire
