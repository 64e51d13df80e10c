`default_nettype none
// Max-log soft demapper for the QPSK / 16QAM / 64QAM constellations of TS 36.211 clause 7.1.
//
// LLR(b_i) = (min_{s: b_i=0} |y-s|^2 - min_{s: b_i=1} |y-s|^2) / N0, positive = bit 1.
// The constellations are Gray PAMs per axis (I carries b0, b2, b4; Q carries b1, b3, b5), so
// each bit needs only the distances on its own axis. Bit-true to refmodels/qam_demodulator.py:
// LLR = sat8((D * scale + 2^29) >>> 30), D in EQ_OUT LSB^2, scale in LLR_SCALE LSBs.
//
// In:  one equalised symbol per beat, s_axis_tdata_i = {I, Q} (EQ_OUT each), s_axis_tuser_i =
//      its 1/N0 scale (LLR_SCALE); modulation_i (lte_baseband_pkg::modulation_e) is taken
//      with each symbol.
// Out: Qm LLRs per symbol, b0 first, one per beat; tlast on the last LLR of the tlast symbol.
// Three pipeline stages after the symbol register: nearest levels, distance metric, scaling
// (the search and the multiplier each take most of a 10 ns cycle on a 0.18 um library).
module qam_demodulator (
    input  logic                                   clk,
    input  logic                                   rst_n,
    input  logic [                            1:0] modulation_i,
    input  logic [ lte_baseband_pkg::EQ_TDATA_W-1:0] s_axis_tdata_i,
    input  logic [lte_baseband_pkg::LLR_SCALE_W-1:0] s_axis_tuser_i,
    input  logic                                   s_axis_tvalid_i,
    output logic                                   s_axis_tready_o,
    input  logic                                   s_axis_tlast_i,
    output logic [      lte_baseband_pkg::LLR_W-1:0] m_axis_tdata_o,
    output logic                                   m_axis_tvalid_o,
    input  logic                                   m_axis_tready_i,
    output logic                                   m_axis_tlast_o
);
  import lte_baseband_pkg::*;

  localparam int DIFF_W = EQ_OUT_W + 2;  // y - level needs 17 bits; one spare
  localparam int DIST_W = 2 * DIFF_W;  // D = (b - a)(2y - a - b) fits 33 bits
  // |b - a| <= 8848 and |2y - a - b| <= 2^16 + 8848: both factors fit DIFF_W signed bits, so
  // the multiplier is DIFF_W x DIFF_W, not DIST_W x DIST_W.
  localparam int PROD_W = DIST_W + LLR_SCALE_W + 1;
  localparam int SHIFT = 2 * EQ_OUT_FRAC + LLR_SCALE_FRAC - LLR_FRAC;  // 30
  localparam logic signed [PROD_W-1:0] HALF_LSB = PROD_W'(64'sd1 <<< (SHIFT - 1));
  localparam logic signed [PROD_W-1:0] SAT_POS = PROD_W'(LLR_MAX);
  localparam logic signed [PROD_W-1:0] SAT_NEG = -SAT_POS;

  // PAM level of axis pattern p (MSB first) in EQ_OUT units: round(a / sqrt(norm) * 2^12)
  // with a the Gray-mapped odd amplitude of 7.1 and norm 2, 10, 42.
  function automatic logic signed [EQ_OUT_W-1:0] level(input logic [1:0] md,
                                                       input logic [2:0] p);
    logic signed [EQ_OUT_W-1:0] mag;
    logic                       negative;
    mag = '0;
    negative = 1'b0;
    if (md == MOD_QPSK) begin
      mag = 16'sd2896;
      negative = p[0];
    end else if (md == MOD_16QAM) begin
      mag = p[0] ? 16'sd3886 : 16'sd1295;
      negative = p[1];
    end else begin
      case (p[1:0])
        2'd0: mag = 16'sd1896;
        2'd1: mag = 16'sd632;
        2'd2: mag = 16'sd3160;
        default: mag = 16'sd4424;
      endcase
      negative = p[2];
    end
    // The first axis bit is the sign: pattern MSB set = negative amplitude.
    level = negative ? -mag : mag;
  endfunction

  function automatic logic [1:0] bits_per_axis(input logic [1:0] md);
    if (md == MOD_QPSK) bits_per_axis = 2'd1;
    else if (md == MOD_16QAM) bits_per_axis = 2'd2;
    else bits_per_axis = 2'd3;
  endfunction

  // ---------------------------------------------------------------- symbol register
  logic                          sym_valid_r;
  logic signed [ EQ_OUT_W-1:0]   sym_i_r;
  logic signed [ EQ_OUT_W-1:0]   sym_q_r;
  logic        [LLR_SCALE_W-1:0] sym_scale_r;
  logic        [            1:0] sym_mod_r;
  logic                          sym_last_r;
  logic        [            2:0] bit_idx_r;
  logic        [            2:0] bit_max_w;
  logic                          bit_fire_w;
  logic                          sym_done_w;

  // ---------------------------------------------------------------- nearest-level stage
  logic                          n_valid_r;
  logic signed [ EQ_OUT_W-1:0]   n_y_r;
  logic signed [ EQ_OUT_W-1:0]   n_near0_r;
  logic signed [ EQ_OUT_W-1:0]   n_near1_r;
  logic        [LLR_SCALE_W-1:0] n_scale_r;
  logic                          n_last_r;
  logic                          n_ready_w;
  logic signed [ EQ_OUT_W-1:0]   y_w;
  logic signed [ EQ_OUT_W-1:0]   near0_w;
  logic signed [ EQ_OUT_W-1:0]   near1_w;

  // ---------------------------------------------------------------- metric stage
  logic                          d_valid_r;
  logic signed [   DIST_W-1:0]   d_r;
  logic        [LLR_SCALE_W-1:0] d_scale_r;
  logic                          d_last_r;
  logic                          d_ready_w;
  logic signed [   DIST_W-1:0]   d_w;

  // ---------------------------------------------------------------- output stage
  logic                          out_valid_r;
  logic        [    LLR_W-1:0]   out_data_r;
  logic                          out_last_r;
  logic                          out_ready_w;
  logic signed [   PROD_W-1:0]   prod_w;
  logic signed [   PROD_W-1:0]   rounded_w;
  logic        [    LLR_W-1:0]   llr_w;

  assign bit_max_w = {bits_per_axis(sym_mod_r), 1'b0} - 3'd1;
  assign out_ready_w = !out_valid_r || m_axis_tready_i;
  assign d_ready_w = !d_valid_r || out_ready_w;
  assign n_ready_w = !n_valid_r || d_ready_w;
  assign bit_fire_w = sym_valid_r && n_ready_w;
  assign sym_done_w = bit_fire_w && (bit_idx_r == bit_max_w);
  assign s_axis_tready_o = !sym_valid_r || sym_done_w;

  // D of bit bit_idx_r: axis = bit_idx_r[0] (0 = I), axis bit = bit_idx_r[2:1] (0 = MSB).
  // The minimum squared distance over a set is the one to the set's nearest level, so with a
  // and b the nearest levels with the bit at 0 and at 1, D = (y-a)^2 - (y-b)^2 exactly equals
  // (b - a) * (2y - a - b): one multiplier instead of a squarer per level. This stage finds a
  // (near0) and b (near1); the next one multiplies.
  // Each set's nearest level is a 3-level tree of compares (8 -> 4 -> 2 -> 1) rather than a
  // scan of 8 compares in a row. The lower pattern wins a tie (either choice gives the same D,
  // as both are at the same distance). Levels outside the set carry distance '1 and level 0,
  // which no real distance (< 2^17) loses to, so an empty set yields 0.
  always_comb begin
    logic signed [EQ_OUT_W-1:0] y;
    logic signed [  DIFF_W-1:0] diff;
    logic        [  DIFF_W-1:0] adist;
    logic signed [EQ_OUT_W-1:0] lvl;
    logic        [         1:0] nb;
    logic        [         1:0] pos;
    logic        [         2:0] pat;
    logic        [  DIFF_W-1:0] key0 [8];
    logic        [  DIFF_W-1:0] key1 [8];
    logic signed [EQ_OUT_W-1:0] val0 [8];
    logic signed [EQ_OUT_W-1:0] val1 [8];
    y = bit_idx_r[0] ? sym_q_r : sym_i_r;
    nb = bits_per_axis(sym_mod_r);
    pos = nb - 2'd1 - bit_idx_r[2:1];  // bit position of this axis bit in the pattern
    for (int p = 0; p < 8; p++) begin
      pat = p[2:0];
      lvl = level(sym_mod_r, pat);
      diff = DIFF_W'(y) - DIFF_W'(lvl);
      adist = diff[DIFF_W-1] ? $unsigned(-diff) : $unsigned(diff);
      key0[p] = '1;
      key1[p] = '1;
      val0[p] = '0;
      val1[p] = '0;
      if ({1'b0, pat} < (4'd1 << nb)) begin
        if (pat[pos]) begin
          key1[p] = adist;
          val1[p] = lvl;
        end else begin
          key0[p] = adist;
          val0[p] = lvl;
        end
      end
    end
    for (int step = 1; step < 8; step = step * 2) begin
      for (int p = 0; p < 8; p = p + 2 * step) begin
        if (key0[p+step] < key0[p]) begin
          key0[p] = key0[p+step];
          val0[p] = val0[p+step];
        end
        if (key1[p+step] < key1[p]) begin
          key1[p] = key1[p+step];
          val1[p] = val1[p+step];
        end
      end
    end
    y_w = y;
    near0_w = val0[0];
    near1_w = val1[0];
  end

  always_comb begin
    logic signed [DIFF_W-1:0] span;
    logic signed [DIFF_W-1:0] centre;
    span = DIFF_W'(n_near1_r) - DIFF_W'(n_near0_r);
    centre = (DIFF_W'(n_y_r) <<< 1) - DIFF_W'(n_near0_r) - DIFF_W'(n_near1_r);
    d_w = DIST_W'(span) * DIST_W'(centre);
  end

  always_comb begin
    prod_w = PROD_W'(d_r) * $signed({{(PROD_W - LLR_SCALE_W) {d_scale_r[LLR_SCALE_W-1]}},
                                     d_scale_r});
    rounded_w = (prod_w + HALF_LSB) >>> SHIFT;
    if (rounded_w > SAT_POS) llr_w = SAT_POS[LLR_W-1:0];
    else if (rounded_w < SAT_NEG) llr_w = SAT_NEG[LLR_W-1:0];
    else llr_w = rounded_w[LLR_W-1:0];
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      sym_valid_r <= 1'b0;
      sym_i_r <= '0;
      sym_q_r <= '0;
      sym_scale_r <= '0;
      sym_mod_r <= MOD_QPSK;
      sym_last_r <= 1'b0;
      bit_idx_r <= '0;
      n_valid_r <= 1'b0;
      n_y_r <= '0;
      n_near0_r <= '0;
      n_near1_r <= '0;
      n_scale_r <= '0;
      n_last_r <= 1'b0;
      d_valid_r <= 1'b0;
      d_r <= '0;
      d_scale_r <= '0;
      d_last_r <= 1'b0;
      out_valid_r <= 1'b0;
      out_data_r <= '0;
      out_last_r <= 1'b0;
    end else begin
      // Output stage.
      if (out_ready_w) begin
        out_valid_r <= d_valid_r;
        if (d_valid_r) begin
          out_data_r <= llr_w;
          out_last_r <= d_last_r;
        end
      end
      // Metric stage.
      if (d_ready_w) begin
        d_valid_r <= n_valid_r;
        if (n_valid_r) begin
          d_r <= d_w;
          d_scale_r <= n_scale_r;
          d_last_r <= n_last_r;
        end
      end
      // Nearest-level stage.
      if (n_ready_w) begin
        n_valid_r <= sym_valid_r;
        if (sym_valid_r) begin
          n_y_r <= y_w;
          n_near0_r <= near0_w;
          n_near1_r <= near1_w;
          n_scale_r <= sym_scale_r;
          n_last_r <= sym_last_r && (bit_idx_r == bit_max_w);
        end
      end
      // Symbol register.
      if (bit_fire_w) bit_idx_r <= sym_done_w ? 3'd0 : bit_idx_r + 3'd1;
      if (s_axis_tvalid_i && s_axis_tready_o) begin
        sym_valid_r <= 1'b1;
        sym_i_r <= $signed(s_axis_tdata_i[EQ_TDATA_W-1:EQ_OUT_W]);
        sym_q_r <= $signed(s_axis_tdata_i[EQ_OUT_W-1:0]);
        sym_scale_r <= s_axis_tuser_i;
        sym_mod_r <= modulation_i;
        sym_last_r <= s_axis_tlast_i;
      end else if (sym_done_w) begin
        sym_valid_r <= 1'b0;
      end
    end
  end

  assign m_axis_tdata_o = out_data_r;
  assign m_axis_tvalid_o = out_valid_r;
  assign m_axis_tlast_o = out_last_r;

endmodule

`default_nettype wire
