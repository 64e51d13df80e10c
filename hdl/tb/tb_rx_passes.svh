// The subframe passes and MAC PDU checks shared by the receiver testbenches (tb_pdsch_rx_backend,
// tb_lte_baseband_top), included in the module body after their declarations; the includer
// defines TB_IN_BEATS, its input beats per subframe. The configuration words are written after
// every reset; pass 0 is cut by a reset a third of the way in, passes 1 and 2 run the subframe
// back to back. Checked per output byte: data, tlast, and on the last byte tuser (the CRC
// verdict). Prints the latency of pass 1 (tb_cycles) and the pass 1 to pass 2 interval
// (tb_interval) for bench/hdl_e2e.py.
// HARQ cases (HARQ=1): pass 1 is the first transmission, checked against its own decode
// (exp1_byte, CRC1_OK: it may fail); once its last byte is out the retransmission's words
// (cfg2_words: the same HARQ process and NDI) are written and pass 2 sends the retransmission, which
// must decode through the soft combining. The includer declares harq, crc1_ok, exp1_byte,
// cfg_sel and holds its input while retx_in && !cfg_sel.
logic [7:0] exp_now;
logic crc_now;
assign exp_now = (harq != 0 && pass_no == 1) ? exp1_byte[out_idx%MAX_BYTES] :
    exp_byte[out_idx%MAX_BYTES];
assign crc_now = (harq != 0 && pass_no == 1) ? crc1_ok[0] : crc_ok[0];
always @(posedge clk) begin
  cycle <= cycle + 1;
  `TB_RESET_RELEASE
  if (rst_n) begin
    if (cfg_idx < n_cfg) cfg_idx <= cfg_idx + 1;
    if (s_tvalid && s_tready) begin
      if (in_idx == 0 && in_pass == 1) start_cycle <= cycle;
      in_idx <= (in_idx == `TB_IN_BEATS - 1) ? 0 : in_idx + 1;
      if (in_idx == `TB_IN_BEATS - 1) in_pass <= in_pass + 1;
    end
    if (m_tvalid && ready_r) begin
      samples = samples + 1;
      `TB_MISMATCH_IF(out_idx >= n_bytes || m_tdata !== exp_now, "m_axis_tdata_o", exp_now,
                      m_tdata)
      `TB_EXPECT("m_axis_tlast_o", out_idx == n_bytes - 1, m_tlast)
      `TB_MISMATCH_IF(m_tlast && m_tuser !== crc_now, "m_axis_tuser_o", crc_now, m_tuser)
      out_idx <= out_idx + 1;
      if (out_idx + 1 == n_bytes) begin
        if (pass_no == 1) begin
          end_cycle = cycle;
          // First input beat to CRC verdict out of one subframe (read by bench/hdl_e2e.py).
          $display("tb: tb_cycles=%0d", cycle - start_cycle + 1);
        end
        if (pass_no == LAST_PASS) begin
          // Subframe to subframe in steady state (back-to-back passes 1 and 2).
          $display("tb: tb_interval=%0d", cycle - end_cycle);
          `TB_FINISH
        end
        out_idx <= 0;
        pass_no <= pass_no + 1;
        if (harq != 0 && pass_no == 1) begin
          cfg_idx <= 0;
          cfg_sel <= 1'b1;
        end
      end
    end
    if (in_pass == 0 && in_idx >= abort_at) begin
      rst_n <= 1'b0;
      rst_cnt <= 3;
      cfg_idx <= 0;
      in_idx <= 0;
      in_pass <= 1;
      out_idx <= 0;
      pass_no <= 1;
    end
  end
  `TB_HANDSHAKE(full_rate)
  `TB_WATCHDOG(limit, n_bytes, out_idx)
end
