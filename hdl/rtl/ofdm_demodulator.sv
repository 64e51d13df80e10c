`default_nettype none
// OFDM demodulator: the inverse of the OFDM baseband signal generation of TS 36.211 clause 6.12
// for 10 MHz, normal CP (Table 6.12-1: CP 80 samples for l = 0 and 72 for l = 1..6 of each slot,
// 1024-point FFT at 15.36 Msps, 15360 samples per subframe), bit-exact to the fixed-point model
// of refmodels/ofdm_demodulator.py.
//
// CP removal: the FFT window of each symbol starts FFT_ADVANCE samples before the end of its CP,
// so the first CP - FFT_ADVANCE samples and the last FFT_ADVANCE samples of every symbol are
// consumed and discarded. The first sample after reset is sample 0 of a subframe; subframes
// follow back to back.
//
// FFT: in-place radix-2 decimation in time on two ping-pong buffers (one fills while the other
// is transformed and then drained). A window sample n is written at address bitrev(n); stage s
// (half = 2^s) then runs its 512 butterflies p, q = p + half (p with bit s clear, ascending) at
// one per cycle: t = round(b W), W = W_1024^(j 2^(9-s)), j = p mod half (ofdm_twiddle_rom),
// products rounded half up at 2^-15, a + t and a - t halved with rounding on the odd stages.
// Each buffer is two banks split by the parity of the address: p and q differ in one bit, so a
// butterfly reads one word from each bank and writes one to each. The last butterflies of a
// stage write 256 issue slots before the next stage reads the same words, so the four-cycle
// butterfly pipeline runs stage after stage without bubbles: 5120 cycles per symbol plus one to
// start, against 7142 at 15.36 Msps and 100 MHz.
//
// In:  one time-domain sample {I, Q} (IQ_SAMPLE) per beat.
// Out: the 600 used subcarriers of each symbol {I, Q} (FFT_OUT) = DFT/32 rounded by 4 bits and
//      saturated, k = 0..599 (FFT bins 724..1023 then 1..300, DC skipped), symbol after symbol;
//      tuser = the symbol l (0..13) of the subframe, tlast on the subframe's last RE.
//
// FFT_LOG2 < 10 only exists to keep the flop-mapped synthesis stand-in small (the buffers belong
// in SRAM macros); it scales the CP and the used band with the FFT and is not LTE.
module ofdm_demodulator #(
    parameter int FFT_LOG2 = 10
) (
    input  logic                                    clk,
    input  logic                                    rst_n,
    input  logic [ lte_baseband_pkg::IQ_TDATA_W-1:0] s_axis_tdata_i,
    input  logic                                    s_axis_tvalid_i,
    output logic                                    s_axis_tready_o,
    output logic [lte_baseband_pkg::FFT_TDATA_W-1:0] m_axis_tdata_o,
    output logic [                             3:0] m_axis_tuser_o,
    output logic                                    m_axis_tvalid_o,
    input  logic                                    m_axis_tready_i,
    output logic                                    m_axis_tlast_o
);
  import lte_baseband_pkg::*;

  localparam int N = 1 << FFT_LOG2;
  localparam int AW = FFT_LOG2 - 1;  // bank address
  localparam int SHRINK = 10 - FFT_LOG2;
  localparam int CP_FIRST = CP_LEN_FIRST >> SHRINK;
  localparam int CP_OTHER = CP_LEN_OTHER >> SHRINK;
  localparam int FFT_ADVANCE = 4;  // refmodels/ofdm_demodulator.py FFT_ADVANCE
  localparam int SC_HALF = (N_RB_DL_MAX * N_SC_RB / 2) >> SHRINK;  // 300 below and above DC
  localparam int POS_W = 11;
  // Butterfly word: |DFT/32| of a full-scale input stays below 2^21 (bound 1.49e6).
  localparam int W = IQ_SAMPLE_W + 6;
  localparam int MW = 2 * W;
  localparam int TW_W = 16;
  localparam int PW = W + TW_W;  // product
  localparam int SW = PW + 1;  // sum of two products
  localparam int W1 = W + 1;
  localparam int W2 = W + 2;
  localparam int W3 = W + 3;
  localparam int TW_FRAC = 15;
  localparam int OUT_SHIFT = IQ_SAMPLE_FRAC - FFT_OUT_FRAC;
  localparam int OUT_MAX = (1 << (FFT_OUT_W - 1)) - 1;
  localparam int OUT_BEAT_W = FFT_TDATA_W + 4 + 1;  // {tdata, tuser, tlast}
  localparam logic [3:0] LAST_SYM = 4'(N_SYMB_SUBFRAME - 1);
  localparam logic [9:0] LAST_K = 10'(2 * SC_HALF - 1);

  localparam logic [POS_W-1:0] CP_FIRST_L = POS_W'(CP_FIRST);
  localparam logic [POS_W-1:0] CP_OTHER_L = POS_W'(CP_OTHER);
  localparam logic [POS_W-1:0] ADVANCE_L = POS_W'(FFT_ADVANCE);
  localparam logic [POS_W-1:0] N_L = POS_W'(N);
  localparam logic [POS_W-1:0] N_M1_L = POS_W'(N - 1);
  localparam logic [FFT_LOG2-1:0] ONE_A = FFT_LOG2'(1);
  localparam logic [AW-1:0] ONE_B = AW'(1);
  localparam logic [3:0] LAST_STAGE = 4'(FFT_LOG2 - 1);
  localparam logic [9:0] SC_HALF_K = 10'(SC_HALF);
  localparam logic [FFT_LOG2-1:0] BIN_BELOW = FFT_LOG2'(N - SC_HALF);  // bin of k = 0
  localparam logic [FFT_LOG2-1:0] BIN_ABOVE = FFT_LOG2'(SC_HALF - 1);  // k - bin above DC

  localparam logic [1:0] BUF_FREE = 2'd0;  // being filled (or about to be)
  localparam logic [1:0] BUF_FILLED = 2'd1;  // waiting for / under the FFT
  localparam logic [1:0] BUF_COMPUTED = 2'd2;  // waiting for / being drained

  // ------------------------------------------------------------------ buffer bookkeeping
  logic [1:0][1:0] buf_state_r;
  logic [1:0][3:0] buf_sym_r;

  // ------------------------------------------------------------------ CP removal and fill
  logic [3:0] in_sym_r;
  logic [POS_W-1:0] in_pos_r;
  logic fill_sel_r;
  logic [POS_W-1:0] cp_w;
  logic [POS_W-1:0] win_first_w;
  logic in_window_w;
  logic [FFT_LOG2-1:0] win_n_w;
  logic [AW-1:0] win_loc_w;  // bank address of bitrev(n)
  logic in_fire_w;
  logic fill_we_w;
  logic fill_last_w;
  logic [MW-1:0] fill_word_w;

  // TS 36.211 6.12: CP length of symbol l of the subframe (l mod 7 = 0 has the longer CP).
  always_comb begin
    cp_w = (in_sym_r == 4'd0 || in_sym_r == 4'd7) ? CP_FIRST_L : CP_OTHER_L;
    win_first_w = cp_w - ADVANCE_L;
    in_window_w = (in_pos_r >= win_first_w) && (in_pos_r < win_first_w + N_L);
    win_n_w = FFT_LOG2'(in_pos_r - win_first_w);
    // Bits 9..1 of bitrev(n); bit 0 is implied by the bank (the parity).
    for (int b = 0; b < AW; b++) win_loc_w[b] = win_n_w[AW-1-b];
  end

  assign s_axis_tready_o = !in_window_w || (buf_state_r[fill_sel_r] == BUF_FREE);
  assign in_fire_w = s_axis_tvalid_i && s_axis_tready_o;
  assign fill_we_w = in_fire_w && in_window_w;
  assign fill_last_w = fill_we_w && (&win_n_w);
  assign fill_word_w = {
    {(W - IQ_SAMPLE_W) {s_axis_tdata_i[IQ_TDATA_W-1]}},
    s_axis_tdata_i[IQ_TDATA_W-1:IQ_SAMPLE_W],
    {(W - IQ_SAMPLE_W) {s_axis_tdata_i[IQ_SAMPLE_W-1]}},
    s_axis_tdata_i[IQ_SAMPLE_W-1:0]
  };

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      in_sym_r <= '0;
      in_pos_r <= '0;
      fill_sel_r <= 1'b0;
    end else if (in_fire_w) begin
      if (in_pos_r == cp_w + N_M1_L) begin
        in_pos_r <= '0;
        in_sym_r <= (in_sym_r == LAST_SYM) ? 4'd0 : in_sym_r + 4'd1;
      end else begin
        in_pos_r <= in_pos_r + 1'b1;
      end
      if (fill_last_w) fill_sel_r <= !fill_sel_r;
    end
  end

  // ------------------------------------------------------------------ butterfly issue
  logic fft_sel_r;
  logic fft_busy_r;
  logic [3:0] stage_r;
  logic [AW-1:0] bfly_cnt_r;
  logic [FFT_LOG2-1:0] p_addr_r;
  logic [8:0] tw_addr_r;
  logic [FFT_LOG2-1:0] half_w;
  logic [AW-1:0] p_loc_w;
  logic [AW-1:0] q_loc_w;
  logic [FFT_LOG2-1:0] p_next_w;
  logic [8:0] tw_step_w;
  logic fft_start_w;
  logic stage_last_w;
  logic p_bank_w;
  logic [2*TW_W-1:0] tw_w;

  ofdm_twiddle_rom u_twiddle (
      .addr_i(tw_addr_r),
      .tw_o  (tw_w)
  );

  always_comb begin
    half_w = ONE_A << stage_r;
    // Next p: skip the addresses with bit s set (they are the q of this stage).
    p_next_w = p_addr_r + ONE_A;
    if ((p_next_w & half_w) != '0) p_next_w = p_next_w + half_w;
    // W_1024 exponent step 2^(9-s); it wraps to 0 exactly when j wraps to 0.
    tw_step_w = 9'(10'h200 >> stage_r);
    p_bank_w = ^p_addr_r;
    stage_last_w = (stage_r == LAST_STAGE);
  end

  // Icarus wants constant part-selects outside always_* processes.
  assign p_loc_w = p_addr_r[FFT_LOG2-1:1];
  assign q_loc_w = p_loc_w | half_w[FFT_LOG2-1:1];

  assign fft_start_w = !fft_busy_r && (buf_state_r[fft_sel_r] == BUF_FILLED);

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      fft_sel_r <= 1'b0;
      fft_busy_r <= 1'b0;
      stage_r <= '0;
      bfly_cnt_r <= '0;
      p_addr_r <= '0;
      tw_addr_r <= '0;
    end else if (fft_start_w) begin
      fft_busy_r <= 1'b1;
      stage_r <= '0;
      bfly_cnt_r <= '0;
      p_addr_r <= '0;
      tw_addr_r <= '0;
    end else if (fft_busy_r) begin
      if (&bfly_cnt_r) begin
        bfly_cnt_r <= '0;
        p_addr_r <= '0;
        tw_addr_r <= '0;
        stage_r <= stage_r + 4'd1;
        if (stage_last_w) begin
          fft_busy_r <= 1'b0;
          fft_sel_r <= !fft_sel_r;
        end
      end else begin
        bfly_cnt_r <= bfly_cnt_r + ONE_B;
        p_addr_r <= p_next_w;
        tw_addr_r <= tw_addr_r + tw_step_w;
      end
    end
  end

  // ------------------------------------------------------------------ butterfly pipeline
  // c1: words read, twiddle registered; c2: four products; c3: rounded sums; then written.
  logic v1_r, v2_r, v3_r;
  logic buf1_r, buf2_r, buf3_r;
  logic pbank1_r, pbank2_r, pbank3_r;
  logic [AW-1:0] ploc1_r, ploc2_r, ploc3_r;
  logic [AW-1:0] qloc1_r, qloc2_r, qloc3_r;
  logic scale1_r, scale2_r;
  logic last1_r, last2_r, last3_r;
  logic [2*TW_W-1:0] tw1_r;
  logic signed [PW-1:0] m_rr_r, m_ii_r, m_ri_r, m_ir_r;
  logic signed [W-1:0] a_re2_r, a_im2_r;
  logic scale2_w;
  logic signed [W+2:0] round2_w;  // + 1 before the halving
  logic [MW-1:0] top3_r, bot3_r;

  logic [3:0] ram_we_w;
  logic [3:0][AW-1:0] ram_waddr_w;
  logic [3:0][MW-1:0] ram_wdata_w;
  logic [3:0][AW-1:0] ram_raddr_w;
  logic [3:0][MW-1:0] ram_rdata_w;

  logic [MW-1:0] a_word_w, b_word_w;
  logic signed [W-1:0] b_re_w, b_im_w;
  logic signed [TW_W-1:0] w_re_w, w_im_w;
  logic signed [SW-1:0] tr_sum_w, ti_sum_w;
  logic signed [W+1:0] tr_w, ti_w;
  logic signed [W+2:0] top_re_w, top_im_w, bot_re_w, bot_im_w;

  assign a_word_w = ram_rdata_w[{buf1_r, pbank1_r}];
  assign b_word_w = ram_rdata_w[{buf1_r, !pbank1_r}];
  assign b_re_w = $signed(b_word_w[MW-1:W]);
  assign b_im_w = $signed(b_word_w[W-1:0]);
  assign w_re_w = $signed(tw1_r[2*TW_W-1:TW_W]);
  assign w_im_w = $signed(tw1_r[TW_W-1:0]);

  // t = b W rounded half up at 2^-15; a +- t, halved with rounding on the odd stages.
  always_comb begin
    tr_sum_w = SW'(m_rr_r) - SW'(m_ii_r) + SW'(1 << (TW_FRAC - 1));
    ti_sum_w = SW'(m_ri_r) + SW'(m_ir_r) + SW'(1 << (TW_FRAC - 1));
    tr_w = W2'(tr_sum_w >>> TW_FRAC);
    ti_w = W2'(ti_sum_w >>> TW_FRAC);
    scale2_w = scale2_r;
    round2_w = $signed({{(W + 2) {1'b0}}, scale2_w});
    top_re_w = W3'(a_re2_r) + W3'(tr_w) + round2_w;
    top_im_w = W3'(a_im2_r) + W3'(ti_w) + round2_w;
    bot_re_w = W3'(a_re2_r) - W3'(tr_w) + round2_w;
    bot_im_w = W3'(a_im2_r) - W3'(ti_w) + round2_w;
    if (scale2_w) begin
      top_re_w = top_re_w >>> 1;
      top_im_w = top_im_w >>> 1;
      bot_re_w = bot_re_w >>> 1;
      bot_im_w = bot_im_w >>> 1;
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      v1_r <= 1'b0;
      v2_r <= 1'b0;
      v3_r <= 1'b0;
      buf1_r <= 1'b0;
      buf2_r <= 1'b0;
      buf3_r <= 1'b0;
      pbank1_r <= 1'b0;
      pbank2_r <= 1'b0;
      pbank3_r <= 1'b0;
      ploc1_r <= '0;
      ploc2_r <= '0;
      ploc3_r <= '0;
      qloc1_r <= '0;
      qloc2_r <= '0;
      qloc3_r <= '0;
      scale1_r <= 1'b0;
      scale2_r <= 1'b0;
      last1_r <= 1'b0;
      last2_r <= 1'b0;
      last3_r <= 1'b0;
      tw1_r <= '0;
      m_rr_r <= '0;
      m_ii_r <= '0;
      m_ri_r <= '0;
      m_ir_r <= '0;
      a_re2_r <= '0;
      a_im2_r <= '0;
      top3_r <= '0;
      bot3_r <= '0;
    end else begin
      v1_r <= fft_busy_r;
      buf1_r <= fft_sel_r;
      pbank1_r <= p_bank_w;
      ploc1_r <= p_loc_w;
      qloc1_r <= q_loc_w;
      scale1_r <= stage_r[0];  // stages 1, 3, 5, 7, 9
      last1_r <= stage_last_w && (&bfly_cnt_r);
      tw1_r <= tw_w;

      v2_r <= v1_r;
      buf2_r <= buf1_r;
      pbank2_r <= pbank1_r;
      ploc2_r <= ploc1_r;
      qloc2_r <= qloc1_r;
      scale2_r <= scale1_r;
      last2_r <= last1_r;
      m_rr_r <= PW'(b_re_w) * PW'(w_re_w);
      m_ii_r <= PW'(b_im_w) * PW'(w_im_w);
      m_ri_r <= PW'(b_re_w) * PW'(w_im_w);
      m_ir_r <= PW'(b_im_w) * PW'(w_re_w);
      a_re2_r <= $signed(a_word_w[MW-1:W]);
      a_im2_r <= $signed(a_word_w[W-1:0]);

      v3_r <= v2_r;
      buf3_r <= buf2_r;
      pbank3_r <= pbank2_r;
      ploc3_r <= ploc2_r;
      qloc3_r <= qloc2_r;
      last3_r <= last2_r;
      top3_r <= {W'(top_re_w), W'(top_im_w)};
      bot3_r <= {W'(bot_re_w), W'(bot_im_w)};
    end
  end

  // ------------------------------------------------------------------ drain (k = 0..599)
  logic drain_sel_r;
  logic [9:0] k_r;
  logic [FFT_LOG2-1:0] bin_w;
  logic [AW-1:0] bin_loc_w;
  logic drain_go_w;
  logic drain_last_w;
  logic rd_v_r;
  logic rd_buf_r;
  logic rd_bank_r;
  logic [3:0] rd_sym_r;
  logic rd_last_r;
  logic [MW-1:0] rd_word_w;
  logic [OUT_BEAT_W-1:0] out_beat_w;

  logic [1:0][OUT_BEAT_W-1:0] fifo_r;
  logic [1:0] fifo_cnt_r;
  logic fifo_wr_r;
  logic fifo_rd_r;
  logic pop_w;

  // TS 36.211 6.12: k < 300 sits below DC (bins 724..1023), k >= 300 above (bins 1..300).
  assign bin_w = (k_r < SC_HALF_K) ? k_r[FFT_LOG2-1:0] + BIN_BELOW :
      k_r[FFT_LOG2-1:0] - BIN_ABOVE;
  assign bin_loc_w = bin_w[FFT_LOG2-1:1];
  assign pop_w = (fifo_cnt_r != 2'd0) && m_axis_tready_i;
  // One read in flight at most; it lands in the FIFO the next cycle.
  assign drain_go_w = (buf_state_r[drain_sel_r] == BUF_COMPUTED) &&
      ({1'b0, fifo_cnt_r} + {2'b0, rd_v_r} < 3'd2 + {2'b0, pop_w});
  assign drain_last_w = (k_r == LAST_K);

  // FFT_OUT = the 2^-15-unit DFT/32 rounded half up by 4 bits, saturated symmetrically.
  function automatic logic [FFT_OUT_W-1:0] to_fft_out(input logic [W-1:0] x);
    logic signed [W:0] r;
    r = (W1'($signed(x)) + W1'(1 << (OUT_SHIFT - 1))) >>> OUT_SHIFT;
    if (r > W1'(OUT_MAX)) to_fft_out = FFT_OUT_W'(OUT_MAX);
    else if (r < -W1'(OUT_MAX)) to_fft_out = FFT_OUT_W'(-OUT_MAX);
    else to_fft_out = r[FFT_OUT_W-1:0];
  endfunction

  assign rd_word_w = ram_rdata_w[{rd_buf_r, rd_bank_r}];
  assign out_beat_w = {
    to_fft_out(rd_word_w[MW-1:W]),
    to_fft_out(rd_word_w[W-1:0]),
    rd_sym_r,
    rd_last_r && (rd_sym_r == LAST_SYM)
  };

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      drain_sel_r <= 1'b0;
      k_r <= '0;
      rd_v_r <= 1'b0;
      rd_buf_r <= 1'b0;
      rd_bank_r <= 1'b0;
      rd_sym_r <= '0;
      rd_last_r <= 1'b0;
      fifo_r <= '0;
      fifo_cnt_r <= '0;
      fifo_wr_r <= 1'b0;
      fifo_rd_r <= 1'b0;
    end else begin
      rd_v_r <= drain_go_w;
      if (drain_go_w) begin
        rd_buf_r <= drain_sel_r;
        rd_bank_r <= ^bin_w;
        rd_sym_r <= buf_sym_r[drain_sel_r];
        rd_last_r <= drain_last_w;
        k_r <= drain_last_w ? 10'd0 : k_r + 10'd1;
        if (drain_last_w) drain_sel_r <= !drain_sel_r;
      end
      if (rd_v_r) begin
        fifo_r[fifo_wr_r] <= out_beat_w;
        fifo_wr_r <= !fifo_wr_r;
      end
      if (pop_w) fifo_rd_r <= !fifo_rd_r;
      fifo_cnt_r <= fifo_cnt_r + {1'b0, rd_v_r} - {1'b0, pop_w};
    end
  end

  assign {m_axis_tdata_o, m_axis_tuser_o, m_axis_tlast_o} = fifo_r[fifo_rd_r];
  assign m_axis_tvalid_o = (fifo_cnt_r != 2'd0);

  // ------------------------------------------------------------------ buffer states
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      buf_state_r <= '0;
      buf_sym_r <= '0;
    end else begin
      if (fill_last_w) begin
        buf_state_r[fill_sel_r] <= BUF_FILLED;
        buf_sym_r[fill_sel_r] <= in_sym_r;
      end
      if (v3_r && last3_r) buf_state_r[buf3_r] <= BUF_COMPUTED;
      if (drain_go_w && drain_last_w) buf_state_r[drain_sel_r] <= BUF_FREE;
    end
  end

  // ------------------------------------------------------------------ the four RAM banks
  // Bank {buffer, parity}: the fill writes the FREE buffer, the butterflies the FILLED one;
  // the butterflies read the FILLED buffer, the drain the COMPUTED one.
  for (genvar g = 0; g < 4; g++) begin : gen_ram
    localparam logic BUF = 1'(g / 2);
    localparam logic BANK = 1'(g % 2);
    logic fill_here_w;
    logic fft_here_w;
    logic p_here_w;

    assign fill_here_w = fill_we_w && (fill_sel_r == BUF);
    assign fft_here_w = fft_busy_r && (fft_sel_r == BUF);
    assign p_here_w = (pbank3_r == BANK);
    assign ram_we_w[g] = fill_here_w ? ((^win_n_w) == BANK) : v3_r && (buf3_r == BUF);
    assign ram_waddr_w[g] = fill_here_w ? win_loc_w : p_here_w ? ploc3_r : qloc3_r;
    assign ram_wdata_w[g] = fill_here_w ? fill_word_w : p_here_w ? top3_r : bot3_r;
    assign ram_raddr_w[g] = !fft_here_w ? bin_loc_w : (p_bank_w == BANK) ? p_loc_w : q_loc_w;

    ofdm_bank_ram #(
        .DEPTH_LOG2(AW),
        .WIDTH(MW)
    ) u_bank (
        .clk(clk),
        .rst_n(rst_n),
        .we_i(ram_we_w[g]),
        .waddr_i(ram_waddr_w[g]),
        .wdata_i(ram_wdata_w[g]),
        .raddr_i(ram_raddr_w[g]),
        .rdata_o(ram_rdata_w[g])
    );
  end

endmodule

`default_nettype wire
