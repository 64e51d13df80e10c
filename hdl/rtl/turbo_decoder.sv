`default_nettype none
// Turbo decoder for the LTE PCCC of TS 36.212 clause 5.1.3.2: iterative max-log-MAP (BCJR) of
// the two 8-state constituent codes (5.1.3.2.1), trellis termination (5.1.3.2.2), QPP internal
// interleaver (5.1.3.2.3) with addresses generated on the fly, extrinsic scaling by 0.75 as
// x - (x >>> 2), up to max_iter_i iterations with early stop when the code-block CRC (5.1.1,
// CRC-24A or CRC-24B) of the hard decisions checks.
//
// Bit-true to refmodels/turbo_decoder.py (fixed=True, siso = siso_count(K)): each half
// iteration runs P parallel SISOs, P = the largest power of two <= P_MAX with K % P == 0 and
// K / P >= 32 (LTE sizes: K 40-56 1, 64-120 2, 128-248 4, 256-504 8, 512-1008 16,
// 1024-6144 32), SISO q over trellis steps [qM, qM + M) (M = K / P; the last one also over the 3
// tail steps). Each SISO runs its forward recursion storing alpha, then its backward recursion
// computing beta and the extrinsic; metrics are normalised to state 0 and saturated to
// STATE_METRIC, extrinsics to EXTRINSIC, a-posteriori LLRs to APP_LLR. SISO q starts alpha
// from the alpha SISO q-1 ended with, and beta from the beta SISO q+1 ended with, in the
// previous iteration of the same constituent decoder (all 0 in the first; SISO 0 from state 0,
// the last SISO from the terminated state 0). A half iteration costs 2 (M + 3) + 2 cycles.
//
// Each SISO is a three-stage pipeline, so that the only one-cycle loop is the ACS recursion:
// stage 0 reads the memories of a step and forms its branch metrics, stage 1 runs the ACS
// (and, backward, the extrinsic's maxima over the two bit values), stage 2 finishes the
// extrinsic and the APP LLR and writes them. The next half iteration reads the extrinsics this
// one wrote, so it starts 2 cycles after the last backward step is read (ST_GAP). What a SISO
// computes is unchanged: the pipeline only adds latency.
//
// Memories are P banks, bank = address / M, offset = address mod M. The natural-order
// decoder's SISO q reads bank q; the interleaved one's SISOs read Pi(qM + j), which for one j
// share the offset Pi(j) mod M and hit P distinct banks (the QPP is contention-free for any M
// dividing K), through a P x P crossbar. The (bank, offset) of Pi and of its increment g are
// tracked incrementally (add with carry at M, bank mod P); the start banks of the P SISOs come
// from one walk of the recursion while the block loads; the backward pass replays the forward
// pass's addresses from a small table. The hard decisions are CRC-checked W = max(8, P) bits per
// cycle (K is a multiple of W, so K / W <= M cycles) beside the next iteration's first forward
// pass, so an iteration costs 4 (M + 3) + 4 cycles (plus K / W for the CRC of the last allowed
// one). P_MAX = 32 (refmodels SISO_MAX): K = 6144 runs 32 SISOs of M = 192 steps, 784 cycles
// per iteration.
//
// Input and APP memories are double-buffered: a loader takes the next code block (K + 4 beats,
// the three LLRs d0[k], d1[k], d2[k] of one index each, written to the three input memories at
// once) while the decoder works on one, and an unloader streams a decoded block (K beats) while
// the decoder works on the next. Each buffer keeps its block's parameters, so blocks of different
// K follow each other freely. Back to back, blocks follow each other at the pace of the decode,
// or of the K + 4 beat load or the K beat unload when they are longer (K = 6144, 8 iterations:
// the decode, about 95 Mbit/s at 100 MHz).
//
// In:  the soft d stream of one code block, {d2[k], d1[k], d0[k]} (3 LLRs, d0 in the low byte)
//      per beat for k = 0..K+3, tlast on the last; k_i, f1_i, f2_i (QPP parameters of Table
//      5.1.3-3 for K), max_iter_i, crc_type_i are taken with the first beat.
// Out: K a-posteriori LLRs in natural order (APP_LLR, bit = LLR > 0), tlast on the last;
//      m_axis_tuser_o = {crc_ok, iterations[3:0]} for the whole block.
module turbo_decoder #(
    parameter int MAX_K = 6144,
    // 1, 2, 4, 8, 16 or 32: refmodels SISO_MAX (the CRC's max(8, P) bits per cycle keep up)
    parameter int P_MAX = 32
) (
    input  logic                                   clk,
    input  logic                                   rst_n,
    input  logic [                           12:0] k_i,
    input  logic [                            9:0] f1_i,
    input  logic [                           10:0] f2_i,
    input  logic [                            3:0] max_iter_i,
    input  logic                                   crc_type_i,
    input  logic [  3*lte_baseband_pkg::LLR_W-1:0] s_axis_tdata_i,
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
  localparam int PL_MAX = $clog2(P_MAX);
  localparam int SUB_MIN = 32;  // shortest sub-block (refmodels MIN_SUB_BLOCK)
  // SISOs and banks built: as many as a K <= MAX_K can use (K >= 32 P), at most P_MAX.
  localparam int N_SISO = (P_MAX >= 32 && MAX_K >= 32 * SUB_MIN) ? 32 :
                          (P_MAX >= 16 && MAX_K >= 16 * SUB_MIN) ? 16 :
                          (P_MAX >= 8 && MAX_K >= 8 * SUB_MIN) ? 8 :
                          (P_MAX >= 4 && MAX_K >= 4 * SUB_MIN) ? 4 :
                          (P_MAX >= 2 && MAX_K >= 2 * SUB_MIN) ? 2 : 1;
  localparam int BK_W = (N_SISO > 1) ? $clog2(N_SISO) : 1;
  // CRC bits per cycle built: W = max(8, P) (K is a multiple of P, and of 8).
  localparam int CRC_BITS = (N_SISO > 8) ? N_SISO : 8;
  // Sub-block length bound: K / N_SISO, or under 2 * SUB_MIN when a small K takes fewer SISOs.
  localparam int SMALL_M = (MAX_K < 2 * SUB_MIN - 1) ? MAX_K : 2 * SUB_MIN - 1;
  localparam int BANK_D = (MAX_K / N_SISO > SMALL_M) ? MAX_K / N_SISO : SMALL_M;
  localparam int OFF_W = $clog2(BANK_D + 3);  // offsets and trellis steps 0..M+2
  localparam int AD_W = OFF_W + N_SISO * BK_W;  // one step's {offset, bank of each SISO}
  localparam int BA_W = $clog2(2 * BANK_D + 3);  // double-buffered memory address
  localparam logic [BA_W-1:0] BUF1 = $unsigned(BA_W'(BANK_D));  // second buffer's base
  localparam logic [OFF_W-1:0] OFF_ONE = $unsigned(OFF_W'(1));
  localparam logic [OFF_W-1:0] OFF_TWO = $unsigned(OFF_W'(2));
  localparam logic [8*SM_W-1:0] KNOWN0 = {{7{SM_NEG}}, {SM_W{1'b0}}};  // state 0 known

  // Decoder states (the loader and the unloader run beside it).
  typedef enum logic [2:0] {
    ST_IDLE = 3'd0,
    ST_FWD  = 3'd1,
    ST_BWD  = 3'd2,
    ST_CRC  = 3'd3,
    ST_GAP  = 3'd4   // the last backward step's writes drain before the next pass reads
  } state_e;

  // ------------------------------------------------------------------ helpers
  function automatic logic [12:0] mod_add(input logic [12:0] a, input logic [12:0] b,
                                          input logic [12:0] m);
    logic [13:0] s;
    s = {1'b0, a} + {1'b0, b};
    mod_add = (s >= {1'b0, m}) ? 13'(s - {1'b0, m}) : s[12:0];
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

  // Address of an offset in buffer sel of a double-buffered memory.
  function automatic logic [BA_W-1:0] buf_addr(input logic sel, input logic [OFF_W-1:0] off);
    buf_addr = {{(BA_W - OFF_W) {1'b0}}, off} + (sel ? BUF1 : '0);
  endfunction

  // {carry, (a + b) mod m} of two offsets below m.
  function automatic logic [OFF_W:0] off_add(input logic [OFF_W-1:0] a, input logic [OFF_W-1:0] b,
                                             input logic [OFF_W-1:0] m);
    logic [OFF_W:0] s;
    s = {1'b0, a} + {1'b0, b};
    off_add = (s >= {1'b0, m}) ? {1'b1, OFF_W'(s - {1'b0, m})} : {1'b0, s[OFF_W-1:0]};
  endfunction

  // log2 P: the largest power of two <= N_SISO with K % P == 0 and K / P >= SUB_MIN.
  function automatic logic [2:0] sub_log2(input logic [12:0] k);
    sub_log2 = 3'd0;
    for (int l = 1; l <= PL_MAX; l++)
      if ((k & $unsigned(13'((1 << l) - 1))) == 13'd0 && {1'b0, k} >= $unsigned(14'(SUB_MIN << l)))
        sub_log2 = $unsigned(3'(l));
  endfunction

  // ------------------------------------------------------------------ input buffers
  // Two code blocks of input: one loads while the other decodes. Each buffer keeps its block's
  // K, M, P - 1, iteration limit, CRC type and QPP set-up.
  logic        [            1:0] full_r;  // buffer holds a whole block
  logic                          wr_sel_r;  // buffer being loaded
  logic                          rd_sel_r;  // buffer being decoded
  logic                          ld_busy_r;
  logic        [1:0][12:0] sk_r;
  logic        [1:0][OFF_W-1:0] sm_r;  // sub-block length M
  logic        [1:0][BK_W-1:0] slast_r;  // P - 1: the last SISO, and the bank mask
  logic        [1:0][3:0] smaxit_r;
  logic        [            1:0] scrc_r;
  // QPP set-up: (bank, offset) of g(0) = f1 + f2 and of 2 f2 (mod K), by subtracting M; then a
  // walk of Pi(x), g(x) over x = 0..(P-1)M latching the banks at each SISO's first step.
  logic        [1:0][12:0] sg0_r;  // ends as the offset of g(0)
  logic        [1:0][BK_W-1:0] sg0_bank_r;
  logic        [1:0][12:0] sf2_r;  // ends as the offset of 2 f2 mod K
  logic        [1:0][BK_W-1:0] sf2_bank_r;
  logic        [1:0][N_SISO-1:0][BK_W-1:0] spb0_r;  // bank of Pi(qM)
  logic        [1:0][N_SISO-1:0][BK_W-1:0] sgb0_r;  // bank of g(qM)
  logic        [            1:0] su_phase_r;  // 0 divide, 1 walk, 2 done
  logic        [N_SISO-1:0][BK_W-1:0] w_pb0_r;  // the walk's banks, to the buffer at the end
  logic        [N_SISO-1:0][BK_W-1:0] w_gb0_r;
  logic        [      OFF_W-1:0] w_po_r;
  logic        [      OFF_W-1:0] w_go_r;
  logic        [       BK_W-1:0] w_pb_r;
  logic        [       BK_W-1:0] w_gb_r;
  logic        [      OFF_W-1:0] w_j_r;
  logic        [       BK_W-1:0] w_q_r;
  logic        [           13:0] ld_idx_r;  // index k of the beat, 0..K+3
  logic        [       BK_W-1:0] ld_bank_r;
  logic        [      OFF_W-1:0] ld_off_r;
  logic signed [      LLR_W-1:0] tail_r      [32];  // tails: tail_r[{buffer, stream, j}]
  logic        [           12:0] lk_w;  // the loading block's K, M, P - 1
  logic        [      OFF_W-1:0] lm_w;
  logic        [       BK_W-1:0] llast_w;

  // ------------------------------------------------------------------ decoder
  state_e                        state_r;
  logic        [           12:0] k_w;  // the decoding block's parameters
  logic        [      OFF_W-1:0] m_w;
  logic        [       BK_W-1:0] last_w;
  logic        [            3:0] max_iter_w;
  logic                          crc_type_w;
  logic        [      OFF_W-1:0] g0_off_w;
  logic        [      OFF_W-1:0] f2_off_w;
  logic        [       BK_W-1:0] f2_bank_w;
  logic        [N_SISO-1:0][BK_W-1:0] pb0_w;
  logic        [N_SISO-1:0][BK_W-1:0] gb0_w;
  logic                          dec2_r;  // half iteration: 0 natural order, 1 interleaved
  logic                          first_r;  // first half iteration: no a priori yet
  logic        [            3:0] iter_r;
  logic        [      OFF_W-1:0] j_r;  // trellis step within the sub-blocks, 0..M+2
  logic        [           23:0] crc_r;
  logic                          crc_busy_r;  // previous iteration's CRC runs beside this pass
  logic        [            9:0] crc_idx_r;  // byte of the hard decisions
  logic                          start_w;
  logic                          stop_w;  // early stop: the CRC passed
  logic                          done_w;

  // ------------------------------------------------------------------ output buffers
  // Two blocks of APP LLRs: one unloads while the next decodes.
  logic        [            1:0] ofull_r;
  logic                          dw_sel_r;  // buffer the decoder writes
  logic                          ob_sel_r;  // buffer being unloaded
  logic        [1:0][12:0] ok_r;
  logic        [1:0][OFF_W-1:0] om_r;
  logic        [1:0][4:0] ouser_r;  // {crc_ok, iterations}
  logic                          ou_busy_r;
  logic        [           13:0] out_idx_r;
  logic        [       BK_W-1:0] out_bank_r;
  logic        [      OFF_W-1:0] out_off_r;
  logic        [            4:0] out_user_r;

  assign lk_w = sk_r[wr_sel_r];
  assign lm_w = sm_r[wr_sel_r];
  assign llast_w = slast_r[wr_sel_r];
  assign k_w = sk_r[rd_sel_r];
  assign m_w = sm_r[rd_sel_r];
  assign last_w = slast_r[rd_sel_r];
  assign max_iter_w = smaxit_r[rd_sel_r];
  assign crc_type_w = scrc_r[rd_sel_r];
  assign g0_off_w = OFF_W'(sg0_r[rd_sel_r]);  // below M once set up
  assign f2_off_w = OFF_W'(sf2_r[rd_sel_r]);
  assign f2_bank_w = sf2_bank_r[rd_sel_r];
  assign pb0_w = spb0_r[rd_sel_r];
  assign gb0_w = sgb0_r[rd_sel_r];

  // Interleaved-pass address generators: offsets shared by all SISOs, a bank per SISO.
  logic        [      OFF_W-1:0] po_r;
  logic        [      OFF_W-1:0] go_r;
  logic        [N_SISO-1:0][BK_W-1:0] pb_r;
  logic        [N_SISO-1:0][BK_W-1:0] gb_r;

  // ------------------------------------------------------------------ storage
  // Large memories, exempt from reset: every word is written before it is read in a block.
  logic        [       AD_W-1:0] addr_mem_r  [BANK_D + 3];  // interleaved addresses of step j
  logic        [      MAX_K-1:0] hard_mem_r;  // hard decisions, natural order

  // ------------------------------------------------------------------ per-step wiring
  logic        [      OFF_W-1:0] rd_off_w;  // sys / extrinsic offset of this step
  logic        [N_SISO-1:0][BK_W-1:0] bk_w;  // bank of SISO q's systematic bit
  logic        [N_SISO-1:0] act_w;  // SISO q runs trellis step j
  logic        [N_SISO-1:0] mem_w;  // ... and it is a systematic step held in the banks
  logic                          tail_step_w;
  logic signed [      LLR_W-1:0] ls_t_w;
  logic signed [      LLR_W-1:0] lp_t_w;
  logic        [N_SISO-1:0][LLR_W-1:0] sys_rd_w;  // per bank
  logic        [N_SISO-1:0][EXT_W-1:0] ext_rd_w;  // per bank
  logic        [N_SISO-1:0][LLR_W-1:0] par_rd_w;  // per bank = per SISO
  logic        [N_SISO-1:0][APP_LLR_W-1:0] app_out_w;  // per bank
  logic        [N_SISO-1:0][LLR_W-1:0] ls_w;  // per SISO
  logic        [N_SISO-1:0][LLR_W-1:0] lp_w;
  logic        [N_SISO-1:0][EXT_W-1:0] la_w;
  logic        [N_SISO-1:0][EXT_W-1:0] le_sc_w;  // scaled extrinsic out of SISO q
  logic        [N_SISO-1:0][APP_LLR_W-1:0] app_w;
  logic        [N_SISO-1:0][8*SM_W-1:0] alpha_pk_w;  // SISO q's alpha
  logic        [N_SISO-1:0][8*SM_W-1:0] beta_nx_pk_w;  // SISO q's next beta
  logic        [N_SISO-1:0] bank_we_w;
  logic        [N_SISO-1:0][BK_W-1:0] bank_sel_w;  // SISO writing bank b
  logic        [       AD_W-1:0] ad_rd_w;
  logic                          fwd_end_w;
  logic                          bwd_end_w;
  logic                          clr_w;

  // SISO pipeline. Stage 0 is the control above: it reads the memories of trellis step j_r
  // and forms the branch metrics. Stage 1 (p1_*) runs the ACS recursions on them one cycle
  // later and, backward, the extrinsic's two maxima. Stage 2 (p2_*) finishes the extrinsic
  // and the APP LLR and writes the extrinsic, APP and hard-decision memories. The only
  // one-cycle loop left is the ACS recursion. A pass's reads of the memories the previous
  // pass wrote wait for its last writes (ST_GAP, GAP_CYCLES per half iteration).
  localparam int GAP_CYCLES = 2;
  localparam int G_W = 12;  // branch metrics: |ls + la + lp| <= 127 + 511 + 127
  logic                          p1_fwd_r;  // stage 1 runs a forward step
  logic                          p1_bwd_r;  // ... a backward step
  logic                          p1_fwd_end_r;
  logic                          p1_bwd_end_r;
  logic                          p1_dec2_r;
  logic        [      OFF_W-1:0] p1_j_r;
  logic        [      OFF_W-1:0] p1_off_r;
  logic        [N_SISO-1:0] p1_act_r;
  logic        [N_SISO-1:0] p1_wr_r;  // ... a systematic step held in the banks
  logic        [N_SISO-1:0][BK_W-1:0] p1_bk_r;
  logic                          p2_bwd_r;  // stage 2 finishes a backward step
  logic                          p2_dec2_r;
  logic        [      OFF_W-1:0] p2_off_r;
  logic        [N_SISO-1:0] p2_wr_r;
  logic        [N_SISO-1:0][BK_W-1:0] p2_bk_r;
  logic        [N_SISO-1:0][12:0] p2_nat_r;  // natural address of SISO q's systematic bit
  logic                          gap_crc_r;  // ST_GAP leads to ST_CRC, else to ST_FWD

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      p1_fwd_r <= 1'b0;
      p1_bwd_r <= 1'b0;
      p1_fwd_end_r <= 1'b0;
      p1_bwd_end_r <= 1'b0;
      p1_dec2_r <= 1'b0;
      p1_j_r <= '0;
      p1_off_r <= '0;
      p1_act_r <= '0;
      p1_wr_r <= '0;
      p1_bk_r <= '0;
      p2_bwd_r <= 1'b0;
      p2_dec2_r <= 1'b0;
      p2_off_r <= '0;
      p2_wr_r <= '0;
      p2_bk_r <= '0;
      p2_nat_r <= '0;
    end else begin
      // A finished block's step in flight is dropped: the next block's set-up may follow.
      p1_fwd_r <= (state_r == ST_FWD) && !done_w;
      p1_bwd_r <= (state_r == ST_BWD);
      p1_fwd_end_r <= fwd_end_w;
      p1_bwd_end_r <= bwd_end_w;
      p1_dec2_r <= dec2_r;
      p1_j_r <= j_r;
      p1_off_r <= rd_off_w;
      p1_act_r <= act_w;
      p1_wr_r <= mem_w;
      p1_bk_r <= bk_w;
      p2_bwd_r <= p1_bwd_r;
      p2_dec2_r <= p1_dec2_r;
      p2_off_r <= p1_off_r;
      p2_wr_r <= p1_wr_r;
      p2_bk_r <= p1_bk_r;
      for (int q = 0; q < N_SISO; q++) p2_nat_r[q] <= 13'(p1_bk_r[q]) * 13'(m_w) + 13'(p1_off_r);
    end
  end

  assign ad_rd_w = addr_mem_r[j_r];
  assign tail_step_w = (j_r >= m_w);
  assign fwd_end_w = (state_r == ST_FWD) && (j_r == m_w + OFF_TWO);
  assign bwd_end_w = (state_r == ST_BWD) && (j_r == '0);

  always_comb begin
    // The natural-order decoder's SISO q reads bank q at offset j; the interleaved one follows
    // the generators forward and replays their table backward.
    rd_off_w = j_r;
    for (int q = 0; q < N_SISO; q++) bk_w[q] = $unsigned(BK_W'(q));
    if (dec2_r && state_r == ST_FWD) begin
      rd_off_w = po_r;
      bk_w = pb_r;
    end else if (dec2_r) begin
      rd_off_w = ad_rd_w[AD_W-1-:OFF_W];
      for (int q = 0; q < N_SISO; q++) bk_w[q] = ad_rd_w[q*BK_W+:BK_W];
    end
    for (int q = 0; q < N_SISO; q++) begin
      act_w[q] = ($unsigned(BK_W'(q)) <= last_w) && (!tail_step_w || $unsigned(BK_W'(q)) == last_w);
      mem_w[q] = ($unsigned(BK_W'(q)) <= last_w) && !tail_step_w;
    end
  end

  // Tail bits of 5.1.3.2.2 for the last SISO: x_K, x_K+1, x_K+2 / z_K.. of each encoder.
  always_comb begin
    logic [1:0] t;
    logic signed [LLR_W-1:0] tl[12];
    for (int i = 0; i < 12; i++) tl[i] = tail_r[{rd_sel_r, $unsigned(4'(i))}];
    t = 2'(j_r - m_w);
    case ({dec2_r, t})
      3'b000: begin ls_t_w = tl[0]; lp_t_w = tl[4]; end
      3'b001: begin ls_t_w = tl[8]; lp_t_w = tl[1]; end
      3'b010: begin ls_t_w = tl[5]; lp_t_w = tl[9]; end
      3'b100: begin ls_t_w = tl[2]; lp_t_w = tl[6]; end
      3'b101: begin ls_t_w = tl[10]; lp_t_w = tl[3]; end
      default: begin ls_t_w = tl[7]; lp_t_w = tl[11]; end
    endcase
  end

  // P x P crossbar: SISO q reads bank bk_w[q] in stage 0 and writes bank p2_bk_r[q] in stage 2;
  // the banks are distinct in a step.
  always_comb begin
    for (int q = 0; q < N_SISO; q++) begin
      if (!tail_step_w) begin
        ls_w[q] = sys_rd_w[bk_w[q]];
        la_w[q] = first_r ? '0 : ext_rd_w[bk_w[q]];
        lp_w[q] = par_rd_w[q];
      end else begin
        ls_w[q] = $unsigned(ls_t_w);
        la_w[q] = '0;
        lp_w[q] = $unsigned(lp_t_w);
      end
    end
    for (int b = 0; b < N_SISO; b++) begin
      bank_we_w[b] = 1'b0;
      bank_sel_w[b] = '0;
      for (int q = 0; q < N_SISO; q++) begin
        if (p2_wr_r[q] && p2_bk_r[q] == $unsigned(BK_W'(b))) begin
          bank_we_w[b] = 1'b1;
          bank_sel_w[b] = $unsigned(BK_W'(q));
        end
      end
    end
  end

  // ------------------------------------------------------------------ input / output
  logic in_fire_w;
  logic [2:0][LLR_W-1:0] in_llr_w;  // symmetric saturation of each input LLR, [stream]
  logic out_free_w;
  logic [APP_LLR_W-1:0] out_data_r;
  logic out_valid_r;
  logic out_last_r;

  assign s_axis_tready_o = ld_busy_r;
  assign in_fire_w = s_axis_tvalid_i && s_axis_tready_o;
  always_comb begin
    for (int s = 0; s < 3; s++)
      in_llr_w[s] = (s_axis_tdata_i[s*LLR_W+:LLR_W] == {1'b1, {(LLR_W - 1) {1'b0}}}) ?
          LLR_MIN_SYM : s_axis_tdata_i[s*LLR_W+:LLR_W];
  end
  assign out_free_w = !out_valid_r || m_axis_tready_i;
  assign clr_w = start_w;

  // ------------------------------------------------------------------ banks
  for (genvar b = 0; b < N_SISO; b++) begin : g_bank
    // Bank memories, exempt from reset: every word is written before it is read in a block.
    // Input and APP memories hold two blocks (buffer = address / BANK_D).
    logic signed [LLR_W-1:0] sys_mem_r[2 * BANK_D];
    logic signed [LLR_W-1:0] p1_mem_r[2 * BANK_D];
    logic signed [LLR_W-1:0] p2_mem_r[2 * BANK_D];
    logic signed [EXT_W-1:0] ext_mem_r[BANK_D];  // scaled extrinsic
    logic signed [APP_LLR_W-1:0] app_mem_r[2 * BANK_D];
    logic ld_we_w;

    assign ld_we_w = ld_busy_r && in_fire_w && ld_idx_r < {1'b0, lk_w} &&
        ld_bank_r == $unsigned(BK_W'(b));
    assign sys_rd_w[b] = $unsigned(sys_mem_r[buf_addr(rd_sel_r, rd_off_w)]);
    assign ext_rd_w[b] = $unsigned(ext_mem_r[rd_off_w]);
    assign par_rd_w[b] = $unsigned(dec2_r ? p2_mem_r[buf_addr(rd_sel_r, j_r)] :
                                            p1_mem_r[buf_addr(rd_sel_r, j_r)]);
    assign app_out_w[b] = $unsigned(app_mem_r[buf_addr(ob_sel_r, out_off_r)]);

    always_ff @(posedge clk) begin
      if (ld_we_w) begin
        sys_mem_r[buf_addr(wr_sel_r, ld_off_r)] <= $signed(in_llr_w[0]);
        p1_mem_r[buf_addr(wr_sel_r, ld_off_r)] <= $signed(in_llr_w[1]);
        p2_mem_r[buf_addr(wr_sel_r, ld_off_r)] <= $signed(in_llr_w[2]);
      end
      if (p2_bwd_r && bank_we_w[b]) begin
        ext_mem_r[p2_off_r] <= $signed(le_sc_w[bank_sel_w[b]]);
        if (p2_dec2_r) app_mem_r[buf_addr(dw_sel_r, p2_off_r)] <= $signed(app_w[bank_sel_w[b]]);
      end
    end
  end

  // ------------------------------------------------------------------ SISOs
  for (genvar q = 0; q < N_SISO; q++) begin : g_siso
    // alpha of every step of the sub-block, exempt from reset: written by the forward pass
    // before the backward pass reads it.
    logic [8*SM_W-1:0] alpha_mem_r[BANK_D + 3];
    logic signed [SM_W-1:0] alpha_r[8];
    logic signed [SM_W-1:0] beta_r[8];
    logic [8*SM_W-1:0] a_bnd_r[2];  // starting alpha per constituent decoder
    logic [8*SM_W-1:0] b_bnd_r[2];  // starting beta per constituent decoder
    logic signed [G_W-1:0] g1_r;  // stage 1: branch metrics of the step
    logic signed [G_W-1:0] g2_r;
    logic signed [G_W-1:0] g3_r;
    logic signed [G_W-1:0] g2_p2_r;  // stage 2: g2 for the APP LLR
    logic signed [ACC_W-1:0] u0_r;  // stage 2: the extrinsic's maxima over bit 0 and bit 1
    logic signed [ACC_W-1:0] u1_r;
    logic signed [ACC_W-1:0] u0_w;
    logic signed [ACC_W-1:0] u1_w;
    logic signed [ACC_W-1:0] g1_w;
    logic signed [ACC_W-1:0] g2_w;
    logic signed [ACC_W-1:0] g3_w;
    logic signed [SM_W-1:0] alpha_next_w[8];
    logic signed [SM_W-1:0] beta_next_w[8];
    logic signed [EXT_W-1:0] le_w;
    logic signed [EXT_W-1:0] le_sc_l;
    logic signed [APP_LLR_W-1:0] app_l;
    logic is_last_w;

    assign is_last_w = ($unsigned(BK_W'(q)) == last_w);

    // Stage 0 -> 1: the branch metrics of the step read this cycle.
    always_ff @(posedge clk) begin
      if (!rst_n) begin
        g1_r <= '0;
        g2_r <= '0;
        g3_r <= '0;
        g2_p2_r <= '0;
        u0_r <= '0;
        u1_r <= '0;
      end else begin
        g1_r <= G_W'($signed(lp_w[q]));
        g2_r <= G_W'($signed(ls_w[q])) + G_W'($signed(la_w[q]));
        g3_r <= G_W'($signed(ls_w[q])) + G_W'($signed(la_w[q])) + G_W'($signed(lp_w[q]));
        g2_p2_r <= g2_r;
        u0_r <= u0_w;
        u1_r <= u1_w;
      end
    end
    assign g1_w = ACC_W'(g1_r);
    assign g2_w = ACC_W'(g2_r);
    assign g3_w = ACC_W'(g3_r);

    // Forward recursion.
    always_comb begin
      logic signed [ACC_W-1:0] a[8];
      logic signed [ACC_W-1:0] n[8];
      for (int s = 0; s < 8; s++) a[s] = ACC_W'(alpha_r[s]);
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

    // Backward recursion and the extrinsic's maxima (stage 1).
    always_comb begin
      logic signed [ACC_W-1:0] a[8];
      logic signed [ACC_W-1:0] b[8];
      logic signed [ACC_W-1:0] m[8];
      logic [8*SM_W-1:0] alpha_word;
      alpha_word = alpha_mem_r[p1_j_r];
      for (int s = 0; s < 8; s++) begin
        a[s] = ACC_W'($signed(alpha_word[s*SM_W+:SM_W]));
        b[s] = ACC_W'(beta_r[s]);
      end
      u0_w = max2(max2(max2(a[0] + b[0], a[1] + b[4]), max2(a[2] + b[5] + g1_w, a[3] + b[1] + g1_w)),
                  max2(max2(a[4] + b[2] + g1_w, a[5] + b[6] + g1_w), max2(a[6] + b[7], a[7] + b[3])));
      u1_w = max2(max2(max2(a[0] + b[4] + g1_w, a[1] + b[0] + g1_w), max2(a[2] + b[1], a[3] + b[5])),
                  max2(max2(a[4] + b[6], a[5] + b[2]), max2(a[6] + b[3] + g1_w, a[7] + b[7] + g1_w)));
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

    // Stage 2: the extrinsic, scaled for the other decoder, and the APP LLR.
    always_comb begin
      le_w = EXT_W'(sat(u1_r - u0_r, EXT_MAX));
      le_sc_l = le_w - (le_w >>> 2);
      app_l = APP_LLR_W'(sat(ACC_W'(g2_p2_r) + ACC_W'(le_w), APP_MAX));
    end

    assign le_sc_w[q] = $unsigned(le_sc_l);
    assign app_w[q] = $unsigned(app_l);
    assign alpha_pk_w[q] = {alpha_r[7], alpha_r[6], alpha_r[5], alpha_r[4], alpha_r[3],
                            alpha_r[2], alpha_r[1], alpha_r[0]};
    assign beta_nx_pk_w[q] = {beta_next_w[7], beta_next_w[6], beta_next_w[5], beta_next_w[4],
                              beta_next_w[3], beta_next_w[2], beta_next_w[1], beta_next_w[0]};

    always_ff @(posedge clk) begin
      if (p1_fwd_r) alpha_mem_r[p1_j_r] <= alpha_pk_w[q];
    end

    always_ff @(posedge clk) begin
      if (!rst_n) begin
        for (int s = 0; s < 8; s++) begin
          alpha_r[s] <= '0;
          beta_r[s] <= '0;
        end
        for (int d = 0; d < 2; d++) begin
          a_bnd_r[d] <= '0;
          b_bnd_r[d] <= '0;
        end
      end else begin
        if (clr_w) begin
          // A new block: the inner boundaries start all-equal.
          for (int d = 0; d < 2; d++) begin
            a_bnd_r[d] <= '0;
            b_bnd_r[d] <= '0;
          end
          for (int s = 0; s < 8; s++)
            alpha_r[s] <= $signed((q == 0) ? KNOWN0[s*SM_W+:SM_W] : SM_W'(0));
        end
        if (p1_fwd_r && p1_act_r[q]) begin
          for (int s = 0; s < 8; s++) alpha_r[s] <= alpha_next_w[s];
        end
        if (p1_fwd_end_r) begin
          // Next iteration of this decoder starts from the left neighbour's last alpha.
          if (q > 0) a_bnd_r[p1_dec2_r] <= alpha_pk_w[(q>0)?q-1:0];
          for (int s = 0; s < 8; s++)
            beta_r[s] <= $signed(is_last_w ? KNOWN0[s*SM_W+:SM_W] : b_bnd_r[p1_dec2_r][s*SM_W+:SM_W]);
        end
        if (p1_bwd_r && p1_act_r[q]) begin
          for (int s = 0; s < 8; s++) beta_r[s] <= beta_next_w[s];
        end
        if (p1_bwd_end_r) begin
          // ... and from the right neighbour's first beta; alpha is set up for the other
          // decoder's half iteration, which comes next.
          if (q < N_SISO - 1) b_bnd_r[p1_dec2_r] <= beta_nx_pk_w[(q<N_SISO-1)?q+1:q];
          for (int s = 0; s < 8; s++)
            alpha_r[s] <= $signed((q == 0) ? KNOWN0[s*SM_W+:SM_W] : a_bnd_r[!p1_dec2_r][s*SM_W+:SM_W]);
        end
      end
    end
  end

  // ------------------------------------------------------------------ CRC, W = max(8, P) bits
  // The hard decisions in natural order, W = max(8, P) of them per cycle (K is a multiple of W),
  // so the check takes K / W <= M cycles; crc_idx_r counts bytes, W / 8 = (P - 1) / 8 + 1 per
  // cycle. The word is read CRC_BITS wide (zero-padded past MAX_K), the chain tapped after W.
  logic [              23:0] crc_next_w;
  logic [      CRC_BITS-1:0] crc_word_w;
  logic [               9:0] crc_step_w;  // W / 8
  logic [               9:0] crc_last_w;  // K / 8 - W / 8: the last word's byte index
  logic [MAX_K+CRC_BITS-1:0] hard_pad_w;
  assign hard_pad_w = {{CRC_BITS{1'b0}}, hard_mem_r};
  assign crc_word_w = hard_pad_w[{crc_idx_r, 3'b000}+:CRC_BITS];
  assign crc_step_w = 10'(last_w >> 3) + 10'd1;
  assign crc_last_w = k_w[12:3] - crc_step_w;
  always_comb begin
    logic [23:0] c;
    c = crc_r;
    crc_next_w = crc_r;
    for (int i = 0; i < CRC_BITS; i++) begin
      c = {c[22:0], 1'b0} ^ ((c[23] ^ crc_word_w[i]) ?
          ((crc_type_w == CRC_24B) ? CRC24B_POLY : CRC24A_POLY) : 24'd0);
      if (i % 8 == 7 && i + 1 == 8 * int'(crc_step_w)) crc_next_w = c;
    end
  end

  // Hard decisions of the interleaved decoder's APP LLRs, P per cycle (no reset: written before
  // the CRC reads them).
  logic [MAX_K-1:0] hard_next_w;
  always_comb begin
    hard_next_w = hard_mem_r;
    for (int q = 0; q < N_SISO; q++)
      if (p2_wr_r[q]) hard_next_w[p2_nat_r[q]] = ($signed(app_w[q]) > 0);
  end
  always_ff @(posedge clk) begin
    if (p2_bwd_r && p2_dec2_r) hard_mem_r <= hard_next_w;
  end

  // Interleaver table of the forward pass, replayed backward (no reset: written first).
  always_ff @(posedge clk) begin
    if (state_r == ST_FWD && dec2_r) addr_mem_r[j_r] <= {po_r, pb_r};
  end

  // ------------------------------------------------------------------ control
  // The decoder starts on a loaded block once an output buffer is free; it stops when the
  // previous iteration's CRC passes during a forward pass, or after the last CRC check.
  assign start_w = (state_r == ST_IDLE) && full_r[rd_sel_r] && !ofull_r[dw_sel_r];
  assign stop_w = (state_r == ST_FWD) && crc_busy_r && crc_idx_r == crc_last_w &&
      crc_next_w == '0;
  assign done_w = stop_w || (state_r == ST_CRC && crc_idx_r == crc_last_w);

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      full_r <= '0;
      wr_sel_r <= 1'b0;
      rd_sel_r <= 1'b0;
      ld_busy_r <= 1'b0;
      sk_r <= '0;
      sm_r <= '0;
      slast_r <= '0;
      smaxit_r <= '0;
      scrc_r <= '0;
      sg0_r <= '0;
      sg0_bank_r <= '0;
      sf2_r <= '0;
      sf2_bank_r <= '0;
      spb0_r <= '0;
      sgb0_r <= '0;
      su_phase_r <= '0;
      w_pb0_r <= '0;
      w_gb0_r <= '0;
      w_po_r <= '0;
      w_go_r <= '0;
      w_pb_r <= '0;
      w_gb_r <= '0;
      w_j_r <= '0;
      w_q_r <= '0;
      ld_idx_r <= '0;
      ld_bank_r <= '0;
      ld_off_r <= '0;
      for (int t = 0; t < 32; t++) tail_r[t] <= '0;
      state_r <= ST_IDLE;
      dec2_r <= 1'b0;
      first_r <= 1'b0;
      iter_r <= '0;
      j_r <= '0;
      crc_r <= '0;
      crc_busy_r <= 1'b0;
      crc_idx_r <= '0;
      gap_crc_r <= 1'b0;
      po_r <= '0;
      go_r <= '0;
      pb_r <= '0;
      gb_r <= '0;
      ofull_r <= '0;
      dw_sel_r <= 1'b0;
      ob_sel_r <= 1'b0;
      ok_r <= '0;
      om_r <= '0;
      ouser_r <= '0;
      ou_busy_r <= 1'b0;
      out_idx_r <= '0;
      out_bank_r <= '0;
      out_off_r <= '0;
      out_user_r <= '0;
      out_data_r <= '0;
      out_valid_r <= 1'b0;
      out_last_r <= 1'b0;
    end else begin
      // ---------------------------------------------------------------- loader
      if (!ld_busy_r) begin
        if (s_axis_tvalid_i && !full_r[wr_sel_r]) begin
          sk_r[wr_sel_r] <= k_i;
          sm_r[wr_sel_r] <= OFF_W'(k_i >> sub_log2(k_i));
          slast_r[wr_sel_r] <= $unsigned(BK_W'((1 << sub_log2(k_i)) - 1));
          sg0_r[wr_sel_r] <= mod_add({3'd0, f1_i}, {2'd0, f2_i}, k_i);
          sg0_bank_r[wr_sel_r] <= '0;
          sf2_r[wr_sel_r] <= mod_add({2'd0, f2_i}, {2'd0, f2_i}, k_i);
          sf2_bank_r[wr_sel_r] <= '0;
          smaxit_r[wr_sel_r] <= max_iter_i;
          scrc_r[wr_sel_r] <= crc_type_i;
          su_phase_r <= '0;
          ld_idx_r <= '0;
          ld_bank_r <= '0;
          ld_off_r <= '0;
          ld_busy_r <= 1'b1;
        end
      end else begin
        // QPP set-up beside the load: at most P + (P - 1) M + 1 cycles, done before the load's
        // K + 4 = P M + 4 beats end since P <= M + 2 (P <= 32 <= M).
        if (su_phase_r == 2'd0) begin
          if (sg0_r[wr_sel_r] >= 13'(lm_w)) begin
            sg0_r[wr_sel_r] <= sg0_r[wr_sel_r] - 13'(lm_w);
            sg0_bank_r[wr_sel_r] <= sg0_bank_r[wr_sel_r] + 1'b1;
          end
          if (sf2_r[wr_sel_r] >= 13'(lm_w)) begin
            sf2_r[wr_sel_r] <= sf2_r[wr_sel_r] - 13'(lm_w);
            sf2_bank_r[wr_sel_r] <= sf2_bank_r[wr_sel_r] + 1'b1;
          end
          if (sg0_r[wr_sel_r] < 13'(lm_w) && sf2_r[wr_sel_r] < 13'(lm_w)) begin
            w_po_r <= '0;
            w_pb_r <= '0;
            w_go_r <= OFF_W'(sg0_r[wr_sel_r]);
            w_gb_r <= sg0_bank_r[wr_sel_r];
            w_j_r <= '0;
            w_q_r <= '0;
            su_phase_r <= 2'd1;
          end
        end else if (su_phase_r == 2'd1) begin
          logic [OFF_W:0] sp;
          logic [OFF_W:0] sg;
          sp = off_add(w_po_r, w_go_r, lm_w);
          sg = off_add(w_go_r, OFF_W'(sf2_r[wr_sel_r]), lm_w);
          if (w_j_r == '0) begin
            w_pb0_r[w_q_r] <= w_pb_r;
            w_gb0_r[w_q_r] <= w_gb_r;
            if (w_q_r == llast_w) su_phase_r <= 2'd2;
          end
          w_po_r <= sp[OFF_W-1:0];
          w_pb_r <= (w_pb_r + w_gb_r + BK_W'(sp[OFF_W])) & llast_w;
          w_go_r <= sg[OFF_W-1:0];
          w_gb_r <= (w_gb_r + sf2_bank_r[wr_sel_r] + BK_W'(sg[OFF_W])) & llast_w;
          if (w_j_r == lm_w - OFF_ONE) begin
            w_j_r <= '0;
            w_q_r <= w_q_r + 1'b1;
          end else begin
            w_j_r <= w_j_r + OFF_ONE;
          end
        end
        if (in_fire_w) begin
          if (ld_idx_r >= {1'b0, lk_w}) begin
            tail_r[{wr_sel_r, 2'd0, ld_idx_r[1:0]}] <= $signed(in_llr_w[0]);
            tail_r[{wr_sel_r, 2'd1, ld_idx_r[1:0]}] <= $signed(in_llr_w[1]);
            tail_r[{wr_sel_r, 2'd2, ld_idx_r[1:0]}] <= $signed(in_llr_w[2]);
          end
          if (ld_off_r == lm_w - OFF_ONE) begin
            ld_off_r <= '0;
            ld_bank_r <= ld_bank_r + 1'b1;
          end else begin
            ld_off_r <= ld_off_r + OFF_ONE;
          end
          ld_idx_r <= ld_idx_r + 14'd1;
          if (s_axis_tlast_i) begin
            spb0_r[wr_sel_r] <= w_pb0_r;
            sgb0_r[wr_sel_r] <= w_gb0_r;
            full_r[wr_sel_r] <= 1'b1;
            wr_sel_r <= !wr_sel_r;
            ld_busy_r <= 1'b0;
          end
        end
      end

      // ---------------------------------------------------------------- decoder
      // The previous iteration's hard decisions are CRC-checked in natural order beside the
      // first forward pass of this one.
      if (crc_busy_r && state_r == ST_FWD) begin
        crc_r <= crc_next_w;
        crc_idx_r <= crc_idx_r + crc_step_w;
        if (crc_idx_r == crc_last_w) begin
          crc_busy_r <= 1'b0;
          // A pass ends the block (done_w); written pass-first so that a CRC a simulator cannot
          // resolve counts as a failure and the iterations run out instead of hanging.
          if (crc_next_w == '0) crc_r <= crc_next_w;
          else iter_r <= iter_r + 4'd1;
        end
      end
      case (state_r)
        ST_IDLE: begin
          if (start_w) begin
            iter_r <= 4'd1;
            dec2_r <= 1'b0;
            first_r <= 1'b1;
            j_r <= '0;
            crc_busy_r <= 1'b0;
            state_r <= ST_FWD;
          end
        end
        ST_FWD: begin
          if (dec2_r) begin
            logic [OFF_W:0] sp;
            logic [OFF_W:0] sg;
            sp = off_add(po_r, go_r, m_w);
            sg = off_add(go_r, f2_off_w, m_w);
            po_r <= sp[OFF_W-1:0];
            go_r <= sg[OFF_W-1:0];
            for (int q = 0; q < N_SISO; q++) begin
              pb_r[q] <= (pb_r[q] + gb_r[q] + BK_W'(sp[OFF_W])) & last_w;
              gb_r[q] <= (gb_r[q] + f2_bank_w + BK_W'(sg[OFF_W])) & last_w;
            end
          end
          if (fwd_end_w) state_r <= ST_BWD;
          else j_r <= j_r + OFF_ONE;
        end
        ST_BWD: begin
          if (bwd_end_w) begin
            crc_r <= '0;
            crc_idx_r <= '0;
            first_r <= 1'b0;
            state_r <= ST_GAP;
            if (dec2_r && iter_r == max_iter_w) begin
              gap_crc_r <= 1'b1;
            end else begin
              gap_crc_r <= 1'b0;
              if (dec2_r) crc_busy_r <= 1'b1;
              dec2_r <= !dec2_r;
              // The interleaved pass starts from Pi(qM) = (pb0[q], 0), g(qM) = (gb0[q], g0).
              po_r <= '0;
              go_r <= g0_off_w;
              pb_r <= pb0_w;
              gb_r <= gb0_w;
            end
          end else begin
            j_r <= j_r - OFF_ONE;
          end
        end
        ST_GAP: begin
          // The pass's last steps leave the pipeline (j counts the cycles, 0 on leaving).
          if (j_r == $unsigned(OFF_W'(GAP_CYCLES - 1))) begin
            j_r <= '0;
            state_r <= gap_crc_r ? ST_CRC : ST_FWD;
          end else begin
            j_r <= j_r + OFF_ONE;
          end
        end
        ST_CRC: begin
          // Only the last allowed iteration is checked here, with nothing left to overlap.
          crc_r <= crc_next_w;
          crc_idx_r <= crc_idx_r + crc_step_w;
        end
        default: state_r <= ST_IDLE;
      endcase
      if (done_w) begin
        // Hand the APP LLRs to the unloader and the input buffer back to the loader.
        ofull_r[dw_sel_r] <= 1'b1;
        ok_r[dw_sel_r] <= k_w;
        om_r[dw_sel_r] <= m_w;
        ouser_r[dw_sel_r] <= {crc_next_w == '0, iter_r};
        dw_sel_r <= !dw_sel_r;
        full_r[rd_sel_r] <= 1'b0;
        rd_sel_r <= !rd_sel_r;
        state_r <= ST_IDLE;
      end

      // ---------------------------------------------------------------- unloader
      if (out_valid_r && m_axis_tready_i) out_valid_r <= 1'b0;
      if (!ou_busy_r) begin
        if (ofull_r[ob_sel_r]) begin
          out_idx_r <= '0;
          out_bank_r <= '0;
          out_off_r <= '0;
          ou_busy_r <= 1'b1;
        end
      end else if (out_free_w) begin
        out_data_r <= app_out_w[out_bank_r];
        out_user_r <= ouser_r[ob_sel_r];
        out_valid_r <= 1'b1;
        out_last_r <= (out_idx_r == {1'b0, ok_r[ob_sel_r]} - 14'd1);
        out_idx_r <= out_idx_r + 14'd1;
        if (out_off_r == om_r[ob_sel_r] - OFF_ONE) begin
          out_off_r <= '0;
          out_bank_r <= out_bank_r + 1'b1;
        end else begin
          out_off_r <= out_off_r + OFF_ONE;
        end
        if (out_idx_r == {1'b0, ok_r[ob_sel_r]} - 14'd1) begin
          ofull_r[ob_sel_r] <= 1'b0;
          ob_sel_r <= !ob_sel_r;
          ou_busy_r <= 1'b0;
        end
      end
    end
  end

  assign m_axis_tdata_o = out_data_r;
  assign m_axis_tuser_o = out_user_r;
  assign m_axis_tvalid_o = out_valid_r;
  assign m_axis_tlast_o = out_last_r;

endmodule

`default_nettype wire
