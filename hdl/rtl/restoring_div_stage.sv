`default_nettype none
// One stage of a pipelined restoring divider (the equalizer's round-half-up divisions, receiver
// for TS 36.211 6.3.5): quotient bit SHIFT of rem / den is 1 when rem >= den 2^SHIFT, i.e.
// floor(rem / 2^SHIFT) >= den, and den 2^SHIFT is then subtracted. The caller guarantees
// rem < den 2^(SHIFT+1), so stages SHIFT = Q_W-1 .. 0 in a row leave the quotient in quo_o.
// Registered outputs; the stage holds while en_i is low. With DEN_INV the divisor travels
// inverted (den_i = ~divisor): where the dividend repeats the divisor's bits, flip-flops holding
// the same value would be merged by synthesis into aliased nets.
module restoring_div_stage #(
    parameter int REM_W   = 8,
    parameter int DEN_W   = 4,
    parameter int Q_W     = 4,
    parameter int SHIFT   = 0,
    parameter bit DEN_INV = 1'b0
) (
    input  logic             clk,
    input  logic             rst_n,
    input  logic             en_i,
    input  logic [REM_W-1:0] rem_i,
    input  logic [DEN_W-1:0] den_i,
    // Its MSB shifts out unused: it is 0 by the caller's range guarantee.
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [  Q_W-1:0] quo_i,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic [REM_W-1:0] rem_o,
    output logic [DEN_W-1:0] den_o,
    output logic [  Q_W-1:0] quo_o
);
  logic             take_w;
  logic [DEN_W-1:0] den_w;

  assign den_w  = DEN_INV ? ~den_i : den_i;
  assign take_w = (rem_i >> SHIFT) >= REM_W'(den_w);

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      rem_o <= '0;
      den_o <= '0;
      quo_o <= '0;
    end else if (en_i) begin
      rem_o <= take_w ? rem_i - (REM_W'(den_w) << SHIFT) : rem_i;
      den_o <= den_i;
      quo_o <= {quo_i[Q_W-2:0], take_w};
    end
  end
endmodule
`default_nettype wire
