`default_nettype none
// Deliberately broken: the counter skips from 5 to 7 (a functional bug for the tests).
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
      count_r <= (count_r == WIDTH'(5)) ? count_r + 2'd2 : count_r + 1'b1;
    end
  end

  assign count_o = count_r;
endmodule
`default_nettype wire
