`default_nettype none
// Per-subframe configuration registers of the downlink receiver. A modem derives these from the
// DCI and the tables of TS 36.213 7.1.7 (modulation, TBS), TS 36.212 5.1.2 (segmentation: C,
// K_r, F), 5.1.4.1.2 (E_r, N_cb) and 5.1.3.2.3 (QPP f1, f2); here the controller (or the
// testbench) writes them as 32-bit words. lte_baseband_top commits them for one subframe with a
// write of word 15 and keeps its own copy per subframe in flight, so the next subframe's words
// can be written while one is decoded; read directly (pdsch_rx_backend's testbenches) they
// must hold until the transport block has left the receiver.
//
// Word map (refmodels/vectors.py top_config_words writes the same layout):
//   0: [8:0] N_ID^cell, [12:9] subframe, [14:13] CFI, [16:15] modulation_e, [18:17] rv,
//      [22:19] turbo iterations, [26:23] C (code blocks, 1..CB_MAX), [27] equaliser
//      (0 = ZF, 1 = MMSE), [28] new data indicator, [31:29] HARQ process number (both as
//      the DCI carries them: the same NDI as the process's last transmission marks a
//      retransmission, which combines into its soft buffers, TS 36.321 5.3.2.2)
//   1: [15:0] n_RNTI, [31:16] TBS in bits
//   2: RB bitmap [31:0]   3: RB bitmap [49:32]
//   4 + 4r: [12:0] K_r, [18:13] F_r      5 + 4r: [16:0] E_r
//   6 + 4r: [14:0] N_cb,r                7 + 4r: [9:0] f1, [20:10] f2 of K_r
//   15: commit (lte_baseband_top; no register here)
// Code-block fields are packed with block r in bits [r*W +: W], r < CB_MAX (the package's).
module lte_rx_config (
    input  logic                                     clk,
    input  logic                                     rst_n,
    input  logic                                     cfg_we_i,
    input  logic [                              3:0] cfg_addr_i,
    input  logic [                             31:0] cfg_wdata_i,
    output logic [lte_baseband_pkg::N_CELL_ID_W-1:0] cell_id_o,
    output logic [ lte_baseband_pkg::SUBFRAME_W-1:0] subframe_o,
    output logic [                              1:0] cfi_o,
    output logic [                              1:0] modulation_o,
    output logic [                              1:0] rv_o,
    output logic [                              3:0] max_iter_o,
    output logic [                              3:0] n_cb_o,
    output logic                                     mmse_o,
    output logic                                     ndi_o,
    output logic [  lte_baseband_pkg::HARQ_ID_W-1:0] harq_id_o,
    output logic [     lte_baseband_pkg::RNTI_W-1:0] rnti_o,
    output logic [                             15:0] tbs_o,
    output logic [lte_baseband_pkg::N_RB_DL_MAX-1:0] rb_mask_o,
    output logic [                     lte_baseband_pkg::CB_MAX*13-1:0] cb_k_o,
    output logic [                      lte_baseband_pkg::CB_MAX*6-1:0] cb_f_o,
    output logic [                     lte_baseband_pkg::CB_MAX*17-1:0] cb_e_o,
    output logic [                     lte_baseband_pkg::CB_MAX*15-1:0] cb_ncb_o,
    output logic [                     lte_baseband_pkg::CB_MAX*10-1:0] cb_f1_o,
    output logic [                     lte_baseband_pkg::CB_MAX*11-1:0] cb_f2_o
);
  import lte_baseband_pkg::*;

  logic [31:0] word0_r;
  logic [31:0] word1_r;
  logic [N_RB_DL_MAX-1:0] rb_mask_r;
  logic [CB_MAX*13-1:0] k_r;
  logic [CB_MAX*6-1:0] f_r;
  logic [CB_MAX*17-1:0] e_r;
  logic [CB_MAX*15-1:0] ncb_r;
  logic [CB_MAX*10-1:0] f1_r;
  logic [CB_MAX*11-1:0] f2_r;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      word0_r <= '0;
      word1_r <= '0;
      rb_mask_r <= '0;
      k_r <= '0;
      f_r <= '0;
      e_r <= '0;
      ncb_r <= '0;
      f1_r <= '0;
      f2_r <= '0;
    end else if (cfg_we_i) begin
      if (cfg_addr_i == 4'd0) word0_r <= cfg_wdata_i;
      if (cfg_addr_i == 4'd1) word1_r <= cfg_wdata_i;
      if (cfg_addr_i == 4'd2) rb_mask_r[31:0] <= cfg_wdata_i;
      if (cfg_addr_i == 4'd3) rb_mask_r[N_RB_DL_MAX-1:32] <= cfg_wdata_i[N_RB_DL_MAX-33:0];
      for (int r = 0; r < CB_MAX; r++) begin
        if (cfg_addr_i == $unsigned(4'(4 + 4 * r))) begin
          k_r[r*13+:13] <= cfg_wdata_i[12:0];
          f_r[r*6+:6] <= cfg_wdata_i[18:13];
        end
        if (cfg_addr_i == $unsigned(4'(5 + 4 * r))) e_r[r*17+:17] <= cfg_wdata_i[16:0];
        if (cfg_addr_i == $unsigned(4'(6 + 4 * r))) ncb_r[r*15+:15] <= cfg_wdata_i[14:0];
        if (cfg_addr_i == $unsigned(4'(7 + 4 * r))) begin
          f1_r[r*10+:10] <= cfg_wdata_i[9:0];
          f2_r[r*11+:11] <= cfg_wdata_i[20:10];
        end
      end
    end
  end

  assign cell_id_o = word0_r[8:0];
  assign subframe_o = word0_r[12:9];
  assign cfi_o = word0_r[14:13];
  assign modulation_o = word0_r[16:15];
  assign rv_o = word0_r[18:17];
  assign max_iter_o = word0_r[22:19];
  assign n_cb_o = word0_r[26:23];
  assign mmse_o = word0_r[27];
  assign ndi_o = word0_r[28];
  assign harq_id_o = word0_r[31:29];
  assign rnti_o = word1_r[15:0];
  assign tbs_o = word1_r[31:16];
  assign rb_mask_o = rb_mask_r;
  assign cb_k_o = k_r;
  assign cb_f_o = f_r;
  assign cb_e_o = e_r;
  assign cb_ncb_o = ncb_r;
  assign cb_f1_o = f1_r;
  assign cb_f2_o = f2_r;

endmodule

`default_nettype wire
