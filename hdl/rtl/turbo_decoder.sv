`default_nettype none
// Turbo decoder for the LTE PCCC of TS 36.212 clause 5.1.3.2: iterative max-log-MAP (BCJR) of
// the two 8-state constituent codes (5.1.3.2.1), trellis termination (5.1.3.2.2), QPP internal
// interleaver (5.1.3.2.3) with addresses generated on the fly, extrinsic scaling by 0.75 as
// x - (x >>> 2), up to max_iter_i iterations with early stop when the code-block CRC (5.1.1,
// CRC-24A or CRC-24B) of the hard decisions checks.
//
// Bit-true to refmodels/turbo_decoder.py (fixed=True): no sliding window; each half iteration
// runs the forward recursion over all K+3 steps storing alpha, then the backward recursion
// computing beta and the extrinsic; metrics are normalised to state 0 and saturated to
// STATE_METRIC, extrinsics to EXTRINSIC, a-posteriori LLRs to APP_LLR. The CRC of an
// iteration's hard decisions runs beside the next iteration's first forward pass, so an
// iteration costs 4 (K + 3) cycles (plus K for the CRC of the last allowed one).
//
// In:  the soft d stream of one code block, d0[0..K+3], d1[..], d2[..] (LLR), tlast on the last;
//      k_i, f1_i, f2_i (QPP parameters of Table 5.1.3-3 for K), max_iter_i, crc_type_i are taken
//      with the first LLR.
// Out: K a-posteriori LLRs in natural order (APP_LLR, bit = LLR > 0), tlast on the last;
//      m_axis_tuser_o = {crc_ok, iterations[3:0]} for the whole block.
module turbo_decoder #(
    parameter int MAX_K = 6144
) (
    input  logic                                   clk,
    input  logic                                   rst_n,
    input  logic [                           12:0] k_i,
    input  logic [                            9:0] f1_i,
    input  logic [                           10:0] f2_i,
    input  logic [                            3:0] max_iter_i,
    input  logic                                   crc_type_i,
    input  logic [    lte_baseband_pkg::LLR_W-1:0] s_axis_tdata_i,
    input  logic                                   s_axis_tvalid_i,
    output logic                                   s_axis_tready_o,
    input  logic                                   s_axis_tlast_i,
    output logic [lte_baseband_pkg::APP_LLR_W-1:0] m_axis_tdata_o,
    output logic [                            4:0] m_axis_tuser_o,
    output logic                                   m_axis_tvalid_o,
    input  logic                                   m_axis_tready_i,
    output logic                                   m_axis_tlast_o
);
  import lte_baseband_pkg::*;

  localparam int SM_W = STATE_METRIC_W;
  localparam int EXT_W = EXTRINSIC_W;
  localparam int ACC_W = 20;  // alpha + beta + gamma sums before normalisation
  localparam logic signed [ACC_W-1:0] SM_MAX = ACC_W'((1 << (SM_W - 1)) - 1);
  localparam logic signed [ACC_W-1:0] EXT_MAX = ACC_W'((1 << (EXT_W - 1)) - 1);
  localparam logic signed [ACC_W-1:0] APP_MAX = ACC_W'((1 << (APP_LLR_W - 1)) - 1);
  localparam logic signed [SM_W-1:0] SM_NEG = -SM_MAX[SM_W-1:0];
  localparam logic signed [LLR_W-1:0] LLR_MIN_SYM = LLR_W'(-LLR_MAX);

  typedef enum logic [2:0] {
    ST_IDLE = 3'd0,
    ST_LOAD = 3'd1,
    ST_FWD  = 3'd2,
    ST_BWD  = 3'd3,
    ST_CRC  = 3'd4,
    ST_OUT  = 3'd5
  } state_e;

  // ------------------------------------------------------------------ storage
  // Large memories, exempt from reset: every word is written before it is read in a block.
  logic signed [LLR_W-1:0] sys_mem_r[MAX_K];
  logic signed [LLR_W-1:0] p1_mem_r[MAX_K];
  logic signed [LLR_W-1:0] p2_mem_r[MAX_K];
  logic signed [EXT_W-1:0] ext_mem_r[MAX_K];  // scaled extrinsic, natural order
  logic signed [APP_LLR_W-1:0] app_mem_r[MAX_K];  // natural order
  logic [8*SM_W-1:0] alpha_mem_r[MAX_K + 3];  // alpha[k] of the 8 states, state 0 lowest
  logic signed [LLR_W-1:0] tail_r[12];  // d0, d1, d2 tails: tail_r[4 * stream + j]

  // ------------------------------------------------------------------ control
  state_e             state_r;
  logic        [12:0] k_r;
  logic        [12:0] f1_r;  // f1 mod K
  logic        [12:0] f2x2_r;  // 2 f2 mod K
  logic        [12:0] g0_r;  // (f1 + f2) mod K, first forward increment
  logic        [12:0] pi_last_r;  // Pi(K-1) = (f2 - f1) mod K
  logic        [12:0] gb0_r;  // g(K-2) = (f1 - 3 f2) mod K
  logic        [ 3:0] max_iter_r;
  logic               crc_type_r;
  logic               dec2_r;  // half iteration: 0 = natural-order decoder, 1 = interleaved
  logic        [ 3:0] iter_r;
  logic        [13:0] step_r;  // trellis step k (0..K+2) or load / CRC / output index
  logic        [ 1:0] load_stream_r;
  logic        [12:0] pi_r;  // QPP address of step_r in the interleaved half
  logic        [12:0] g_r;
  logic        [23:0] crc_r;
  logic               crc_ok_r;
  logic               crc_busy_r;  // previous iteration's CRC runs beside this forward pass

  logic signed [SM_W-1:0] alpha_r[8];
  logic signed [SM_W-1:0] beta_r[8];

  // ------------------------------------------------------------------ helpers
  function automatic logic [12:0] mod_add(input logic [12:0] a, input logic [12:0] b,
                                          input logic [12:0] m);
    logic [13:0] s;
    s = {1'b0, a} + {1'b0, b};
    mod_add = (s >= {1'b0, m}) ? 13'(s - {1'b0, m}) : s[12:0];
  endfunction

  function automatic logic [12:0] mod_sub(input logic [12:0] a, input logic [12:0] b,
                                          input logic [12:0] m);
    // a + m - b < m fits 13 bits; the wrap of the intermediate a + m cancels out.
    mod_sub = (a >= b) ? a - b : a + m - b;
  endfunction

  function automatic logic signed [ACC_W-1:0] sat(input logic signed [ACC_W-1:0] v,
                                                  input logic signed [ACC_W-1:0] lim);
    if (v > lim) sat = lim;
    else if (v < -lim) sat = -lim;
    else sat = v;
  endfunction

  function automatic logic signed [ACC_W-1:0] max2(input logic signed [ACC_W-1:0] a,
                                                   input logic signed [ACC_W-1:0] b);
    max2 = (a > b) ? a : b;
  endfunction

  function automatic logic signed [ACC_W-1:0] wide(input logic signed [SM_W-1:0] v);
    wide = ACC_W'(v);
  endfunction

  // ------------------------------------------------------------------ branch inputs of step k
  logic        [12:0] k_nat_w;  // natural-order index of the systematic bit of this step
  logic               tail_step_w;
  logic signed [ LLR_W-1:0] ls_w;
  logic signed [ LLR_W-1:0] lp_w;
  logic signed [ EXT_W-1:0] la_w;
  logic signed [ ACC_W-1:0] g1_w;
  logic signed [ ACC_W-1:0] g2_w;
  logic signed [ ACC_W-1:0] g3_w;

  assign tail_step_w = (step_r >= {1'b0, k_r});
  assign k_nat_w = dec2_r ? pi_r : step_r[12:0];

  always_comb begin
    logic [1:0] t;
    t = 2'(step_r - {1'b0, k_r});
    ls_w = '0;
    lp_w = '0;
    la_w = '0;
    if (!tail_step_w) begin
      ls_w = sys_mem_r[k_nat_w];
      lp_w = dec2_r ? p2_mem_r[step_r[12:0]] : p1_mem_r[step_r[12:0]];
      la_w = ext_mem_r[k_nat_w];
    end else begin
      // Tail bits of 5.1.3.2.2: x_K, x_K+1, x_K+2 / z_K.. of each constituent encoder.
      case ({dec2_r, t})
        3'b000: begin ls_w = tail_r[0]; lp_w = tail_r[4]; end
        3'b001: begin ls_w = tail_r[8]; lp_w = tail_r[1]; end
        3'b010: begin ls_w = tail_r[5]; lp_w = tail_r[9]; end
        3'b100: begin ls_w = tail_r[2]; lp_w = tail_r[6]; end
        3'b101: begin ls_w = tail_r[10]; lp_w = tail_r[3]; end
        default: begin ls_w = tail_r[7]; lp_w = tail_r[11]; end
      endcase
    end
    g1_w = ACC_W'(lp_w);
    g2_w = ACC_W'(ls_w) + ACC_W'(la_w);
    g3_w = g2_w + g1_w;
  end

  // ------------------------------------------------------------------ forward recursion
  logic signed [SM_W-1:0] alpha_next_w[8];
  always_comb begin
    logic signed [ACC_W-1:0] a[8];
    logic signed [ACC_W-1:0] n[8];
    for (int s = 0; s < 8; s++) a[s] = wide(alpha_r[s]);
    n[0] = max2(a[0], a[1] + g3_w);
    n[1] = max2(a[2] + g2_w, a[3] + g1_w);
    n[2] = max2(a[4] + g1_w, a[5] + g2_w);
    n[3] = max2(a[6] + g3_w, a[7]);
    n[4] = max2(a[0] + g3_w, a[1]);
    n[5] = max2(a[2] + g1_w, a[3] + g2_w);
    n[6] = max2(a[4] + g2_w, a[5] + g1_w);
    n[7] = max2(a[6], a[7] + g3_w);
    for (int s = 0; s < 8; s++) alpha_next_w[s] = SM_W'(sat(n[s] - n[0], SM_MAX));
  end

  // ------------------------------------------------------------------ backward recursion
  logic signed [  SM_W-1:0] beta_next_w[8];
  logic signed [ EXT_W-1:0] le_w;
  logic signed [ EXT_W-1:0] le_scaled_w;
  logic signed [APP_LLR_W-1:0] app_w;
  always_comb begin
    logic signed [ACC_W-1:0] a[8];
    logic signed [ACC_W-1:0] b[8];
    logic signed [ACC_W-1:0] m[8];
    logic signed [ACC_W-1:0] u0;
    logic signed [ACC_W-1:0] u1;
    logic [8*SM_W-1:0] alpha_word;
    alpha_word = alpha_mem_r[step_r[12:0]];
    for (int s = 0; s < 8; s++) begin
      a[s] = wide($signed(alpha_word[s*SM_W+:SM_W]));
      b[s] = wide(beta_r[s]);
    end
    u0 = max2(max2(max2(a[0] + b[0], a[1] + b[4]), max2(a[2] + b[5] + g1_w, a[3] + b[1] + g1_w)),
              max2(max2(a[4] + b[2] + g1_w, a[5] + b[6] + g1_w), max2(a[6] + b[7], a[7] + b[3])));
    u1 = max2(max2(max2(a[0] + b[4] + g1_w, a[1] + b[0] + g1_w), max2(a[2] + b[1], a[3] + b[5])),
              max2(max2(a[4] + b[6], a[5] + b[2]), max2(a[6] + b[3] + g1_w, a[7] + b[7] + g1_w)));
    le_w = EXT_W'(sat(u1 - u0, EXT_MAX));
    le_scaled_w = le_w - (le_w >>> 2);
    app_w = APP_LLR_W'(sat(ACC_W'(ls_w) + ACC_W'(la_w) + ACC_W'(le_w), APP_MAX));
    m[0] = max2(b[0], b[4] + g3_w);
    m[1] = max2(b[4], b[0] + g3_w);
    m[2] = max2(b[5] + g1_w, b[1] + g2_w);
    m[3] = max2(b[1] + g1_w, b[5] + g2_w);
    m[4] = max2(b[2] + g1_w, b[6] + g2_w);
    m[5] = max2(b[6] + g1_w, b[2] + g2_w);
    m[6] = max2(b[7], b[3] + g3_w);
    m[7] = max2(b[3], b[7] + g3_w);
    for (int s = 0; s < 8; s++) beta_next_w[s] = SM_W'(sat(m[s] - m[0], SM_MAX));
  end

  // ------------------------------------------------------------------ CRC of the hard bits
  logic [23:0] crc_next_w;
  logic        crc_fb_w;
  assign crc_fb_w = crc_r[23] ^ (app_mem_r[step_r[12:0]] > 0);
  assign crc_next_w = {crc_r[22:0], 1'b0} ^
      (crc_fb_w ? ((crc_type_r == CRC_24B) ? CRC24B_POLY : CRC24A_POLY) : 24'd0);

  // ------------------------------------------------------------------ input / output
  logic in_fire_w;
  logic signed [LLR_W-1:0] in_llr_w;  // symmetric saturation of the input word
  logic [13:0] n_steps_w;  // K + 3 trellis steps
  logic out_free_w;
  logic [APP_LLR_W-1:0] out_data_r;
  logic out_valid_r;
  logic out_last_r;

  assign n_steps_w = {1'b0, k_r} + 14'd3;
  assign s_axis_tready_o = (state_r == ST_LOAD);
  assign in_fire_w = s_axis_tvalid_i && s_axis_tready_o;
  assign in_llr_w = (s_axis_tdata_i == {1'b1, {(LLR_W - 1) {1'b0}}}) ?
      LLR_MIN_SYM : $signed(s_axis_tdata_i);
  assign out_free_w = !out_valid_r || m_axis_tready_i;

  // Memory write ports (no reset, see above).
  always_ff @(posedge clk) begin
    if (state_r == ST_LOAD && in_fire_w && step_r < {1'b0, k_r}) begin
      if (load_stream_r == 2'd0) begin
        sys_mem_r[step_r[12:0]] <= in_llr_w;
        ext_mem_r[step_r[12:0]] <= '0;
      end
      if (load_stream_r == 2'd1) p1_mem_r[step_r[12:0]] <= in_llr_w;
      if (load_stream_r == 2'd2) p2_mem_r[step_r[12:0]] <= in_llr_w;
    end
    if (state_r == ST_FWD) alpha_mem_r[step_r[12:0]] <= {alpha_r[7], alpha_r[6], alpha_r[5],
        alpha_r[4], alpha_r[3], alpha_r[2], alpha_r[1], alpha_r[0]};
    if (state_r == ST_BWD && !tail_step_w) begin
      ext_mem_r[k_nat_w] <= le_scaled_w;
      if (dec2_r) app_mem_r[k_nat_w] <= app_w;
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      state_r <= ST_IDLE;
      k_r <= '0;
      f1_r <= '0;
      f2x2_r <= '0;
      g0_r <= '0;
      pi_last_r <= '0;
      gb0_r <= '0;
      max_iter_r <= '0;
      crc_type_r <= 1'b0;
      dec2_r <= 1'b0;
      iter_r <= '0;
      step_r <= '0;
      load_stream_r <= '0;
      pi_r <= '0;
      g_r <= '0;
      crc_r <= '0;
      crc_ok_r <= 1'b0;
      crc_busy_r <= 1'b0;
      for (int s = 0; s < 8; s++) begin
        alpha_r[s] <= '0;
        beta_r[s] <= '0;
      end
      for (int t = 0; t < 12; t++) tail_r[t] <= '0;
      out_data_r <= '0;
      out_valid_r <= 1'b0;
      out_last_r <= 1'b0;
    end else begin
      if (out_valid_r && m_axis_tready_i) out_valid_r <= 1'b0;
      case (state_r)
        ST_IDLE: begin
          if (s_axis_tvalid_i) begin
            k_r <= k_i;
            f1_r <= {3'd0, f1_i};
            f2x2_r <= mod_add({2'd0, f2_i}, {2'd0, f2_i}, k_i);
            g0_r <= mod_add({3'd0, f1_i}, {2'd0, f2_i}, k_i);
            pi_last_r <= mod_sub({2'd0, f2_i}, {3'd0, f1_i}, k_i);
            max_iter_r <= max_iter_i;
            crc_type_r <= crc_type_i;
            step_r <= '0;
            load_stream_r <= '0;
            state_r <= ST_LOAD;
          end
        end
        ST_LOAD: begin
          // g(K-2) = (f1 - 3 f2) mod K, from the values latched on entry.
          gb0_r <= mod_sub(f1_r, mod_add(f2x2_r, mod_sub(g0_r, f1_r, k_r), k_r), k_r);
          if (in_fire_w) begin
            if (step_r >= {1'b0, k_r}) tail_r[{load_stream_r, step_r[1:0]}] <= in_llr_w;
            if (step_r == {1'b0, k_r} + 14'd3) begin
              step_r <= '0;
              load_stream_r <= load_stream_r + 2'd1;
            end else begin
              step_r <= step_r + 14'd1;
            end
            if (s_axis_tlast_i) begin
              iter_r <= 4'd1;
              dec2_r <= 1'b0;
              step_r <= '0;
              pi_r <= '0;
              g_r <= g0_r;
              alpha_r[0] <= '0;
              for (int s = 1; s < 8; s++) alpha_r[s] <= SM_NEG;
              state_r <= ST_FWD;
            end
          end
        end
        ST_FWD: begin
          for (int s = 0; s < 8; s++) alpha_r[s] <= alpha_next_w[s];
          pi_r <= mod_add(pi_r, g_r, k_r);
          g_r <= mod_add(g_r, f2x2_r, k_r);
          if (step_r == n_steps_w - 14'd1) begin
            beta_r[0] <= '0;
            for (int s = 1; s < 8; s++) beta_r[s] <= SM_NEG;
            // The backward pass meets the systematic bits at K-1 with Pi(K-1) and g(K-2).
            pi_r <= pi_last_r;
            g_r <= gb0_r;
            state_r <= ST_BWD;
          end else begin
            step_r <= step_r + 14'd1;
          end
          // The hard decisions of the previous iteration are CRC-checked in natural order while
          // the first forward pass of this one runs; a pass ends the block here.
          if (crc_busy_r) begin
            crc_r <= crc_next_w;
            if (step_r == {1'b0, k_r} - 14'd1) begin
              crc_busy_r <= 1'b0;
              crc_ok_r <= (crc_next_w == '0);
              if (crc_next_w == '0) begin
                step_r <= '0;
                state_r <= ST_OUT;
              end else begin
                iter_r <= iter_r + 4'd1;
              end
            end
          end
        end
        ST_BWD: begin
          for (int s = 0; s < 8; s++) beta_r[s] <= beta_next_w[s];
          if (!tail_step_w) begin
            pi_r <= mod_sub(pi_r, g_r, k_r);
            g_r <= mod_sub(g_r, f2x2_r, k_r);
          end
          if (step_r == '0) begin
            crc_r <= '0;
            if (dec2_r && iter_r == max_iter_r) begin
              state_r <= ST_CRC;
            end else if (dec2_r) begin
              crc_busy_r <= 1'b1;
              dec2_r <= 1'b0;
              pi_r <= '0;
              g_r <= g0_r;
              alpha_r[0] <= '0;
              for (int s = 1; s < 8; s++) alpha_r[s] <= SM_NEG;
              state_r <= ST_FWD;
            end else begin
              dec2_r <= 1'b1;
              pi_r <= '0;
              g_r <= g0_r;
              alpha_r[0] <= '0;
              for (int s = 1; s < 8; s++) alpha_r[s] <= SM_NEG;
              state_r <= ST_FWD;
            end
          end else begin
            step_r <= step_r - 14'd1;
          end
        end
        ST_CRC: begin
          crc_r <= crc_next_w;
          if (step_r == {1'b0, k_r} - 14'd1) begin
            step_r <= '0;
            // Only the last allowed iteration is checked here, with nothing left to overlap.
            crc_ok_r <= (crc_next_w == '0);
            state_r <= ST_OUT;
          end else begin
            step_r <= step_r + 14'd1;
          end
        end
        ST_OUT: begin
          if (out_free_w) begin
            out_data_r <= $unsigned(app_mem_r[step_r[12:0]]);
            out_valid_r <= 1'b1;
            out_last_r <= (step_r == {1'b0, k_r} - 14'd1);
            step_r <= step_r + 14'd1;
            if (step_r == {1'b0, k_r} - 14'd1) state_r <= ST_IDLE;
          end
        end
        default: state_r <= ST_IDLE;
      endcase
    end
  end

  assign m_axis_tdata_o = out_data_r;
  assign m_axis_tuser_o = {crc_ok_r, iter_r};
  assign m_axis_tvalid_o = out_valid_r;
  assign m_axis_tlast_o = out_last_r;

endmodule

`default_nettype wire
