`default_nettype none
// PDSCH receive back end: equalised symbols of one subframe in, the transport block (MAC PDU
// bytes) out. The chain inverts TS 36.211 7.1 (soft demapping), 6.3.1 (scrambling) and the
// DL-SCH coding of TS 36.212 5.3.2: code-block split of the codeword (5.1.5), rate matching
// (5.1.4.1), turbo coding (5.1.3.2) with the code-block CRC-24B, desegmentation (5.1.2) and the
// transport-block CRC-24A (5.1.1).
//
//   qam_demodulator -> descrambler -> [split into E_r LLRs] -> rate_dematcher
//     -> [{d2[k], d1[k], d0[k]} per beat; filler d0/d1 = -127] -> turbo_decoder
//     -> dl_sch_processor (desegmentation, CRC-24A, bytes MSB first)
//
// Memories: the rate dematcher's HARQ soft buffers (HARQ_PROC processes x 3 streams x
// HARQ_PROC_DEPTH LLRs, HARQ_SOFT_BITS = 1992192 bits in three RAMs) and the turbo decoder's (K LLRs x 3 streams,
// extrinsic, APP and state metrics, about 1 Mbit at K = 6144); code block r + 1 is
// rate-dematched while block r is turbo-decoded. Nothing else is buffered: bytes leave as the
// hard decisions do (the last one waits for the CRC-24A verdict).
//
// HARQ (TS 36.321 5.3.2.1, 5.3.2.2): harq_id_i selects one of HARQ_PROC processes, each with
// its own soft buffers (code block r at word sum of K_r' + 4 over r' < r). A process that has
// not received since reset, or whose ndi_i differs from its last transmission's, takes new
// data: its buffers start afresh; the same NDI marks a retransmission (any rv), combined into
// the buffers as the last transmission left them. The NDI is compared, and the process's
// remembered, when the transport block's first LLR enters the rate dematcher.
//
// In:  one equalised PDSCH symbol {I, Q} (EQ_OUT) per beat with its 1/N0 (LLR_SCALE) in
//      tuser, in mapping order; tlast on the subframe's last PDSCH symbol.
// Out: the TBS / 8 transport-block bytes, first bit in the MSB; tlast on the last byte, which
//      waits for the CRC-24A verdict: m_axis_tuser_o = CRC pass (valid with tlast).
// Configuration (lte_rx_config fields) must hold while a transport block is in flight.
module pdsch_rx_backend #(
    parameter int MAX_K = 6144
) (
    input  logic                                     clk,
    input  logic                                     rst_n,
    input  logic [lte_baseband_pkg::N_CELL_ID_W-1:0] cell_id_i,
    input  logic [ lte_baseband_pkg::SUBFRAME_W-1:0] subframe_i,
    input  logic [     lte_baseband_pkg::RNTI_W-1:0] rnti_i,
    input  logic [                              1:0] modulation_i,
    input  logic [                              1:0] rv_i,
    input  logic                                     ndi_i,
    input  logic [  lte_baseband_pkg::HARQ_ID_W-1:0] harq_id_i,
    input  logic [                              3:0] max_iter_i,
    input  logic [                              3:0] n_cb_i,
    input  logic [                             15:0] tbs_i,
    input  logic [lte_baseband_pkg::CB_MAX*13-1:0] cb_k_i,
    input  logic [ lte_baseband_pkg::CB_MAX*6-1:0] cb_f_i,
    input  logic [lte_baseband_pkg::CB_MAX*17-1:0] cb_e_i,
    input  logic [lte_baseband_pkg::CB_MAX*15-1:0] cb_ncb_i,
    input  logic [lte_baseband_pkg::CB_MAX*10-1:0] cb_f1_i,
    input  logic [lte_baseband_pkg::CB_MAX*11-1:0] cb_f2_i,
    input  logic [  lte_baseband_pkg::EQ_TDATA_W-1:0] s_axis_tdata_i,
    input  logic [ lte_baseband_pkg::LLR_SCALE_W-1:0] s_axis_tuser_i,
    input  logic                                     s_axis_tvalid_i,
    output logic                                     s_axis_tready_o,
    input  logic                                     s_axis_tlast_i,
    output logic [                              7:0] m_axis_tdata_o,
    output logic                                     m_axis_tuser_o,
    output logic                                     m_axis_tvalid_o,
    input  logic                                     m_axis_tready_i,
    output logic                                     m_axis_tlast_o
);
  import lte_baseband_pkg::*;

  localparam int CB_W = (CB_MAX > 1) ? $clog2(CB_MAX) : 1;
  // A process's soft-buffer words per stream: Cat-1's, or less where MAX_K is cut down.
  localparam int SOFT_DEPTH = (CB_MAX * (MAX_K + 4) < HARQ_PROC_DEPTH) ?
      CB_MAX * (MAX_K + 4) : HARQ_PROC_DEPTH;

  localparam logic signed [LLR_W-1:0] LLR_STRONG_ZERO = LLR_W'(-LLR_MAX);

  // ---------------------------------------------------------------- demap and descramble
  logic [LLR_W-1:0] qam_data_w;
  logic qam_valid_w, qam_ready_w, qam_last_w;
  logic [LLR_W-1:0] cw_data_w;
  logic cw_valid_w, cw_ready_w;
  logic cw_last_unused_w;

  qam_demodulator u_qam (
      .clk(clk),
      .rst_n(rst_n),
      .modulation_i(modulation_i),
      .s_axis_tdata_i(s_axis_tdata_i),
      .s_axis_tuser_i(s_axis_tuser_i),
      .s_axis_tvalid_i(s_axis_tvalid_i),
      .s_axis_tready_o(s_axis_tready_o),
      .s_axis_tlast_i(s_axis_tlast_i),
      .m_axis_tdata_o(qam_data_w),
      .m_axis_tvalid_o(qam_valid_w),
      .m_axis_tready_i(qam_ready_w),
      .m_axis_tlast_o(qam_last_w)
  );

  // TS 36.211 6.3.1: codeword q = 0 (one transport block per subframe).
  descrambler u_descr (
      .clk(clk),
      .rst_n(rst_n),
      .rnti_i(rnti_i),
      .cell_id_i(cell_id_i),
      .subframe_i(subframe_i),
      .codeword_i(1'b0),
      .s_axis_tdata_i(qam_data_w),
      .s_axis_tvalid_i(qam_valid_w),
      .s_axis_tready_o(qam_ready_w),
      .s_axis_tlast_i(qam_last_w),
      .m_axis_tdata_o(cw_data_w),
      .m_axis_tvalid_o(cw_valid_w),
      .m_axis_tready_i(cw_ready_w),
      .m_axis_tlast_o(cw_last_unused_w)
  );

  // ---------------------------------------------------------------- code-block split (5.1.5)
  // The codeword is the concatenation of E_0, E_1, ... LLRs; the E_r-th ends code block r.
  logic [CB_W-1:0] cb_in_r;
  logic [16:0] e_cnt_r;
  logic e_last_w;
  logic cw_fire_w;
  logic [12:0] in_k_w;
  logic [5:0] in_f_w;
  logic [14:0] in_ncb_w;
  logic [16:0] in_e_w;

  always_comb begin
    in_k_w = '0;
    in_f_w = '0;
    in_ncb_w = '0;
    in_e_w = '0;
    for (int i = 0; i < CB_MAX; i++) begin
      if (cb_in_r == $unsigned(CB_W'(i))) begin
        in_k_w = cb_k_i[i*13+:13];
        in_f_w = cb_f_i[i*6+:6];
        in_ncb_w = cb_ncb_i[i*15+:15];
        in_e_w = cb_e_i[i*17+:17];
      end
    end
  end
  assign e_last_w = (e_cnt_r == in_e_w - 17'd1);
  assign cw_fire_w = cw_valid_w && cw_ready_w;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      cb_in_r <= '0;
      e_cnt_r <= '0;
    end else if (cw_fire_w) begin
      if (e_last_w) begin
        e_cnt_r <= '0;
        cb_in_r <= ({{(4 - CB_W) {1'b0}}, cb_in_r} == n_cb_i - 4'd1) ? '0 : cb_in_r + 1'b1;
      end else begin
        e_cnt_r <= e_cnt_r + 17'd1;
      end
    end
  end

  // ---------------------------------------------------------------- HARQ (TS 36.321 5.3.2)
  logic [HARQ_PROC-1:0] used_r;  // the process holds a transport block
  logic [HARQ_PROC-1:0] ndi_r;  // its NDI
  logic retx_r;  // the transport block in flight is a retransmission
  logic tb_first_w;  // the codeword's first LLR is at the rate dematcher's input
  logic retx_w;
  logic combine_w;
  logic [13:0] cb_off_w;  // code block's first word in its process's soft buffer

  assign tb_first_w = (cb_in_r == '0) && (e_cnt_r == '0);
  assign retx_w = used_r[harq_id_i] && (ndi_r[harq_id_i] == ndi_i);
  assign combine_w = tb_first_w ? retx_w : retx_r;
  assign cb_off_w = (cb_in_r == '0) ? 14'd0 : 14'(cb_k_i[12:0]) + 14'd4;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      used_r <= '0;
      ndi_r <= '0;
      retx_r <= 1'b0;
    end else if (cw_fire_w && tb_first_w) begin
      used_r[harq_id_i] <= 1'b1;
      ndi_r[harq_id_i] <= ndi_i;
      retx_r <= retx_w;
    end
  end

  logic [3*LLR_W-1:0] d_data_w;  // {d2[k], d1[k], d0[k]}
  logic d_valid_w, d_ready_w, d_last_w;

  rate_dematcher #(
      .MAX_K(MAX_K),
      .N_PROC(HARQ_PROC),
      .PROC_DEPTH(SOFT_DEPTH)
  ) u_rdm (
      .clk(clk),
      .rst_n(rst_n),
      .k_i(in_k_w),
      .f_i(in_f_w),
      .rv_i(rv_i),
      .ncb_i(in_ncb_w),
      .combine_i(combine_w),
      .proc_i(harq_id_i),
      .off_i(cb_off_w),
      .s_axis_tdata_i(cw_data_w),
      .s_axis_tvalid_i(cw_valid_w),
      .s_axis_tready_o(cw_ready_w),
      .s_axis_tlast_i(e_last_w),
      .m_axis_tdata_o(d_data_w),
      .m_axis_tvalid_o(d_valid_w),
      .m_axis_tready_i(d_ready_w),
      .m_axis_tlast_o(d_last_w)
  );

  // ---------------------------------------------------------------- filler bits (5.1.2)
  // The F filler bits at the head of code block 0 are known zeros, and so is their parity in
  // d(1): in the beats k < F the d0 and d1 lanes enter the turbo decoder as the strongest 0.
  logic [CB_W-1:0] cb_d_r;
  logic [12:0] d_cnt_r;  // index k of the beat
  logic [12:0] d_k_w;
  logic [5:0] d_f_w;
  logic filler_w;
  logic [3*LLR_W-1:0] td_in_w;

  logic [9:0] d_f1_w;
  logic [10:0] d_f2_w;

  always_comb begin
    d_k_w = '0;
    d_f_w = '0;
    d_f1_w = '0;
    d_f2_w = '0;
    for (int i = 0; i < CB_MAX; i++) begin
      if (cb_d_r == $unsigned(CB_W'(i))) begin
        d_k_w = cb_k_i[i*13+:13];
        d_f_w = cb_f_i[i*6+:6];
        d_f1_w = cb_f1_i[i*10+:10];
        d_f2_w = cb_f2_i[i*11+:11];
      end
    end
  end
  assign filler_w = (d_cnt_r < {7'd0, d_f_w});
  assign td_in_w = filler_w ? {d_data_w[2*LLR_W+:LLR_W], LLR_STRONG_ZERO, LLR_STRONG_ZERO} :
      d_data_w;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      cb_d_r <= '0;
      d_cnt_r <= '0;
    end else if (d_valid_w && d_ready_w) begin
      if (d_last_w) begin
        d_cnt_r <= '0;
        cb_d_r <= ({{(4 - CB_W) {1'b0}}, cb_d_r} == n_cb_i - 4'd1) ? '0 : cb_d_r + 1'b1;
      end else begin
        d_cnt_r <= d_cnt_r + 13'd1;
      end
    end
  end

  logic [APP_LLR_W-1:0] app_w;
  logic [4:0] app_user_unused_w;
  logic app_valid_w, app_ready_w, app_last_w;

  // CRC-24B per code block when the transport block is segmented, else its CRC-24A.
  turbo_decoder #(
      .MAX_K(MAX_K)
  ) u_turbo (
      .clk(clk),
      .rst_n(rst_n),
      .k_i(d_k_w),
      .f1_i(d_f1_w),
      .f2_i(d_f2_w),
      .max_iter_i(max_iter_i),
      .crc_type_i((n_cb_i > 4'd1) ? CRC_24B : CRC_24A),
      .s_axis_tdata_i(td_in_w),
      .s_axis_tvalid_i(d_valid_w),
      .s_axis_tready_o(d_ready_w),
      .s_axis_tlast_i(d_last_w),
      .m_axis_tdata_o(app_w),
      .m_axis_tuser_o(app_user_unused_w),
      .m_axis_tvalid_o(app_valid_w),
      .m_axis_tready_i(app_ready_w),
      .m_axis_tlast_o(app_last_w)
  );

  // ---------------------------------------------------------------- desegmentation (5.1.2)
  // Filler bits and CRC-24B dropped, CRC-24A over the transport block, bytes MSB first.
  dl_sch_processor u_dlsch (
      .clk(clk),
      .rst_n(rst_n),
      .tbs_i({1'b0, tbs_i}),
      .num_cb_i(n_cb_i),
      .filler_i(cb_f_i[5:0]),
      .s_axis_tdata_i(app_w),
      .s_axis_tvalid_i(app_valid_w),
      .s_axis_tready_o(app_ready_w),
      .s_axis_tlast_i(app_last_w),
      .m_axis_tdata_o(m_axis_tdata_o),
      .m_axis_tuser_o(m_axis_tuser_o),
      .m_axis_tvalid_o(m_axis_tvalid_o),
      .m_axis_tready_i(m_axis_tready_i),
      .m_axis_tlast_o(m_axis_tlast_o)
  );

endmodule

`default_nettype wire
