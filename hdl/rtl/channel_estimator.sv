`default_nettype none
// Channel estimator of antenna port 0 from the cell-specific reference signals of TS 36.211
// 6.10.1, bit-true to refmodels/channel_estimator.py estimate_channel_fixed.
//
// Input phase: the 14 x 600 REs of a subframe arrive symbol-major (FFT_OUT {I, Q}); at the CRS
// (l = 0, 4, 7, 11; k = 6m + (v + N_ID mod 6) mod 6, v = 0 at l = 0, 7 and 3 at l = 4, 11,
// TS 36.211 6.10.1.2) the least-squares estimate H = Y conj(r) is stored, r = ((1 - 2c(2m')) +
// j(1 - 2c(2m'+1)))/sqrt2 with m' = m + N_RB^max - N_RB (6.10.1.1), computed as the sign
// flips times round(2^15/sqrt2) rounded at 2^-15. The Gold sequence restarts at the first RE of
// each CRS symbol from c_init = 2^10 (7(n_s+1) + l + 1)(2 N_ID + 1) + 2 N_ID + 1 and skips
// N_C + 2(N_RB^max - N_RB) = 1720 positions, 40 per cycle with the input held off (43 cycles).
// N0 = round(sum |H_l - H_l+7|^2 round(2^20/400) 2^-20) over the 200 pilot pairs of l = 0/7 and
// 4/11, clamped to [1, 2^23 - 1] (NOISE_VAR).
//
// Output phase (after the whole subframe): per RE, linear interpolation in frequency between
// the pilots of the two CRS symbols bracketing l ((A(6-d) + B d) round(2^15/6), rounded at
// 2^-15, held outside the first and last pilot), then in time ((F_a(D-d) + F_b d)
// round(2^15/D), rounded, saturated to CHAN_EST; symbol 0 and 11..13 copy one CRS symbol).
// One CHAN_EST {I, Q} per beat in the input order, tuser = N0 on every beat, tlast on the
// last. Two sliding pilot windows (one per bracketing symbol) read the pilot memory once per
// pilot passed. cell_id_i and subframe_i are taken with the first RE of a subframe.
module channel_estimator (
    input  logic                                     clk,
    input  logic                                     rst_n,
    input  logic [lte_baseband_pkg::N_CELL_ID_W-1:0] cell_id_i,
    input  logic [ lte_baseband_pkg::SUBFRAME_W-1:0] subframe_i,
    input  logic [lte_baseband_pkg::FFT_TDATA_W-1:0] s_axis_tdata_i,
    input  logic                                     s_axis_tvalid_i,
    output logic                                     s_axis_tready_o,
    output logic [lte_baseband_pkg::CHAN_TDATA_W-1:0] m_axis_tdata_o,
    output logic [lte_baseband_pkg::NOISE_VAR_W-1:0] m_axis_tuser_o,
    output logic                                     m_axis_tvalid_o,
    input  logic                                     m_axis_tready_i,
    output logic                                     m_axis_tlast_o
);
  import lte_baseband_pkg::*;

  localparam int N_SC = N_RB_DL_MAX * N_SC_RB;  // 600 subcarriers
  localparam int N_PILOT = 2 * N_RB_DL_MAX;  // CRS per symbol and port 0
  localparam int N_RB_MAX_DL = 110;  // N_RB^max,DL of TS 36.211 6.10.1.1
  localparam int WARM_STEPS = 40;
  localparam int WARM_CYCLES = (GOLD_NC + 2 * (N_RB_MAX_DL - N_RB_DL_MAX)) / WARM_STEPS;
  localparam int WARM_CNT_W = $clog2(WARM_CYCLES + 1);
  localparam int K_W = $clog2(N_SC);
  localparam int M_W = $clog2(N_PILOT);
  localparam int ADDR_W = $clog2(4 * N_PILOT);
  localparam int LS_W = FFT_OUT_W + 1;  // |H_ls| <= 2^16 * 23170 / 2^15 = 46340 < 2^16
  localparam int SUM_W = FFT_OUT_W + 2;  // +-Yr +-Yi
  localparam int DIFF_W = LS_W + 1;
  localparam int SQ_W = 2 * DIFF_W;
  localparam int ACC_W = SQ_W + 9;  // 400 squares
  localparam int INV_SQRT2_Q15 = 23170;  // round(2^15 / sqrt2)
  localparam int RECIP6_Q15 = 5461;  // round(2^15 / 6), CRS spacing in frequency
  localparam int N0_RECIP_Q20 = 2621;  // round(2^20 / (2 * 200 pilot pairs))
  localparam int N0_PROD_W = ACC_W + 13;
  localparam logic [K_W-1:0] K_LAST = K_W'(N_SC - 1);
  localparam logic [ADDR_W-1:0] ROW_STRIDE = ADDR_W'(N_PILOT);
  localparam logic [ADDR_W-1:0] ROW2_OFFSET = ADDR_W'(2 * N_PILOT);
  localparam logic [ADDR_W-1:0] ADDR_ONE = ADDR_W'(1);
  localparam logic [M_W-1:0] M_ONE = M_W'(1);
  localparam logic [M_W-1:0] M_FETCH_LAST = M_W'(N_PILOT - 3);  // prefetch up to pilot m+3
  localparam logic [N0_PROD_W-1:0] N0_RECIP = N0_PROD_W'(N0_RECIP_Q20);
  localparam logic [N0_PROD_W-1:0] N0_HALF = N0_PROD_W'(1 << 19);
  localparam logic [N0_PROD_W-1:0] N0_MAX = N0_PROD_W'((1 << (NOISE_VAR_W - 1)) - 1);
  localparam logic signed [LS_W+19:0] FREQ_RECIP = (LS_W + 20)'(RECIP6_Q15);
  localparam logic signed [LS_W+19:0] FREQ_HALF = (LS_W + 20)'(1 << 14);
  localparam logic signed [SUM_W+15:0] LS_RECIP = (SUM_W + 16)'(INV_SQRT2_Q15);
  localparam logic signed [SUM_W+15:0] LS_HALF = (SUM_W + 16)'(1 << 14);
  localparam logic signed [LS_W+21:0] TIME_HALF = (LS_W + 22)'(1 << 14);
  localparam logic signed [LS_W+21:0] TIME_RECIP1 = (LS_W + 22)'(32768);  // round(2^15 / D)
  localparam logic signed [LS_W+21:0] TIME_RECIP3 = (LS_W + 22)'(10923);
  localparam logic signed [LS_W+21:0] TIME_RECIP4 = (LS_W + 22)'(8192);
  localparam logic signed [LS_W+21:0] H_MAX_W = (LS_W + 22)'((1 << (CHAN_EST_W - 1)) - 1);
  localparam logic signed [LS_W+21:0] H_MIN_W = -H_MAX_W;
  localparam logic [M_W-1:0] M_LAST = M_W'(N_PILOT - 1);
  localparam logic [3:0] SYM_LAST = 4'(N_SYMB_SUBFRAME - 1);

  typedef enum logic [3:0] {
    ST_IDLE   = 4'd0,
    ST_GLOAD  = 4'd1,
    ST_WARM   = 4'd2,
    ST_IN     = 4'd3,
    ST_DRAIN  = 4'd4,
    ST_N0     = 4'd5,
    ST_OLOAD  = 4'd6,
    ST_ORUN   = 4'd7,
    ST_OFLUSH = 4'd8
  } state_e;

  // Frequency interpolation between pilots A (at d = 0) and B (at d = 6), TS 36.211 6.10.1.2.
  function automatic logic signed [LS_W-1:0] freq_interp(input logic signed [LS_W-1:0] a,
                                                          input logic signed [LS_W-1:0] b,
                                                          input logic [2:0] d);
    logic signed [LS_W+4:0] aw;
    logic signed [LS_W+4:0] bw;
    logic signed [LS_W+4:0] wa;
    logic signed [LS_W+4:0] wb;
    logic signed [LS_W+19:0] prod;
    aw = (LS_W + 5)'(a);
    bw = (LS_W + 5)'(b);
    wa = $signed({(LS_W + 2)'(0), 3'd6 - d});
    wb = $signed({(LS_W + 2)'(0), d});
    prod = (LS_W + 20)'(aw * wa + bw * wb) * FREQ_RECIP + FREQ_HALF;
    freq_interp = LS_W'(prod >>> 15);
  endfunction

  // Bracketing CRS symbols (pilot-memory rows 0..3 = l 0, 4, 7, 11) and time weights of l.
  function automatic logic [9:0] time_weights(input logic [3:0] l);
    // {row_a, row_b, D (3 bits), d (3 bits)}
    if (l == 4'd0) time_weights = {2'd0, 2'd0, 3'd1, 3'd0};
    else if (l <= 4'd4) time_weights = {2'd0, 2'd1, 3'd4, 3'(l)};
    else if (l <= 4'd7) time_weights = {2'd1, 2'd2, 3'd3, 3'(l - 4'd4)};
    else if (l <= 4'd10) time_weights = {2'd2, 2'd3, 3'd4, 3'(l - 4'd7)};
    else time_weights = {2'd3, 2'd3, 3'd1, 3'd0};
  endfunction

  state_e                        state_r;
  logic   [   N_CELL_ID_W-1:0]   cell_r;
  logic   [    SUBFRAME_W-1:0]   sf_r;
  logic   [               2:0]   vs_r;  // N_ID mod 6: the pilot offset at v = 0
  logic   [               2:0]   vs3_r;  // (3 + N_ID) mod 6: at v = 3
  logic   [               3:0]   sym_r;
  logic   [           K_W-1:0]   k_r;
  logic   [               2:0]   k_mod6_r;
  logic   [           M_W-1:0]   m_in_r;
  logic   [    WARM_CNT_W-1:0]   warm_cnt_r;
  logic   [      C_INIT_W-1:0]   c_init_w;
  logic   [               1:0]   c_w;
  logic                          in_fire_w;
  logic                          crs_sym_w;
  logic   [               1:0]   crs_row_w;
  logic                          pilot_w;

  // ---------------------------------------------------------------- pilot memory
  logic   [      2*LS_W-1:0]     pilot_mem_r[4*N_PILOT];  // large: no reset, written before read
  logic   [      ADDR_W-1:0]     addr_a_r;
  logic   [      ADDR_W-1:0]     addr_b_r;
  logic   [      2*LS_W-1:0]     rd_a_r;
  logic   [      2*LS_W-1:0]     rd_b_r;

  // ---------------------------------------------------------------- LS / noise pipeline
  logic                          p0_vld_r;
  // Y and c are registered rather than the sums: sum_i and sum_q share their LSB, and
  // synthesis would merge those flip-flops into aliased nets.
  logic signed [  FFT_OUT_W-1:0] p0_yr_r;
  logic signed [  FFT_OUT_W-1:0] p0_yi_r;
  logic        [            1:0] p0_c_r;
  logic signed [      SUM_W-1:0] p0_sum_i_w;
  logic signed [      SUM_W-1:0] p0_sum_q_w;
  logic        [      ADDR_W-1:0] p0_addr_r;
  logic                          p0_noise_r;
  logic                          p1_vld_r;
  logic signed [       LS_W-1:0] p1_ls_i_r;
  logic signed [       LS_W-1:0] p1_ls_q_r;
  logic        [      ADDR_W-1:0] p1_addr_r;
  logic                          p1_noise_r;
  logic                          p2_noise_r;
  logic signed [       LS_W-1:0] p2_ls_i_r;
  logic signed [       LS_W-1:0] p2_ls_q_r;
  logic                          p3_vld_r;
  logic        [       SQ_W:0]   p3_sq_r;
  logic        [      ACC_W-1:0] acc_r;
  logic        [NOISE_VAR_W-1:0] n0_r;
  logic signed [      SUM_W-1:0] yr_w;
  logic signed [      SUM_W-1:0] yi_w;
  logic signed [       LS_W-1:0] ls_i_w;
  logic signed [       LS_W-1:0] ls_q_w;
  logic        [       SQ_W:0]   sq_w;
  logic        [NOISE_VAR_W-1:0] n0_w;

  // ---------------------------------------------------------------- output pipeline
  logic                          adv_w;
  logic        [            1:0] ld_r;
  logic        [            3:0] l_out_r;
  logic        [        K_W-1:0] k_out_r;
  logic                          a_vld_r;
  logic        [            2:0] big_d_r;  // D
  logic        [            2:0] t_d_r;  // d in time
  // source a / b: before the first pilot, pilot index, offset from it, window {lo, hi}
  logic                          pre_a_r;
  logic                          pre_b_r;
  logic        [            2:0] sh_a_r;
  logic        [            2:0] sh_b_r;
  logic        [        M_W-1:0] m_a_r;
  logic        [        M_W-1:0] m_b_r;
  logic        [            2:0] d_a_r;
  logic        [            2:0] d_b_r;
  logic        [     2*LS_W-1:0] lo_a_r;
  logic        [     2*LS_W-1:0] hi_a_r;
  logic        [     2*LS_W-1:0] lo_b_r;
  logic        [     2*LS_W-1:0] hi_b_r;
  logic                          b_vld_r;
  logic                          b_last_r;
  logic signed [       LS_W-1:0] fa_i_r;
  logic signed [       LS_W-1:0] fa_q_r;
  logic signed [       LS_W-1:0] fb_i_r;
  logic signed [       LS_W-1:0] fb_q_r;
  logic        [            2:0] b_big_d_r;
  logic        [            2:0] b_t_d_r;
  logic                          out_valid_r;
  logic        [ CHAN_TDATA_W-1:0] out_data_r;
  logic                          out_last_r;
  logic signed [       LS_W-1:0] fa_i_w;
  logic signed [       LS_W-1:0] fa_q_w;
  logic signed [       LS_W-1:0] fb_i_w;
  logic signed [       LS_W-1:0] fb_q_w;
  logic        [ CHAN_TDATA_W-1:0] h_w;
  logic        [            9:0] tw_w;
  logic        [            2:0] sh_next_a_w;
  logic        [            2:0] sh_next_b_w;

  gold_sequence #(
      .WARM_STEPS(WARM_STEPS)
  ) u_gold (
      .clk     (clk),
      .rst_n   (rst_n),
      .load_i  (state_r == ST_GLOAD),
      .c_init_i(c_init_w),
      .warm_i  (state_r == ST_WARM),
      .step2_i (in_fire_w && pilot_w),
      .c_o     (c_w)
  );

  // c_init of 6.10.1.1 with N_CP = 1; 2 N_ID + 1 < 2^10, so the sum is a concatenation.
  always_comb begin
    logic [4:0] n_s;
    logic [7:0] t;
    logic [9:0] two_n1;
    logic [3:0] l_slot;
    n_s = {sf_r, sym_r >= 4'd7};
    l_slot = (sym_r >= 4'd7) ? sym_r - 4'd7 : sym_r;
    t = 8'd7 * (8'(n_s) + 8'd1) + 8'(l_slot) + 8'd1;
    two_n1 = {cell_r, 1'b1};
    c_init_w = {21'(t) * 21'(two_n1), two_n1};
  end

  assign crs_sym_w = (sym_r == 4'd0) || (sym_r == 4'd4) || (sym_r == 4'd7) || (sym_r == 4'd11);
  assign crs_row_w = (sym_r == 4'd0) ? 2'd0 :
                     (sym_r == 4'd4) ? 2'd1 :
                     (sym_r == 4'd7) ? 2'd2 : 2'd3;
  assign pilot_w = crs_sym_w && (k_mod6_r == (crs_row_w[0] ? vs3_r : vs_r));
  assign s_axis_tready_o = (state_r == ST_IN);
  assign in_fire_w = s_axis_tvalid_i && s_axis_tready_o;

  // ---------------------------------------------------------------- input control
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      state_r <= ST_IDLE;
      cell_r <= '0;
      sf_r <= '0;
      vs_r <= '0;
      vs3_r <= '0;
      sym_r <= '0;
      k_r <= '0;
      k_mod6_r <= '0;
      m_in_r <= '0;
      warm_cnt_r <= '0;
    end else begin
      case (state_r)
        ST_IDLE: begin
          if (s_axis_tvalid_i) begin
            cell_r <= cell_id_i;
            sf_r <= subframe_i;
            vs_r <= 3'(cell_id_i % 9'd6);
            vs3_r <= 3'((cell_id_i + 9'd3) % 9'd6);
            sym_r <= '0;
            k_r <= '0;
            k_mod6_r <= '0;
            state_r <= ST_GLOAD;
          end
        end
        ST_GLOAD: begin
          warm_cnt_r <= WARM_CNT_W'(WARM_CYCLES);
          m_in_r <= '0;
          state_r <= ST_WARM;
        end
        ST_WARM: begin
          warm_cnt_r <= warm_cnt_r - 1'b1;
          if (warm_cnt_r == 1) state_r <= ST_IN;
        end
        ST_IN: begin
          if (in_fire_w) begin
            if (pilot_w) m_in_r <= m_in_r + 1'b1;
            k_mod6_r <= (k_mod6_r == 3'd5) ? 3'd0 : k_mod6_r + 3'd1;
            if (k_r == K_LAST) begin
              k_r <= '0;
              k_mod6_r <= '0;
              sym_r <= sym_r + 4'd1;
              if (sym_r == SYM_LAST) state_r <= ST_DRAIN;
              else if (sym_r == 4'd3 || sym_r == 4'd6 || sym_r == 4'd10) state_r <= ST_GLOAD;
            end else begin
              k_r <= k_r + 1'b1;
            end
          end
        end
        ST_DRAIN: begin
          if (!p0_vld_r && !p1_vld_r && !p2_noise_r && !p3_vld_r) state_r <= ST_N0;
        end
        ST_N0: state_r <= ST_OLOAD;
        ST_OLOAD: begin
          if (ld_r == 2'd3) state_r <= ST_ORUN;
        end
        ST_ORUN: begin
          if (adv_w && k_out_r == K_LAST) begin
            state_r <= (l_out_r == SYM_LAST) ? ST_OFLUSH : ST_OLOAD;
          end
        end
        ST_OFLUSH: begin
          if (!b_vld_r && !out_valid_r) state_r <= ST_IDLE;
        end
        default: state_r <= ST_IDLE;
      endcase
    end
  end

  // ---------------------------------------------------------------- LS and noise
  assign yr_w = SUM_W'(p0_yr_r);
  assign yi_w = SUM_W'(p0_yi_r);
  // a = 1 - 2c(2m'), b = 1 - 2c(2m'+1)
  assign p0_sum_i_w = (p0_c_r[0] ? -yr_w : yr_w) + (p0_c_r[1] ? -yi_w : yi_w);
  assign p0_sum_q_w = (p0_c_r[0] ? -yi_w : yi_w) - (p0_c_r[1] ? -yr_w : yr_w);

  // LS at the pilot: H = Y conj(r) sqrt2 / sqrt2 = (+-Yr +-Yi) + j(+-Yi -+Yr), then * 23170.
  always_comb begin
    logic signed [SUM_W+15:0] pi;
    logic signed [SUM_W+15:0] pq;
    logic signed [ DIFF_W-1:0] di;
    logic signed [ DIFF_W-1:0] dq;
    logic signed [   SQ_W-1:0] sqi;
    logic signed [   SQ_W-1:0] sqq;
    pi = (SUM_W + 16)'(p0_sum_i_w) * LS_RECIP + LS_HALF;
    pq = (SUM_W + 16)'(p0_sum_q_w) * LS_RECIP + LS_HALF;
    ls_i_w = LS_W'(pi >>> 15);
    ls_q_w = LS_W'(pq >>> 15);
    // |H_l - H_l+7|^2 against the stored pilot of the symbol 7 earlier (read port a).
    di = DIFF_W'($signed(rd_a_r[2*LS_W-1:LS_W])) - DIFF_W'(p2_ls_i_r);
    dq = DIFF_W'($signed(rd_a_r[LS_W-1:0])) - DIFF_W'(p2_ls_q_r);
    sqi = SQ_W'(di) * SQ_W'(di);
    sqq = SQ_W'(dq) * SQ_W'(dq);
    sq_w = (SQ_W + 1)'($unsigned(sqi)) + (SQ_W + 1)'($unsigned(sqq));
  end

  always_comb begin
    logic [N0_PROD_W-1:0] prod;
    prod = (N0_PROD_W'(acc_r) * N0_RECIP + N0_HALF) >> 20;
    if (prod == '0) n0_w = NOISE_VAR_W'(1);
    else if (prod > N0_MAX) n0_w = NOISE_VAR_W'(N0_MAX);
    else n0_w = NOISE_VAR_W'(prod);
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      p0_vld_r <= 1'b0;
      p0_yr_r <= '0;
      p0_yi_r <= '0;
      p0_c_r <= '0;
      p0_addr_r <= '0;
      p0_noise_r <= 1'b0;
      p1_vld_r <= 1'b0;
      p1_ls_i_r <= '0;
      p1_ls_q_r <= '0;
      p1_addr_r <= '0;
      p1_noise_r <= 1'b0;
      p2_noise_r <= 1'b0;
      p2_ls_i_r <= '0;
      p2_ls_q_r <= '0;
      p3_vld_r <= 1'b0;
      p3_sq_r <= '0;
      acc_r <= '0;
      n0_r <= '0;
    end else begin
      p0_vld_r <= in_fire_w && pilot_w;
      p0_yr_r <= $signed(s_axis_tdata_i[FFT_TDATA_W-1:FFT_OUT_W]);
      p0_yi_r <= $signed(s_axis_tdata_i[FFT_OUT_W-1:0]);
      p0_c_r <= c_w;
      p0_addr_r <= ADDR_W'(crs_row_w) * ROW_STRIDE + ADDR_W'(m_in_r);
      p0_noise_r <= crs_row_w[1];
      p1_vld_r <= p0_vld_r;
      p1_ls_i_r <= ls_i_w;
      p1_ls_q_r <= ls_q_w;
      p1_addr_r <= p0_addr_r;
      p1_noise_r <= p0_vld_r && p0_noise_r;
      p2_noise_r <= p1_noise_r;
      p2_ls_i_r <= p1_ls_i_r;
      p2_ls_q_r <= p1_ls_q_r;
      p3_vld_r <= p2_noise_r;
      p3_sq_r <= sq_w;
      if (state_r == ST_IDLE) acc_r <= '0;
      else if (p3_vld_r) acc_r <= acc_r + ACC_W'(p3_sq_r);
      if (state_r == ST_N0) n0_r <= n0_w;
    end
  end

  // Memory write port (the LS pilots; rows 0..3 = l 0, 4, 7, 11).
  always_ff @(posedge clk) begin
    if (p1_vld_r) pilot_mem_r[p1_addr_r] <= {p1_ls_i_r, p1_ls_q_r};
  end

  // ---------------------------------------------------------------- output
  assign adv_w = !out_valid_r || m_axis_tready_i;
  assign tw_w = time_weights(l_out_r);
  assign sh_next_a_w = tw_w[8] ? vs3_r : vs_r;  // rows 1 and 3 have v = 3
  assign sh_next_b_w = tw_w[6] ? vs3_r : vs_r;

  // Read ports: during the input phase port a fetches the l-7 pilot for the noise sum.
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      addr_a_r <= '0;
      addr_b_r <= '0;
      rd_a_r <= '0;
      rd_b_r <= '0;
      ld_r <= '0;
      l_out_r <= '0;
      k_out_r <= '0;
      a_vld_r <= 1'b0;
      big_d_r <= '0;
      t_d_r <= '0;
      pre_a_r <= 1'b0;
      pre_b_r <= 1'b0;
      sh_a_r <= '0;
      sh_b_r <= '0;
      m_a_r <= '0;
      m_b_r <= '0;
      d_a_r <= '0;
      d_b_r <= '0;
      lo_a_r <= '0;
      hi_a_r <= '0;
      lo_b_r <= '0;
      hi_b_r <= '0;
    end else begin
      rd_a_r <= pilot_mem_r[addr_a_r];
      rd_b_r <= pilot_mem_r[addr_b_r];
      if (state_r == ST_IDLE) begin
        l_out_r <= '0;
      end else if (state_r == ST_IN || state_r == ST_DRAIN) begin
        if (p0_vld_r && p0_noise_r) addr_a_r <= p0_addr_r - ROW2_OFFSET;
      end else if (state_r == ST_OLOAD) begin
        // ld 0: address pilot 0; 1: pilot 1; 2: lo <= pilot 0; 3: hi <= pilot 1, port
        // then holds pilot 2.
        ld_r <= ld_r + 2'd1;
        case (ld_r)
          2'd0: begin
            addr_a_r <= ADDR_W'(tw_w[9:8]) * ROW_STRIDE;
            addr_b_r <= ADDR_W'(tw_w[7:6]) * ROW_STRIDE;
            big_d_r <= tw_w[5:3];
            t_d_r <= tw_w[2:0];
            sh_a_r <= sh_next_a_w;
            sh_b_r <= sh_next_b_w;
            pre_a_r <= sh_next_a_w != 3'd0;
            pre_b_r <= sh_next_b_w != 3'd0;
            m_a_r <= '0;
            m_b_r <= '0;
            d_a_r <= '0;
            d_b_r <= '0;
            k_out_r <= '0;
          end
          2'd1: begin
            addr_a_r <= addr_a_r + ADDR_ONE;
            addr_b_r <= addr_b_r + ADDR_ONE;
          end
          2'd2: begin
            lo_a_r <= rd_a_r;
            lo_b_r <= rd_b_r;
            addr_a_r <= addr_a_r + ADDR_ONE;
            addr_b_r <= addr_b_r + ADDR_ONE;
          end
          default: begin
            hi_a_r <= rd_a_r;
            hi_b_r <= rd_b_r;
            a_vld_r <= 1'b1;
          end
        endcase
      end else if (state_r == ST_ORUN) begin
        if (adv_w) begin
          if (k_out_r == K_LAST) begin
            a_vld_r <= 1'b0;
            l_out_r <= l_out_r + 4'd1;
          end else begin
            k_out_r <= k_out_r + 1'b1;
            // source a
            if (pre_a_r) begin
              if (k_out_r + 1'b1 == K_W'(sh_a_r)) pre_a_r <= 1'b0;
            end else if (d_a_r == 3'd5) begin
              d_a_r <= '0;
              m_a_r <= m_a_r + M_ONE;
              lo_a_r <= hi_a_r;
              hi_a_r <= rd_a_r;
              if (m_a_r < M_FETCH_LAST) addr_a_r <= addr_a_r + ADDR_ONE;
            end else begin
              d_a_r <= d_a_r + 3'd1;
            end
            // source b
            if (pre_b_r) begin
              if (k_out_r + 1'b1 == K_W'(sh_b_r)) pre_b_r <= 1'b0;
            end else if (d_b_r == 3'd5) begin
              d_b_r <= '0;
              m_b_r <= m_b_r + M_ONE;
              lo_b_r <= hi_b_r;
              hi_b_r <= rd_b_r;
              if (m_b_r < M_FETCH_LAST) addr_b_r <= addr_b_r + ADDR_ONE;
            end else begin
              d_b_r <= d_b_r + 3'd1;
            end
          end
        end
      end
    end
  end

  // Frequency interpolation of both sources (held at the first and last pilot).
  always_comb begin
    logic signed [LS_W-1:0] lo_ai;
    logic signed [LS_W-1:0] lo_aq;
    logic signed [LS_W-1:0] hi_ai;
    logic signed [LS_W-1:0] hi_aq;
    logic signed [LS_W-1:0] lo_bi;
    logic signed [LS_W-1:0] lo_bq;
    logic signed [LS_W-1:0] hi_bi;
    logic signed [LS_W-1:0] hi_bq;
    lo_ai = $signed(lo_a_r[2*LS_W-1:LS_W]);
    lo_aq = $signed(lo_a_r[LS_W-1:0]);
    hi_ai = $signed(hi_a_r[2*LS_W-1:LS_W]);
    hi_aq = $signed(hi_a_r[LS_W-1:0]);
    lo_bi = $signed(lo_b_r[2*LS_W-1:LS_W]);
    lo_bq = $signed(lo_b_r[LS_W-1:0]);
    hi_bi = $signed(hi_b_r[2*LS_W-1:LS_W]);
    hi_bq = $signed(hi_b_r[LS_W-1:0]);
    if (pre_a_r || d_a_r == 3'd0 || m_a_r == M_LAST) begin
      fa_i_w = lo_ai;
      fa_q_w = lo_aq;
    end else begin
      fa_i_w = freq_interp(lo_ai, hi_ai, d_a_r);
      fa_q_w = freq_interp(lo_aq, hi_aq, d_a_r);
    end
    if (pre_b_r || d_b_r == 3'd0 || m_b_r == M_LAST) begin
      fb_i_w = lo_bi;
      fb_q_w = lo_bq;
    end else begin
      fb_i_w = freq_interp(lo_bi, hi_bi, d_b_r);
      fb_q_w = freq_interp(lo_bq, hi_bq, d_b_r);
    end
  end

  // Time interpolation (F_a (D-d) + F_b d) round(2^15/D) rounded at 2^-15, saturated.
  always_comb begin
    logic signed [LS_W+21:0] wa;
    logic signed [LS_W+21:0] wb;
    logic signed [LS_W+21:0] pi;
    logic signed [LS_W+21:0] pq;
    logic signed [LS_W+21:0] recip;
    logic signed [CHAN_EST_W-1:0] hi;
    logic signed [CHAN_EST_W-1:0] hq;
    recip = (b_big_d_r == 3'd1) ? TIME_RECIP1 : (b_big_d_r == 3'd3) ? TIME_RECIP3 : TIME_RECIP4;
    wa = $signed({(LS_W + 19)'(0), b_big_d_r - b_t_d_r});
    wb = $signed({(LS_W + 19)'(0), b_t_d_r});
    pi = (((LS_W + 22)'(fa_i_r) * wa + (LS_W + 22)'(fb_i_r) * wb) * recip + TIME_HALF) >>> 15;
    pq = (((LS_W + 22)'(fa_q_r) * wa + (LS_W + 22)'(fb_q_r) * wb) * recip + TIME_HALF) >>> 15;
    if (pi > H_MAX_W) hi = CHAN_EST_W'(H_MAX_W);
    else if (pi < H_MIN_W) hi = CHAN_EST_W'(H_MIN_W);
    else hi = CHAN_EST_W'(pi);
    if (pq > H_MAX_W) hq = CHAN_EST_W'(H_MAX_W);
    else if (pq < H_MIN_W) hq = CHAN_EST_W'(H_MIN_W);
    else hq = CHAN_EST_W'(pq);
    h_w = {$unsigned(hi), $unsigned(hq)};
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      b_vld_r <= 1'b0;
      b_last_r <= 1'b0;
      fa_i_r <= '0;
      fa_q_r <= '0;
      fb_i_r <= '0;
      fb_q_r <= '0;
      b_big_d_r <= '0;
      b_t_d_r <= '0;
      out_valid_r <= 1'b0;
      out_data_r <= '0;
      out_last_r <= 1'b0;
    end else if (adv_w) begin
      b_vld_r <= a_vld_r && (state_r == ST_ORUN);
      b_last_r <= (l_out_r == SYM_LAST) && (k_out_r == K_LAST);
      fa_i_r <= fa_i_w;
      fa_q_r <= fa_q_w;
      fb_i_r <= fb_i_w;
      fb_q_r <= fb_q_w;
      b_big_d_r <= big_d_r;
      b_t_d_r <= t_d_r;
      out_valid_r <= b_vld_r;
      out_data_r <= h_w;
      out_last_r <= b_last_r;
    end
  end

  assign m_axis_tdata_o = out_data_r;
  assign m_axis_tuser_o = n0_r;
  assign m_axis_tvalid_o = out_valid_r;
  assign m_axis_tlast_o = out_last_r;
endmodule
`default_nettype wire
