// The subframe passes and MAC PDU checks shared by the receiver testbenches (tb_pdsch_rx_backend,
// tb_lte_baseband_top), included in the module body after their declarations; the includer
// defines TB_IN_BEATS, its input beats per subframe. The configuration words are written after
// every reset; pass 0 is cut by a reset a third of the way in, passes 1 and 2 run the subframe
// back to back, up to pass last_pass (the includer's int). Checked per output byte: data, tlast,
// and on the last byte tuser (the CRC verdict). Prints for bench/hdl_e2e.py the latency of
// pass 1 (tb_cycles, first input beat to CRC verdict) and of the last pass (tb_cycles_last),
// and the mean and the longest interval between the verdicts of passes 1..last_pass
// (tb_interval, tb_interval_max).
// With TB_CFG_PER_PASS defined (the top's per-subframe configuration) the includer declares
// cfg_pass and cfg_pending and writes pass cfg_pass's words while !cfg_pending; the words of
// the next pass follow as soon as the last ones are committed (cfg_pending falls), whatever
// the passes in flight.
// HARQ cases (HARQ=1): pass 1 is the first transmission, checked against its own decode
// (exp1_byte, CRC1_OK: it may fail); pass 2 sends the retransmission (cfg2_words: the same HARQ
// process and NDI), which must decode through the soft combining. Without TB_CFG_PER_PASS its
// words are written once pass 1's last byte is out; the includer declares harq, crc1_ok,
// exp1_byte, cfg_sel and holds its input while retx_in && !cfg_sel.
logic [7:0] exp_now;
logic crc_now;
assign exp_now = (harq != 0 && pass_no == 1) ? exp1_byte[out_idx%MAX_BYTES] :
    exp_byte[out_idx%MAX_BYTES];
assign crc_now = (harq != 0 && pass_no == 1) ? crc1_ok[0] : crc_ok[0];
longint prev_end_cycle = 0;
longint start_last = 0;
longint interval_max = 0;
always @(posedge clk) begin
  cycle <= cycle + 1;
  `TB_RESET_RELEASE
  if (rst_n) begin
    if (cfg_we) cfg_idx <= cfg_idx + 1;
`ifdef TB_CFG_PER_PASS
    else if (cfg_idx == n_cfg && !cfg_pending && cfg_pass < last_pass) begin
      cfg_idx <= 0;
      cfg_pass <= cfg_pass + 1;
    end
`endif
    if (s_tvalid && s_tready) begin
      if (in_idx == 0 && in_pass == 1) start_cycle <= cycle;
      if (in_idx == 0 && in_pass == last_pass) start_last <= cycle;
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
        end else if (cycle - prev_end_cycle > interval_max) begin
          interval_max = cycle - prev_end_cycle;
        end
        prev_end_cycle = cycle;
        if (pass_no == last_pass) begin
          // Subframe to subframe in steady state (back-to-back passes 1 .. last_pass).
          $display("tb: tb_cycles_last=%0d", cycle - start_last + 1);
          $display("tb: tb_interval=%0d", (cycle - end_cycle) / (last_pass - 1));
          $display("tb: tb_interval_max=%0d", interval_max);
          $display("tb: tb_subframes=%0d", last_pass);
          `TB_FINISH
        end
        out_idx <= 0;
        pass_no <= pass_no + 1;
`ifndef TB_CFG_PER_PASS
        if (harq != 0 && pass_no == 1) begin
          cfg_idx <= 0;
          cfg_sel <= 1'b1;
        end
`endif
      end
    end
    if (in_pass == 0 && in_idx >= abort_at) begin
      rst_n <= 1'b0;
      rst_cnt <= 3;
      cfg_idx <= 0;
`ifdef TB_CFG_PER_PASS
      cfg_pass <= 1;
`endif
      in_idx <= 0;
      in_pass <= 1;
      out_idx <= 0;
      pass_no <= 1;
    end
  end
  `TB_HANDSHAKE(full_rate)
  `TB_WATCHDOG(limit, n_bytes, out_idx)
end
