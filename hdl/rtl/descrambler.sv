`default_nettype none
// PDSCH soft-bit descrambler: the inverse of the scrambling of TS 36.211 clause 6.3.1 applied
// to LLRs, with the length-31 Gold sequence c(n) of TS 36.211 clause 7.2.
//
// c_init = n_RNTI*2^14 + q*2^13 + floor(n_s/2)*2^9 + N_ID^cell is formed from the
// configuration ports when the first LLR of a codeword arrives (they must be stable from then
// until that beat is accepted); the two m-sequences are then advanced past N_C = 1600 at
// WARM_STEPS per cycle while the input is held off, after which one LLR passes per cycle,
// negated where c(n) = 1. The negation saturates: -(-128) = +127 (the LLR format never
// produces -128, but the word can hold it).
module descrambler #(
    parameter int WARM_STEPS = 16  // m-sequence steps per warm-up cycle; divides 1600
) (
    input  logic                                    clk,
    input  logic                                    rst_n,
    input  logic [  lte_baseband_pkg::RNTI_W-1:0]   rnti_i,
    input  logic [lte_baseband_pkg::N_CELL_ID_W-1:0] cell_id_i,
    input  logic [lte_baseband_pkg::SUBFRAME_W-1:0] subframe_i,
    input  logic                                    codeword_i,
    input  logic [   lte_baseband_pkg::LLR_W-1:0]   s_axis_tdata_i,
    input  logic                                    s_axis_tvalid_i,
    output logic                                    s_axis_tready_o,
    input  logic                                    s_axis_tlast_i,
    output logic [   lte_baseband_pkg::LLR_W-1:0]   m_axis_tdata_o,
    output logic                                    m_axis_tvalid_o,
    input  logic                                    m_axis_tready_i,
    output logic                                    m_axis_tlast_o
);
  import lte_baseband_pkg::*;

  localparam int WARM_CYCLES = GOLD_NC / WARM_STEPS;
  localparam int WARM_CNT_W = $clog2(WARM_CYCLES + 1);
  localparam logic [WARM_CNT_W-1:0] WARM_LAST = 1;

  typedef enum logic [1:0] {
    ST_IDLE = 2'd0,
    ST_WARM = 2'd1,
    ST_RUN  = 2'd2
  } state_e;

  state_e                  state_r;
  logic   [C_INIT_W-1:0]   x1_r;  // x1_r[i] = x1(n + i)
  logic   [C_INIT_W-1:0]   x2_r;
  logic   [C_INIT_W-1:0]   x1_warm_w;
  logic   [C_INIT_W-1:0]   x2_warm_w;
  logic   [C_INIT_W-1:0]   c_init_w;
  logic   [WARM_CNT_W-1:0] warm_cnt_r;
  logic                    c_w;
  logic   [   LLR_W-1:0]   neg_w;
  logic                    in_fire_w;
  logic   [   LLR_W-1:0]   out_data_r;
  logic                    out_valid_r;
  logic                    out_last_r;

  assign c_init_w = C_INIT_W'({rnti_i, codeword_i, subframe_i, cell_id_i});
  assign c_w = x1_r[0] ^ x2_r[0];
  assign neg_w = (s_axis_tdata_i == {1'b1, {(LLR_W - 1) {1'b0}}}) ? LLR_W'(LLR_MAX) :
      -s_axis_tdata_i;

  // WARM_STEPS steps of x1(n+31) = x1(n+3) + x1(n) and x2(n+31) = x2(n+3)+x2(n+2)+x2(n+1)+x2(n).
  always_comb begin
    x1_warm_w = x1_r;
    x2_warm_w = x2_r;
    for (int s = 0; s < WARM_STEPS; s++) begin
      x1_warm_w = {x1_warm_w[3] ^ x1_warm_w[0], x1_warm_w[C_INIT_W-1:1]};
      x2_warm_w = {x2_warm_w[3] ^ x2_warm_w[2] ^ x2_warm_w[1] ^ x2_warm_w[0],
                   x2_warm_w[C_INIT_W-1:1]};
    end
  end

  assign s_axis_tready_o = (state_r == ST_RUN) && (!out_valid_r || m_axis_tready_i);
  assign in_fire_w = s_axis_tvalid_i && s_axis_tready_o;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      state_r <= ST_IDLE;
      x1_r <= '0;
      x2_r <= '0;
      warm_cnt_r <= '0;
      out_data_r <= '0;
      out_valid_r <= 1'b0;
      out_last_r <= 1'b0;
    end else begin
      if (out_valid_r && m_axis_tready_i) out_valid_r <= 1'b0;
      case (state_r)
        ST_IDLE: begin
          if (s_axis_tvalid_i) begin
            x1_r <= C_INIT_W'(1);
            x2_r <= c_init_w;
            warm_cnt_r <= WARM_CNT_W'(WARM_CYCLES);
            state_r <= ST_WARM;
          end
        end
        ST_WARM: begin
          x1_r <= x1_warm_w;
          x2_r <= x2_warm_w;
          warm_cnt_r <= warm_cnt_r - 1'b1;
          if (warm_cnt_r == WARM_LAST) state_r <= ST_RUN;
        end
        ST_RUN: begin
          if (in_fire_w) begin
            x1_r <= {x1_r[3] ^ x1_r[0], x1_r[C_INIT_W-1:1]};
            x2_r <= {x2_r[3] ^ x2_r[2] ^ x2_r[1] ^ x2_r[0], x2_r[C_INIT_W-1:1]};
            out_data_r <= c_w ? neg_w : s_axis_tdata_i;
            out_valid_r <= 1'b1;
            out_last_r <= s_axis_tlast_i;
            if (s_axis_tlast_i) state_r <= ST_IDLE;
          end
        end
        default: state_r <= ST_IDLE;
      endcase
    end
  end

  assign m_axis_tdata_o = out_data_r;
  assign m_axis_tvalid_o = out_valid_r;
  assign m_axis_tlast_o = out_last_r;

endmodule

`default_nettype wire
