`default_nettype none
// Up-counter with enable and synchronous active-low reset; wraps at 2**WIDTH - 1.
module counter #(
    parameter int WIDTH = 8
) (
    input  logic             clk,
    input  logic             rst_n,
    input  logic             en_i,
    output logic [WIDTH-1:0] count_o
);
  logic [WIDTH-1:0] count_r;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      count_r <= '0;
    end else if (en_i) begin
      count_r <= count_r + 1'b1;
    end
  end

  assign count_o = count_r;
endmodule
`default_nettype wire
