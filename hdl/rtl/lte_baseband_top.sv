`default_nettype none
// LTE Cat-1 downlink baseband receiver, 10 MHz (50 RB), FDD, normal CP, antenna port 0:
// time-domain IQ samples in, the PDSCH transport block (MAC PDU, TS 36.321 6.1.2) out.
//
//   IQ -> ofdm_demodulator (TS 36.211 6.12) --+--> channel_estimator (6.10.1) --> H, N0
//                                             +--> grid buffer Y (one subframe)
//   {Y, H, N0} per RE -> 3 x resource_demapper in lockstep (6.3.5, 6.10.1.2, 6.11, 6.6.4)
//     -> equalizer (ZF / MMSE) -> pdsch_rx_backend (7.1, 6.3.1, TS 36.212 5.3.2) -> bytes
//
// Buffering: the channel estimator interpolates in time between CRS symbols up to l = 11, so
// no RE can be equalised before the whole subframe has been received. The grid buffer holds the
// subframe's 14 x 600 REs (Y, FFT_OUT {I, Q}: 8400 x 32 bit = 269 kbit) while the estimator
// takes the same REs; when the estimator streams H back in the same order, Y is read beside
// it. The subframe after is held off (the OFDM demodulator's input stalls) until the last H has
// left, so one buffer suffices. Past the demappers the stream carries only PDSCH REs; the
// equalised symbols queue in a symbol FIFO (SYM_FIFO_LOG2 = 12: 4096 x 49 bits = 200,704 bits)
// in front of the back end, so the estimates leave at the estimator's pace (about one RE per
// cycle) rather than the back end's (one LLR per cycle, Qm per symbol): the grid and the
// estimator are free for subframe n + 1 while subframe n's code blocks are collected in the
// rate dematcher's soft buffer and decoded in the turbo decoder's (see pdsch_rx_backend). N0
// rides through its own demapper so that every RE meets the equaliser with its own subframe's
// noise estimate.
//
// Configuration: the lte_rx_config register words (cell id, subframe, CFI, RB bitmap,
// modulation, RNTI, TBS and per-code-block K/F/E/N_cb/f1/f2, what a modem takes from the DCI),
// then a write of word CFG_COMMIT (15, any data) commits them for the next subframe. The
// committed words wait (cfg_pending_o high: further writes and commits are ignored) until the
// front end (estimator, demappers, equaliser) is free, then form the front end's slot, taken
// with the subframe's first grid RE and held until its last equalised symbol is queued. The
// slot is copied to the back end's slot as soon as that is free (the back end finished the
// previous subframe's MAC PDU), and the back end takes the subframe's symbols from the FIFO
// only then. So subframe n + 1 can be configured, demodulated and estimated while subframe n
// is still in the back end, and every stage works with its own subframe's words.
// In:  one {I, Q} IQ_SAMPLE per beat; the first sample after reset starts a subframe, and
//      subframes follow back to back (15360 samples each).
// Out: the TBS / 8 bytes of the transport block, MSB first, tlast on the last byte with
//      tuser = transport-block CRC-24A pass.
//
// MAX_K, FFT_LOG2 < 10 and GRID_RE < 8400 only exist to keep the flop-mapped synthesis stand-in
// small (the memories belong in SRAM macros); the receiver works at the defaults only.
module lte_baseband_top #(
    parameter int MAX_K = 6144,
    parameter int FFT_LOG2 = 10,
    parameter int GRID_RE = 8400,
    parameter int SYM_FIFO_LOG2 = 12
) (
    input  logic                                    clk,
    input  logic                                    rst_n,
    input  logic                                    cfg_we_i,
    input  logic [                             3:0] cfg_addr_i,
    input  logic [                            31:0] cfg_wdata_i,
    output logic                                    cfg_pending_o,
    input  logic [ lte_baseband_pkg::IQ_TDATA_W-1:0] s_axis_tdata_i,
    input  logic                                    s_axis_tvalid_i,
    output logic                                    s_axis_tready_o,
    output logic [                             7:0] m_axis_tdata_o,
    output logic                                    m_axis_tuser_o,
    output logic                                    m_axis_tvalid_o,
    input  logic                                    m_axis_tready_i,
    output logic                                    m_axis_tlast_o
);
  import lte_baseband_pkg::*;

  localparam int RE_W = $clog2(GRID_RE);  // 14 x 600 REs of a subframe at the default

  // ---------------------------------------------------------------- configuration
  localparam logic [3:0] CFG_COMMIT = 4'd15;
  // A subframe's configuration as one word: the back end's fields in the low BE_W bits, the
  // front end's own (CFI, MMSE, RB bitmap) above them; cell id and subframe serve both.
  localparam int BE_W = N_CELL_ID_W + SUBFRAME_W + 2 + 2 + 4 + 4 + 1 + HARQ_ID_W + RNTI_W + 16 +
      CB_MAX * (13 + 6 + 17 + 15 + 10 + 11);
  localparam int CFG_W = 2 + 1 + N_RB_DL_MAX + BE_W;

  // The words as written (lte_rx_config's registers).
  logic [N_CELL_ID_W-1:0] st_cell_id_w;
  logic [SUBFRAME_W-1:0] st_subframe_w;
  logic [1:0] st_cfi_w;
  logic [1:0] st_modulation_w;
  logic [1:0] st_rv_w;
  logic [3:0] st_max_iter_w;
  logic [3:0] st_n_cb_w;
  logic st_mmse_w;
  logic st_ndi_w;
  logic [HARQ_ID_W-1:0] st_harq_id_w;
  logic [RNTI_W-1:0] st_rnti_w;
  logic [15:0] st_tbs_w;
  logic [N_RB_DL_MAX-1:0] st_rb_mask_w;
  logic [CB_MAX*13-1:0] st_cb_k_w;
  logic [CB_MAX*6-1:0] st_cb_f_w;
  logic [CB_MAX*17-1:0] st_cb_e_w;
  logic [CB_MAX*15-1:0] st_cb_ncb_w;
  logic [CB_MAX*10-1:0] st_cb_f1_w;
  logic [CB_MAX*11-1:0] st_cb_f2_w;
  logic pending_r;  // committed words wait for the front end's slot

  lte_rx_config u_cfg (
      .clk(clk),
      .rst_n(rst_n),
      .cfg_we_i(cfg_we_i && !pending_r),
      .cfg_addr_i(cfg_addr_i),
      .cfg_wdata_i(cfg_wdata_i),
      .cell_id_o(st_cell_id_w),
      .subframe_o(st_subframe_w),
      .cfi_o(st_cfi_w),
      .modulation_o(st_modulation_w),
      .rv_o(st_rv_w),
      .max_iter_o(st_max_iter_w),
      .n_cb_o(st_n_cb_w),
      .mmse_o(st_mmse_w),
      .ndi_o(st_ndi_w),
      .harq_id_o(st_harq_id_w),
      .rnti_o(st_rnti_w),
      .tbs_o(st_tbs_w),
      .rb_mask_o(st_rb_mask_w),
      .cb_k_o(st_cb_k_w),
      .cb_f_o(st_cb_f_w),
      .cb_e_o(st_cb_e_w),
      .cb_ncb_o(st_cb_ncb_w),
      .cb_f1_o(st_cb_f1_w),
      .cb_f2_o(st_cb_f2_w)
  );

  logic [CFG_W-1:0] staged_w;
  logic [CFG_W-1:0] front_r;  // the front end's subframe
  logic [BE_W-1:0] back_r;  // the back end's subframe
  logic front_valid_r;
  logic front_copied_r;  // front_r is (also) in back_r
  logic front_in_done_r;  // the estimator has taken the subframe's last grid RE
  logic front_out_done_r;  // its last equalised symbol is in the FIFO
  logic back_valid_r;
  logic back_in_done_r;  // the back end has taken the subframe's last symbol
  logic front_load_w, front_copy_w, front_free_w, back_free_w;
  logic front_open_w;  // the estimator may take grid REs
  logic back_open_w;  // the back end may take symbols
  logic grid_last_fire_w, x_last_fire_w, be_last_fire_w;

  assign staged_w = {
    st_cfi_w,
    st_mmse_w,
    st_rb_mask_w,
    st_cell_id_w,
    st_subframe_w,
    st_modulation_w,
    st_rv_w,
    st_max_iter_w,
    st_n_cb_w,
    st_ndi_w,
    st_harq_id_w,
    st_rnti_w,
    st_tbs_w,
    st_cb_k_w,
    st_cb_f_w,
    st_cb_e_w,
    st_cb_ncb_w,
    st_cb_f1_w,
    st_cb_f2_w
  };

  assign cfg_pending_o = pending_r;
  assign front_load_w = pending_r && !front_valid_r;
  assign front_copy_w = front_valid_r && !front_copied_r && !back_valid_r;
  assign front_free_w = front_valid_r && front_copied_r && front_out_done_r;
  assign back_free_w = back_valid_r && m_axis_tvalid_o && m_axis_tready_i && m_axis_tlast_o;
  assign front_open_w = front_valid_r && !front_in_done_r;
  assign back_open_w = back_valid_r && !back_in_done_r;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      pending_r <= 1'b0;
      front_r <= '0;
      back_r <= '0;
      front_valid_r <= 1'b0;
      front_copied_r <= 1'b0;
      front_in_done_r <= 1'b0;
      front_out_done_r <= 1'b0;
      back_valid_r <= 1'b0;
      back_in_done_r <= 1'b0;
    end else begin
      if (front_load_w) pending_r <= 1'b0;
      else if (cfg_we_i && cfg_addr_i == CFG_COMMIT) pending_r <= 1'b1;
      if (front_load_w) begin
        front_r <= staged_w;
        front_valid_r <= 1'b1;
        front_copied_r <= 1'b0;
        front_in_done_r <= 1'b0;
        front_out_done_r <= 1'b0;
      end else begin
        if (front_free_w) front_valid_r <= 1'b0;
        if (front_copy_w) front_copied_r <= 1'b1;
        if (grid_last_fire_w) front_in_done_r <= 1'b1;
        if (x_last_fire_w) front_out_done_r <= 1'b1;
      end
      if (front_copy_w) begin
        back_r <= front_r[BE_W-1:0];
        back_valid_r <= 1'b1;
        back_in_done_r <= 1'b0;
      end else begin
        if (back_free_w) back_valid_r <= 1'b0;
        if (be_last_fire_w) back_in_done_r <= 1'b1;
      end
    end
  end

  // Front end's fields.
  logic [N_CELL_ID_W-1:0] fe_cell_id_w;
  logic [SUBFRAME_W-1:0] fe_subframe_w;
  logic [1:0] cfi_w;
  logic mmse_w;
  logic [N_RB_DL_MAX-1:0] rb_mask_w;
  logic [BE_W-N_CELL_ID_W-SUBFRAME_W-1:0] fe_be_fields_unused_w;

  assign {cfi_w, mmse_w, rb_mask_w, fe_cell_id_w, fe_subframe_w, fe_be_fields_unused_w} = front_r;

  // Back end's fields.
  logic [N_CELL_ID_W-1:0] be_cell_id_w;
  logic [SUBFRAME_W-1:0] be_subframe_w;
  logic [1:0] modulation_w;
  logic [1:0] rv_w;
  logic [3:0] max_iter_w;
  logic [3:0] n_cb_w;
  logic ndi_w;
  logic [HARQ_ID_W-1:0] harq_id_w;
  logic [RNTI_W-1:0] rnti_w;
  logic [15:0] tbs_w;
  logic [CB_MAX*13-1:0] cb_k_w;
  logic [CB_MAX*6-1:0] cb_f_w;
  logic [CB_MAX*17-1:0] cb_e_w;
  logic [CB_MAX*15-1:0] cb_ncb_w;
  logic [CB_MAX*10-1:0] cb_f1_w;
  logic [CB_MAX*11-1:0] cb_f2_w;

  assign {be_cell_id_w, be_subframe_w, modulation_w, rv_w, max_iter_w, n_cb_w, ndi_w, harq_id_w,
          rnti_w, tbs_w, cb_k_w, cb_f_w, cb_e_w, cb_ncb_w, cb_f1_w, cb_f2_w} = back_r;

  // ---------------------------------------------------------------- OFDM demodulation
  logic [FFT_TDATA_W-1:0] grid_data_w;
  logic [3:0] grid_sym_unused_w;
  logic grid_valid_w, grid_ready_w, grid_last_w;

  ofdm_demodulator #(
      .FFT_LOG2(FFT_LOG2)
  ) u_ofdm (
      .clk(clk),
      .rst_n(rst_n),
      .s_axis_tdata_i(s_axis_tdata_i),
      .s_axis_tvalid_i(s_axis_tvalid_i),
      .s_axis_tready_o(s_axis_tready_o),
      .m_axis_tdata_o(grid_data_w),
      .m_axis_tuser_o(grid_sym_unused_w),
      .m_axis_tvalid_o(grid_valid_w),
      .m_axis_tready_i(grid_ready_w),
      .m_axis_tlast_o(grid_last_w)
  );

  // ---------------------------------------------------------------- subframe buffer
  // Fill: each grid RE goes to the estimator and into grid_mem_r. Drain: the estimator's H
  // stream is zipped with the buffered Y of the same RE.
  logic draining_r;
  logic [RE_W-1:0] wr_idx_r;
  logic [RE_W-1:0] rd_idx_r;
  logic ce_in_ready_w;
  logic grid_fire_w;

  // Large memory, exempt from reset: every word is written in the fill phase before it is read.
  logic [FFT_TDATA_W-1:0] grid_mem_r[GRID_RE];

  assign grid_ready_w = !draining_r && front_open_w && ce_in_ready_w;
  assign grid_last_fire_w = grid_fire_w && grid_last_w;
  assign grid_fire_w = grid_valid_w && grid_ready_w;

  always_ff @(posedge clk) begin
    if (grid_fire_w) grid_mem_r[wr_idx_r] <= grid_data_w;
  end

  logic [CHAN_TDATA_W-1:0] h_data_w;
  logic [NOISE_VAR_W-1:0] h_n0_w;
  logic h_valid_w, h_ready_w, h_last_w;
  logic h_fire_w;

  channel_estimator u_chest (
      .clk(clk),
      .rst_n(rst_n),
      .cell_id_i(fe_cell_id_w),
      .subframe_i(fe_subframe_w),
      .s_axis_tdata_i(grid_data_w),
      .s_axis_tvalid_i(grid_valid_w && !draining_r && front_open_w),
      .s_axis_tready_o(ce_in_ready_w),
      .m_axis_tdata_o(h_data_w),
      .m_axis_tuser_o(h_n0_w),
      .m_axis_tvalid_o(h_valid_w),
      .m_axis_tready_i(h_ready_w),
      .m_axis_tlast_o(h_last_w)
  );

  assign h_fire_w = h_valid_w && h_ready_w;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      draining_r <= 1'b0;
      wr_idx_r <= '0;
      rd_idx_r <= '0;
    end else begin
      if (grid_fire_w) begin
        wr_idx_r <= grid_last_w ? '0 : wr_idx_r + 1'b1;
        if (grid_last_w) draining_r <= 1'b1;
      end
      if (h_fire_w) begin
        rd_idx_r <= h_last_w ? '0 : rd_idx_r + 1'b1;
        if (h_last_w) draining_r <= 1'b0;
      end
    end
  end

  // ---------------------------------------------------------------- resource demapping
  // Three identical demappers see identical handshakes, so they keep the same position and
  // drop the same REs: Y, H and N0 of each PDSCH RE leave together.
  localparam int NDM = 3;
  localparam logic [NDM*NDM-1:0] ONE_HOT = 9'b100_010_001;  // bit g of slice g
  logic [NDM-1:0][FFT_TDATA_W-1:0] dm_in_w;
  logic [NDM-1:0][FFT_TDATA_W-1:0] dm_out_w;
  logic [NDM-1:0] dm_in_ready_w;
  logic [NDM-1:0] dm_out_valid_w;
  logic [NDM-1:0] dm_out_last_w;
  logic eq_in_ready_w;

  assign dm_in_w[0] = grid_mem_r[rd_idx_r];
  assign dm_in_w[1] = h_data_w;
  assign dm_in_w[2] = FFT_TDATA_W'(h_n0_w);
  assign h_ready_w = &dm_in_ready_w;

  for (genvar g = 0; g < NDM; g++) begin : gen_demap
    logic others_in_ready_w;
    logic others_out_valid_w;
    assign others_in_ready_w = &(dm_in_ready_w | ONE_HOT[g*NDM+:NDM]);
    assign others_out_valid_w = &(dm_out_valid_w | ONE_HOT[g*NDM+:NDM]);

    resource_demapper u_demap (
        .clk(clk),
        .rst_n(rst_n),
        .cell_id_i(fe_cell_id_w),
        .cfi_i(cfi_w),
        .subframe_i(fe_subframe_w),
        .rb_mask_i(rb_mask_w),
        .s_axis_tdata_i(dm_in_w[g]),
        .s_axis_tvalid_i(h_valid_w && others_in_ready_w),
        .s_axis_tready_o(dm_in_ready_w[g]),
        .s_axis_tlast_i(h_last_w),
        .m_axis_tdata_o(dm_out_w[g]),
        .m_axis_tvalid_o(dm_out_valid_w[g]),
        .m_axis_tready_i(eq_in_ready_w && others_out_valid_w),
        .m_axis_tlast_o(dm_out_last_w[g])
    );
  end

  // ---------------------------------------------------------------- equalisation
  logic [EQ_TDATA_W-1:0] x_data_w;
  logic [LLR_SCALE_W-1:0] x_scale_w;
  logic x_valid_w, x_ready_w, x_last_w;
  logic [FFT_TDATA_W-NOISE_VAR_W-1:0] n0_pad_unused_w;
  logic [NDM-2:0] dm_last_unused_w;

  assign n0_pad_unused_w = dm_out_w[2][FFT_TDATA_W-1:NOISE_VAR_W];
  assign dm_last_unused_w = dm_out_last_w[NDM-1:1];

  equalizer u_eq (
      .clk(clk),
      .rst_n(rst_n),
      .n0_i(dm_out_w[2][NOISE_VAR_W-1:0]),
      .mmse_i(mmse_w),
      .s_axis_tdata_i({dm_out_w[0], dm_out_w[1]}),
      .s_axis_tvalid_i(&dm_out_valid_w),
      .s_axis_tready_o(eq_in_ready_w),
      .s_axis_tlast_i(dm_out_last_w[0]),
      .m_axis_tdata_o(x_data_w),
      .m_axis_tuser_o(x_scale_w),
      .m_axis_tvalid_o(x_valid_w),
      .m_axis_tready_i(x_ready_w),
      .m_axis_tlast_o(x_last_w)
  );

  // ---------------------------------------------------------------- symbol FIFO
  // {tlast, 1/N0, symbol} per beat. The back end takes a subframe's symbols only with its
  // configuration in back_r, and none of the next subframe's before that is replaced.
  localparam int SYM_W = 1 + LLR_SCALE_W + EQ_TDATA_W;
  logic [SYM_W-1:0] sym_w;
  logic sym_valid_w, sym_ready_w;
  logic [EQ_TDATA_W-1:0] be_data_w;
  logic [LLR_SCALE_W-1:0] be_scale_w;
  logic be_valid_w, be_ready_w, be_last_w;

  assign x_last_fire_w = x_valid_w && x_ready_w && x_last_w;

  symbol_fifo #(
      .DEPTH_LOG2(SYM_FIFO_LOG2),
      .WIDTH(SYM_W)
  ) u_sym_fifo (
      .clk(clk),
      .rst_n(rst_n),
      .s_axis_tdata_i({x_last_w, x_scale_w, x_data_w}),
      .s_axis_tvalid_i(x_valid_w),
      .s_axis_tready_o(x_ready_w),
      .m_axis_tdata_o(sym_w),
      .m_axis_tvalid_o(sym_valid_w),
      .m_axis_tready_i(sym_ready_w)
  );

  assign {be_last_w, be_scale_w, be_data_w} = sym_w;
  assign be_valid_w = sym_valid_w && back_open_w;
  assign sym_ready_w = be_ready_w && back_open_w;
  assign be_last_fire_w = be_valid_w && be_ready_w && be_last_w;

  // ---------------------------------------------------------------- PDSCH back end
  pdsch_rx_backend #(
      .MAX_K(MAX_K)
  ) u_backend (
      .clk(clk),
      .rst_n(rst_n),
      .cell_id_i(be_cell_id_w),
      .subframe_i(be_subframe_w),
      .rnti_i(rnti_w),
      .modulation_i(modulation_w),
      .rv_i(rv_w),
      .ndi_i(ndi_w),
      .harq_id_i(harq_id_w),
      .max_iter_i(max_iter_w),
      .n_cb_i(n_cb_w),
      .tbs_i(tbs_w),
      .cb_k_i(cb_k_w),
      .cb_f_i(cb_f_w),
      .cb_e_i(cb_e_w),
      .cb_ncb_i(cb_ncb_w),
      .cb_f1_i(cb_f1_w),
      .cb_f2_i(cb_f2_w),
      .s_axis_tdata_i(be_data_w),
      .s_axis_tuser_i(be_scale_w),
      .s_axis_tvalid_i(be_valid_w),
      .s_axis_tready_o(be_ready_w),
      .s_axis_tlast_i(be_last_w),
      .m_axis_tdata_o(m_axis_tdata_o),
      .m_axis_tuser_o(m_axis_tuser_o),
      .m_axis_tvalid_o(m_axis_tvalid_o),
      .m_axis_tready_i(m_axis_tready_i),
      .m_axis_tlast_o(m_axis_tlast_o)
  );

endmodule

`default_nettype wire
