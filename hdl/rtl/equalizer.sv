`default_nettype none
// One-tap zero-forcing / MMSE equaliser of the PDSCH REs (receiver for the TS 36.211 6.3.5 /
// 6.12 transmission; no clause prescribes the receiver), bit-true to refmodels/equalizer.py
// equalize_fixed:
//   num = Y conj(H), P = |H|^2, den = max(P (ZF) or P + N0 (MMSE), 1)
//   x   = sat16(round_half_up(num 2^12 / den))    EQ_OUT (Q3.12), I and Q
//   1/N0_eff = sat16(round_half_up(den 2^8 / N0)) LLR_SCALE (Q7.8), N0 taken as >= 1
// round_half_up(a / b) = floor((2a + b) / 2b): three restoring divisions per RE on magnitudes
// (a negative dividend N gives -floor((|N| + 2b - 1) / 2b)). The quotient needs only 15 bits
// (both outputs saturate at +-32767), so a dividend >= 2^15 times the divisor saturates and the
// divider is DIV_BITS pipelined subtract-compare stages: one RE per cycle, latency
// DIV_BITS + 3 cycles. The whole pipeline advances together when the output register is free.
//
// In:  s_axis_tdata_i = {Y_I, Y_Q, H_I, H_Q} (FFT_OUT Y, CHAN_EST H), one RE per beat;
//      n0_i (NOISE_VAR raw, unsigned) and mmse_i (0 = ZF, 1 = MMSE) are taken with each RE.
// Out: m_axis_tdata_o = {X_I, X_Q} (EQ_OUT), m_axis_tuser_o = 1/N0_eff (LLR_SCALE); tlast
//      passes through.
module equalizer (
    input  logic                                      clk,
    input  logic                                      rst_n,
    input  logic [  lte_baseband_pkg::NOISE_VAR_W-1:0] n0_i,
    input  logic                                      mmse_i,
    input  logic [lte_baseband_pkg::EQ_IN_TDATA_W-1:0] s_axis_tdata_i,
    input  logic                                      s_axis_tvalid_i,
    output logic                                      s_axis_tready_o,
    input  logic                                      s_axis_tlast_i,
    output logic [   lte_baseband_pkg::EQ_TDATA_W-1:0] m_axis_tdata_o,
    output logic [  lte_baseband_pkg::LLR_SCALE_W-1:0] m_axis_tuser_o,
    output logic                                      m_axis_tvalid_o,
    input  logic                                      m_axis_tready_i,
    output logic                                      m_axis_tlast_o
);
  import lte_baseband_pkg::*;

  // EQ_OUT and LLR_SCALE are both 16-bit words saturating at 2^15 - 1: one quotient width.
  localparam int DIV_BITS = EQ_OUT_W - 1;
  localparam int NUM_W = FFT_OUT_W + CHAN_EST_W + 1;  // Y conj(H) component, signed
  localparam int POW_W = 2 * CHAN_EST_W;  // |H|^2 <= 2^31
  localparam int DEN_W = POW_W + 1;  // |H|^2 + N0
  localparam int DX_W = DEN_W + 1;  // 2 den
  localparam int DS_W = NOISE_VAR_W + 1;  // 2 N0
  localparam int NX_W = NUM_W + EQ_OUT_FRAC + 2;  // num 2^13 + den, signed
  localparam int REM_W = NX_W;  // every dividend magnitude (< 2^45) fits
  localparam logic [DX_W-1:0] DX_ONE = DX_W'(1);
  localparam logic [EQ_OUT_W-1:0] SAT_MAG = EQ_OUT_W'((1 << (EQ_OUT_W - 1)) - 1);

  // ---------------------------------------------------------------- products
  logic                           adv_w;
  logic                           mul_vld_r;
  logic signed [     NUM_W-1:0]   mul_num_i_r;
  logic signed [     NUM_W-1:0]   mul_num_q_r;
  logic        [     POW_W-1:0]   mul_pow_r;
  logic        [NOISE_VAR_W-1:0]  mul_n0_r;
  logic                           mul_mmse_r;
  logic                           mul_last_r;
  logic signed [ FFT_OUT_W-1:0]   y_i_w;
  logic signed [ FFT_OUT_W-1:0]   y_q_w;
  logic signed [CHAN_EST_W-1:0]   h_i_w;
  logic signed [CHAN_EST_W-1:0]   h_q_w;
  logic signed [   2*CHAN_EST_W-1:0] prod_ii_w;
  logic signed [   2*CHAN_EST_W-1:0] prod_qq_w;
  logic signed [   2*CHAN_EST_W-1:0] prod_qi_w;
  logic signed [   2*CHAN_EST_W-1:0] prod_iq_w;
  logic signed [   2*CHAN_EST_W-1:0] pow_ii_w;
  logic signed [   2*CHAN_EST_W-1:0] pow_qq_w;
  logic signed [        NUM_W-1:0] num_i_w;
  logic signed [        NUM_W-1:0] num_q_w;
  logic        [        POW_W-1:0] pow_w;

  // ---------------------------------------------------------------- divider pipeline
  // Index 0 is the prepared dividends; stage s computes quotient bit DIV_BITS-1-s into s+1.
  logic [DIV_BITS:0]                    div_vld_r;
  logic [DIV_BITS:0]                    div_last_r;
  logic [DIV_BITS:0]                    div_neg_i_r;
  logic [DIV_BITS:0]                    div_neg_q_r;
  logic [DIV_BITS:0]                    div_ovf_i_r;
  logic [DIV_BITS:0]                    div_ovf_q_r;
  logic [DIV_BITS:0]                    div_ovf_s_r;
  logic [REM_W-1:0]                     rem_i_0_r;
  logic [REM_W-1:0]                     rem_q_0_r;
  logic [REM_W-1:0]                     rem_s_0_r;
  logic [DX_W-1:0]                      dx_i_0_r;
  logic [DX_W-1:0]                      dx_q_0_r;
  logic [DS_W-1:0]                      ds_0_r;
  logic [DIV_BITS-1:0]                  quot_i_w;
  logic [DIV_BITS-1:0]                  quot_q_w;
  logic [DIV_BITS-1:0]                  quot_s_w;

  // prepared dividends of stage 0
  logic [REM_W-1:0] prep_rem_i_w;
  logic [REM_W-1:0] prep_rem_q_w;
  logic [REM_W-1:0] prep_rem_s_w;
  logic [ DX_W-1:0] prep_dx_w;
  logic [ DS_W-1:0] prep_ds_w;
  logic             prep_neg_i_w;
  logic             prep_neg_q_w;
  logic             prep_ovf_i_w;
  logic             prep_ovf_q_w;
  logic             prep_ovf_s_w;

  // ---------------------------------------------------------------- output
  logic                     out_valid_r;
  logic [  EQ_TDATA_W-1:0]  out_data_r;
  logic [LLR_SCALE_W-1:0]   out_user_r;
  logic                     out_last_r;
  logic [    EQ_OUT_W-1:0]  x_i_w;
  logic [    EQ_OUT_W-1:0]  x_q_w;
  logic [LLR_SCALE_W-1:0]   scale_w;

  assign adv_w = !out_valid_r || m_axis_tready_i;
  assign s_axis_tready_o = adv_w;

  assign y_i_w = $signed(s_axis_tdata_i[EQ_IN_TDATA_W-1-:FFT_OUT_W]);
  assign y_q_w = $signed(s_axis_tdata_i[EQ_IN_TDATA_W-FFT_OUT_W-1-:FFT_OUT_W]);
  assign h_i_w = $signed(s_axis_tdata_i[2*CHAN_EST_W-1-:CHAN_EST_W]);
  assign h_q_w = $signed(s_axis_tdata_i[CHAN_EST_W-1:0]);

  // Y conj(H) = (Yi Hi + Yq Hq) + j(Yq Hi - Yi Hq); all products exact.
  always_comb begin
    prod_ii_w = y_i_w * h_i_w;
    prod_qq_w = y_q_w * h_q_w;
    prod_qi_w = y_q_w * h_i_w;
    prod_iq_w = y_i_w * h_q_w;
    pow_ii_w  = h_i_w * h_i_w;
    pow_qq_w  = h_q_w * h_q_w;
    num_i_w   = NUM_W'(prod_ii_w) + NUM_W'(prod_qq_w);
    num_q_w   = NUM_W'(prod_qi_w) - NUM_W'(prod_iq_w);
    pow_w     = $unsigned(pow_ii_w) + $unsigned(pow_qq_w);  // <= 2^31, no carry out
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      mul_vld_r   <= 1'b0;
      mul_num_i_r <= '0;
      mul_num_q_r <= '0;
      mul_pow_r   <= '0;
      mul_n0_r    <= '0;
      mul_mmse_r  <= 1'b0;
      mul_last_r  <= 1'b0;
    end else if (adv_w) begin
      mul_vld_r   <= s_axis_tvalid_i;
      mul_num_i_r <= num_i_w;
      mul_num_q_r <= num_q_w;
      mul_pow_r   <= pow_w;
      mul_n0_r    <= n0_i;
      mul_mmse_r  <= mmse_i;
      mul_last_r  <= s_axis_tlast_i;
    end
  end

  // round_half_up(a / b) = floor(N / 2b) with N = 2a + b; for N < 0 the magnitude is rounded
  // up first. A quotient of 2^15 or more saturates (ovf).
  always_comb begin
    logic        [     DEN_W-1:0] den;
    logic        [NOISE_VAR_W-1:0] n0c;
    logic signed [      NX_W-1:0] nx_i;
    logic signed [      NX_W-1:0] nx_q;
    logic        [      NX_W-1:0] mag_i;
    logic        [      NX_W-1:0] mag_q;
    logic signed [       DEN_W:0] den_s;
    den = mul_mmse_r ? DEN_W'(mul_pow_r) + DEN_W'(mul_n0_r) : DEN_W'(mul_pow_r);
    if (den == '0) den = DEN_W'(1);
    n0c = (mul_n0_r == '0) ? NOISE_VAR_W'(1) : mul_n0_r;
    prep_dx_w = {den, 1'b0};
    prep_ds_w = {n0c, 1'b0};
    den_s = $signed({1'b0, den});
    nx_i = (NX_W'(mul_num_i_r) <<< (EQ_OUT_FRAC + 1)) + NX_W'(den_s);
    nx_q = (NX_W'(mul_num_q_r) <<< (EQ_OUT_FRAC + 1)) + NX_W'(den_s);
    prep_neg_i_w = nx_i[NX_W-1];
    prep_neg_q_w = nx_q[NX_W-1];
    // den >= 1, so 2 den - 1 >= 1.
    mag_i = prep_neg_i_w ? $unsigned(-nx_i) + NX_W'(prep_dx_w - DX_ONE) : $unsigned(nx_i);
    mag_q = prep_neg_q_w ? $unsigned(-nx_q) + NX_W'(prep_dx_w - DX_ONE) : $unsigned(nx_q);
    prep_rem_i_w = mag_i;
    prep_rem_q_w = mag_q;
    prep_rem_s_w = (REM_W'(den) << (LLR_SCALE_FRAC + 1)) + REM_W'(n0c);
    prep_ovf_i_w = (prep_rem_i_w >> DIV_BITS) >= REM_W'(prep_dx_w);
    prep_ovf_q_w = (prep_rem_q_w >> DIV_BITS) >= REM_W'(prep_dx_w);
    prep_ovf_s_w = (prep_rem_s_w >> DIV_BITS) >= REM_W'(prep_ds_w);
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      div_vld_r   <= '0;
      div_last_r  <= '0;
      div_neg_i_r <= '0;
      div_neg_q_r <= '0;
      div_ovf_i_r <= '0;
      div_ovf_q_r <= '0;
      div_ovf_s_r <= '0;
      rem_i_0_r <= '0;
      rem_q_0_r <= '0;
      rem_s_0_r <= '0;
      dx_i_0_r <= '0;
      dx_q_0_r <= '0;
      ds_0_r <= '0;
    end else if (adv_w) begin
      div_vld_r   <= {div_vld_r[DIV_BITS-1:0], mul_vld_r};
      div_last_r  <= {div_last_r[DIV_BITS-1:0], mul_last_r};
      div_neg_i_r <= {div_neg_i_r[DIV_BITS-1:0], prep_neg_i_w};
      div_neg_q_r <= {div_neg_q_r[DIV_BITS-1:0], prep_neg_q_w};
      div_ovf_i_r <= {div_ovf_i_r[DIV_BITS-1:0], prep_ovf_i_w};
      div_ovf_q_r <= {div_ovf_q_r[DIV_BITS-1:0], prep_ovf_q_w};
      div_ovf_s_r <= {div_ovf_s_r[DIV_BITS-1:0], prep_ovf_s_w};
      rem_i_0_r <= prep_rem_i_w;
      rem_q_0_r <= prep_rem_q_w;
      rem_s_0_r <= prep_rem_s_w;
      dx_i_0_r <= prep_dx_w;
      dx_q_0_r <= prep_dx_w;
      ds_0_r <= ~prep_ds_w;  // travels inverted, see restoring_div_stage
    end
  end

  // Stage s computes quotient bit DIV_BITS-1-s; the quotient enters as zeros and its bits
  // shift in from the LSB, MSB first.
  for (genvar s = 0; s < DIV_BITS; s++) begin : gen_div
    logic [   REM_W-1:0] rem_i_in_w;
    logic [   REM_W-1:0] rem_q_in_w;
    logic [   REM_W-1:0] rem_s_in_w;
    logic [    DX_W-1:0] dx_i_in_w;
    logic [    DX_W-1:0] dx_q_in_w;
    logic [    DS_W-1:0] ds_in_w;
    logic [DIV_BITS-1:0] quo_i_in_w;
    logic [DIV_BITS-1:0] quo_q_in_w;
    logic [DIV_BITS-1:0] quo_s_in_w;
    // The last stage's remainder and divisor feed nothing (only its quotient is used).
    /* verilator lint_off UNUSEDSIGNAL */
    logic [   REM_W-1:0] rem_i_w;
    logic [   REM_W-1:0] rem_q_w;
    logic [   REM_W-1:0] rem_s_w;
    logic [    DX_W-1:0] dx_i_w;
    logic [    DX_W-1:0] dx_q_w;
    logic [    DS_W-1:0] ds_w;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [DIV_BITS-1:0] quo_i_w;
    logic [DIV_BITS-1:0] quo_q_w;
    logic [DIV_BITS-1:0] quo_s_w;
    if (s == 0) begin : gen_first
      assign rem_i_in_w = rem_i_0_r;
      assign rem_q_in_w = rem_q_0_r;
      assign rem_s_in_w = rem_s_0_r;
      assign dx_i_in_w  = dx_i_0_r;
      assign dx_q_in_w  = dx_q_0_r;
      assign ds_in_w    = ds_0_r;
      assign quo_i_in_w = '0;
      assign quo_q_in_w = '0;
      assign quo_s_in_w = '0;
    end else begin : gen_next
      assign rem_i_in_w = gen_div[s-1].rem_i_w;
      assign rem_q_in_w = gen_div[s-1].rem_q_w;
      assign rem_s_in_w = gen_div[s-1].rem_s_w;
      assign dx_i_in_w  = gen_div[s-1].dx_i_w;
      assign dx_q_in_w  = gen_div[s-1].dx_q_w;
      assign ds_in_w    = gen_div[s-1].ds_w;
      assign quo_i_in_w = gen_div[s-1].quo_i_w;
      assign quo_q_in_w = gen_div[s-1].quo_q_w;
      assign quo_s_in_w = gen_div[s-1].quo_s_w;
    end
    restoring_div_stage #(
        .REM_W(REM_W),
        .DEN_W(DX_W),
        .Q_W  (DIV_BITS),
        .SHIFT(DIV_BITS - 1 - s)
    ) u_div_i (
        .clk  (clk),
        .rst_n(rst_n),
        .en_i (adv_w),
        .rem_i(rem_i_in_w),
        .den_i(dx_i_in_w),
        .quo_i(quo_i_in_w),
        .rem_o(rem_i_w),
        .den_o(dx_i_w),
        .quo_o(quo_i_w)
    );
    restoring_div_stage #(
        .REM_W(REM_W),
        .DEN_W(DX_W),
        .Q_W  (DIV_BITS),
        .SHIFT(DIV_BITS - 1 - s)
    ) u_div_q (
        .clk  (clk),
        .rst_n(rst_n),
        .en_i (adv_w),
        .rem_i(rem_q_in_w),
        .den_i(dx_q_in_w),
        .quo_i(quo_q_in_w),
        .rem_o(rem_q_w),
        .den_o(dx_q_w),
        .quo_o(quo_q_w)
    );
    restoring_div_stage #(
        .REM_W(REM_W),
        .DEN_W(DS_W),
        .Q_W  (DIV_BITS),
        .SHIFT(DIV_BITS - 1 - s),
        .DEN_INV(1'b1)
    ) u_div_s (
        .clk  (clk),
        .rst_n(rst_n),
        .en_i (adv_w),
        .rem_i(rem_s_in_w),
        .den_i(ds_in_w),
        .quo_i(quo_s_in_w),
        .rem_o(rem_s_w),
        .den_o(ds_w),
        .quo_o(quo_s_w)
    );
  end

  assign quot_i_w = gen_div[DIV_BITS-1].quo_i_w;
  assign quot_q_w = gen_div[DIV_BITS-1].quo_q_w;
  assign quot_s_w = gen_div[DIV_BITS-1].quo_s_w;

  // Saturate (quotient >= 2^15) and restore the sign; the range stays symmetric.
  always_comb begin
    logic [EQ_OUT_W-1:0] mag_i;
    logic [EQ_OUT_W-1:0] mag_q;
    mag_i = div_ovf_i_r[DIV_BITS] ? SAT_MAG : EQ_OUT_W'(quot_i_w);
    mag_q = div_ovf_q_r[DIV_BITS] ? SAT_MAG : EQ_OUT_W'(quot_q_w);
    x_i_w = div_neg_i_r[DIV_BITS] ? -mag_i : mag_i;
    x_q_w = div_neg_q_r[DIV_BITS] ? -mag_q : mag_q;
    scale_w = div_ovf_s_r[DIV_BITS] ? SAT_MAG : LLR_SCALE_W'(quot_s_w);
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      out_valid_r <= 1'b0;
      out_data_r  <= '0;
      out_user_r  <= '0;
      out_last_r  <= 1'b0;
    end else if (adv_w) begin
      out_valid_r <= div_vld_r[DIV_BITS];
      out_data_r  <= {x_i_w, x_q_w};
      out_user_r  <= scale_w;
      out_last_r  <= div_last_r[DIV_BITS];
    end
  end

  assign m_axis_tdata_o  = out_data_r;
  assign m_axis_tuser_o  = out_user_r;
  assign m_axis_tvalid_o = out_valid_r;
  assign m_axis_tlast_o  = out_last_r;
endmodule
`default_nettype wire
