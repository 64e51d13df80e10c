`default_nettype none
// Length-31 Gold sequence c(n) of TS 36.211 clause 7.2, two values per step:
// c(n) = (x1(n + N_C) + x2(n + N_C)) mod 2, x1(n+31) = x1(n+3) + x1(n),
// x2(n+31) = x2(n+3) + x2(n+2) + x2(n+1) + x2(n), x1 starting at 1 and x2 at c_init.
// load_i restarts at n = -N_C (x1 = 1, x2 = c_init_i), warm_i advances WARM_STEPS positions
// (the caller skips N_C and any further offset with it), step2_i advances two; c_o = {c(n+1),
// c(n)} at the current position. load_i wins over warm_i, warm_i over step2_i.
module gold_sequence #(
    parameter int WARM_STEPS = 40
) (
    input  logic                                  clk,
    input  logic                                  rst_n,
    input  logic                                  load_i,
    input  logic [lte_baseband_pkg::C_INIT_W-1:0] c_init_i,
    input  logic                                  warm_i,
    input  logic                                  step2_i,
    output logic [                           1:0] c_o
);
  import lte_baseband_pkg::*;

  logic [C_INIT_W-1:0] x1_r;  // x1_r[i] = x1(n + N_C + i)
  logic [C_INIT_W-1:0] x2_r;
  logic [C_INIT_W-1:0] x1_warm_w;
  logic [C_INIT_W-1:0] x2_warm_w;
  logic [C_INIT_W-1:0] x1_step_w;
  logic [C_INIT_W-1:0] x2_step_w;

  always_comb begin
    x1_warm_w = x1_r;
    x2_warm_w = x2_r;
    for (int s = 0; s < WARM_STEPS; s++) begin
      x1_warm_w = {x1_warm_w[3] ^ x1_warm_w[0], x1_warm_w[C_INIT_W-1:1]};
      x2_warm_w = {x2_warm_w[3] ^ x2_warm_w[2] ^ x2_warm_w[1] ^ x2_warm_w[0],
                   x2_warm_w[C_INIT_W-1:1]};
    end
    x1_step_w = x1_r;
    x2_step_w = x2_r;
    for (int s = 0; s < 2; s++) begin
      x1_step_w = {x1_step_w[3] ^ x1_step_w[0], x1_step_w[C_INIT_W-1:1]};
      x2_step_w = {x2_step_w[3] ^ x2_step_w[2] ^ x2_step_w[1] ^ x2_step_w[0],
                   x2_step_w[C_INIT_W-1:1]};
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      x1_r <= '0;
      x2_r <= '0;
    end else if (load_i) begin
      x1_r <= C_INIT_W'(1);
      x2_r <= c_init_i;
    end else if (warm_i) begin
      x1_r <= x1_warm_w;
      x2_r <= x2_warm_w;
    end else if (step2_i) begin
      x1_r <= x1_step_w;
      x2_r <= x2_step_w;
    end
  end

  assign c_o = x1_r[1:0] ^ x2_r[1:0];
endmodule
`default_nettype wire
