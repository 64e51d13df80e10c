// The back end under test behind its configuration registers, shared by the back end's
// testbenches (tb_pdsch_rx_backend, tb_pdsch_rx_seq), included in the module body after the
// includer's own declarations. The includer declares clk, rst_n and ready_r, assigns cfg_we,
// cfg_addr, s_tvalid and s_tlast, and defines TB_BE_CFG_WDATA (the configuration word at
// cfg_addr), TB_BE_IQ and TB_BE_SCALE (the input beat's symbol and 1/N0).
  logic cfg_we;
  logic [3:0] cfg_addr;
  logic [N_CELL_ID_W-1:0] cell_id;
  logic [SUBFRAME_W-1:0] subframe;
  logic [1:0] cfi_unused;
  logic [1:0] modulation;
  logic [1:0] rv;
  logic [3:0] max_iter;
  logic [3:0] cbs;
  logic mmse_unused;
  logic ndi;
  logic [HARQ_ID_W-1:0] harq_id;
  logic [RNTI_W-1:0] rnti;
  logic [15:0] tbs;
  logic [N_RB_DL_MAX-1:0] rb_mask_unused;
  logic [2*13-1:0] cb_k;
  logic [2*6-1:0] cb_f;
  logic [2*17-1:0] cb_e;
  logic [2*15-1:0] cb_ncb;
  logic [2*10-1:0] cb_f1;
  logic [2*11-1:0] cb_f2;

  logic s_tvalid, s_tready, s_tlast;
  logic [7:0] m_tdata;
  logic m_tuser, m_tvalid, m_tlast;

  lte_rx_config u_cfg (
      .clk(clk),
      .rst_n(rst_n),
      .cfg_we_i(cfg_we),
      .cfg_addr_i(cfg_addr),
      .cfg_wdata_i(`TB_BE_CFG_WDATA),
      .cell_id_o(cell_id),
      .subframe_o(subframe),
      .cfi_o(cfi_unused),
      .modulation_o(modulation),
      .rv_o(rv),
      .max_iter_o(max_iter),
      .n_cb_o(cbs),
      .mmse_o(mmse_unused),
      .ndi_o(ndi),
      .harq_id_o(harq_id),
      .rnti_o(rnti),
      .tbs_o(tbs),
      .rb_mask_o(rb_mask_unused),
      .cb_k_o(cb_k),
      .cb_f_o(cb_f),
      .cb_e_o(cb_e),
      .cb_ncb_o(cb_ncb),
      .cb_f1_o(cb_f1),
      .cb_f2_o(cb_f2)
  );

  pdsch_rx_backend dut (
      .clk(clk),
      .rst_n(rst_n),
      .cell_id_i(cell_id),
      .subframe_i(subframe),
      .rnti_i(rnti),
      .modulation_i(modulation),
      .rv_i(rv),
      .ndi_i(ndi),
      .harq_id_i(harq_id),
      .max_iter_i(max_iter),
      .n_cb_i(cbs),
      .tbs_i(tbs),
      .cb_k_i(cb_k),
      .cb_f_i(cb_f),
      .cb_e_i(cb_e),
      .cb_ncb_i(cb_ncb),
      .cb_f1_i(cb_f1),
      .cb_f2_i(cb_f2),
      .s_axis_tdata_i(`TB_BE_IQ),
      .s_axis_tuser_i(`TB_BE_SCALE),
      .s_axis_tvalid_i(s_tvalid),
      .s_axis_tready_o(s_tready),
      .s_axis_tlast_i(s_tlast),
      .m_axis_tdata_o(m_tdata),
      .m_axis_tuser_o(m_tuser),
      .m_axis_tvalid_o(m_tvalid),
      .m_axis_tready_i(ready_r),
      .m_axis_tlast_o(m_tlast)
  );

