`default_nettype none
// DL-SCH receive back end: code block desegmentation (the inverse of TS 36.212 clause 5.1.2),
// the transport block CRC-24A check (TS 36.212 5.1.1) and the transport block out as bytes, the
// MAC PDU of TS 36.321 6.1.2 (MSB of each byte first).
//
// In:  the turbo decoder's output for the C code blocks of one transport block, back to back in
//      segmentation order (the C- smaller blocks first): one a-posteriori LLR per beat
//      (APP_LLR, hard decision bit = LLR > 0), tlast on the last LLR of every code block.
//      tbs_i (A, a multiple of 8 as every TS 36.213 7.1.7.2 size is), num_cb_i (C) and
//      filler_i (F) are taken with the transport block's first LLR and must hold until it is
//      accepted.
// Out: the A / 8 bytes of a_0..a_{A-1}; on the last byte tlast = 1 and tuser = CRC-24A pass.
//
// The code block sizes are not needed: the F filler bits lead code block 0, and with C > 1 a
// 24-bit delay line holds back the newest bits of the code block, so the bits still in it when
// tlast arrives are its CRC-24B and are dropped. The last byte waits for the CRC-24A verdict,
// which is known on the transport block's last beat (at least 24 bits after that byte).
module dl_sch_processor (
    input  logic                                      clk,
    input  logic                                      rst_n,
    input  logic [                              16:0] tbs_i,
    input  logic [                               3:0] num_cb_i,
    input  logic [                               5:0] filler_i,
    input  logic [   lte_baseband_pkg::APP_LLR_W-1:0] s_axis_tdata_i,
    input  logic                                      s_axis_tvalid_i,
    output logic                                      s_axis_tready_o,
    input  logic                                      s_axis_tlast_i,
    output logic [lte_baseband_pkg::BYTE_TDATA_W-1:0] m_axis_tdata_o,
    output logic                                      m_axis_tuser_o,
    output logic                                      m_axis_tvalid_o,
    input  logic                                      m_axis_tready_i,
    output logic                                      m_axis_tlast_o
);
  import lte_baseband_pkg::*;

  localparam logic [4:0] DLY_FULL = 5'(CRC_W);

  logic              first_r;  // the next accepted beat starts a transport block
  logic       [16:0] tbs_r;
  logic              multi_r;  // C > 1: every code block ends with a CRC-24B
  logic       [ 3:0] cb_left_r;  // code blocks after the current one
  logic       [ 5:0] fill_left_r;  // filler bits still to drop (head of code block 0)
  logic [CRC_W-1:0] dly_r;  // newest bits of the code block, oldest in the MSB
  logic       [ 4:0] dly_cnt_r;
  logic       [16:0] n_r;  // desegmented bits b_k so far
  logic [CRC_W-1:0] crc_r;  // CRC-24A register over b_0..b_{B-1}
  logic       [ 6:0] byte_r;  // the first 7 bits of the byte being assembled
  logic       [ 7:0] last_byte_r;  // a_{A-8}..a_{A-1}, held for the verdict

  logic       [ 7:0] out_data_r;
  logic              out_valid_r;
  logic              out_last_r;
  logic              out_ok_r;

  logic              in_fire_w;
  logic       [16:0] tbs_w;
  logic              multi_w;
  logic       [ 5:0] fill_w;
  logic       [ 3:0] cb_left_w;
  logic              cb_final_w;  // the current code block is the transport block's last
  logic              bit_w;
  logic              drop_w;
  logic              pay_valid_w;
  logic              pay_bit_w;
  logic       [16:0] n_w;
  logic [CRC_W-1:0] crc_w;
  logic [CRC_W-1:0] crc_next_w;
  logic              data_bit_w;
  logic              byte_done_w;
  logic       [ 7:0] byte_w;
  logic              tb_end_w;

  // One accepted beat makes at most one output byte, so it waits for a free output slot.
  assign s_axis_tready_o = !out_valid_r || m_axis_tready_i;
  assign in_fire_w = s_axis_tvalid_i && s_axis_tready_o;

  always_comb begin
    tbs_w = first_r ? tbs_i : tbs_r;
    multi_w = first_r ? (num_cb_i > 4'd1) : multi_r;
    fill_w = first_r ? filler_i : fill_left_r;
    cb_left_w = first_r ? ((num_cb_i == '0) ? '0 : num_cb_i - 4'd1) : cb_left_r;
    cb_final_w = (cb_left_w == '0);
    n_w = first_r ? '0 : n_r;
    crc_w = first_r ? '0 : crc_r;
    // TS 36.212 5.1.3.2: hard decision of the a-posteriori LLR, positive = bit 1.
    bit_w = !s_axis_tdata_i[APP_LLR_W-1] && (s_axis_tdata_i != '0);
    // TS 36.212 5.1.2: filler bits lead code block 0; with C > 1 the delay line releases a bit
    // only once 24 newer bits of the same code block have arrived.
    drop_w = (fill_w != '0);
    pay_valid_w = !drop_w && (!multi_w || (dly_cnt_r == DLY_FULL));
    pay_bit_w = multi_w ? dly_r[CRC_W-1] : bit_w;
    // TS 36.212 5.1.1: CRC-24A over b_0..b_{B-1}, register starting at zero.
    crc_next_w = crc_w;
    if (pay_valid_w) begin
      crc_next_w = {crc_w[CRC_W-2:0], 1'b0} ^ ((crc_w[CRC_W-1] ^ pay_bit_w) ? CRC24A_POLY : '0);
    end
    data_bit_w = pay_valid_w && (n_w < tbs_w);
    byte_done_w = data_bit_w && (n_w[2:0] == 3'd7);
    byte_w = {byte_r, pay_bit_w};
    tb_end_w = s_axis_tlast_i && cb_final_w;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      first_r <= 1'b1;
      tbs_r <= '0;
      multi_r <= 1'b0;
      cb_left_r <= '0;
      fill_left_r <= '0;
      dly_r <= '0;
      dly_cnt_r <= '0;
      n_r <= '0;
      crc_r <= '0;
      byte_r <= '0;
      last_byte_r <= '0;
      out_data_r <= '0;
      out_valid_r <= 1'b0;
      out_last_r <= 1'b0;
      out_ok_r <= 1'b0;
    end else begin
      if (out_valid_r && m_axis_tready_i) out_valid_r <= 1'b0;
      if (in_fire_w) begin
        first_r <= tb_end_w;
        if (first_r) begin
          tbs_r <= tbs_i;
          multi_r <= multi_w;
        end
        cb_left_r <= (s_axis_tlast_i && !cb_final_w) ? cb_left_w - 4'd1 : cb_left_w;
        fill_left_r <= drop_w ? fill_w - 6'd1 : fill_w;
        if (!drop_w && multi_w) begin
          dly_r <= {dly_r[CRC_W-2:0], bit_w};
          if (dly_cnt_r != DLY_FULL) dly_cnt_r <= dly_cnt_r + 5'd1;
        end
        // The bits left in the delay line at a code block's end are its CRC-24B.
        if (s_axis_tlast_i) dly_cnt_r <= '0;
        n_r <= pay_valid_w ? n_w + 17'd1 : n_w;
        crc_r <= crc_next_w;
        if (data_bit_w) byte_r <= byte_w[6:0];
        if (byte_done_w) begin
          if (n_w == tbs_w - 17'd1) begin
            last_byte_r <= byte_w;
          end else begin
            out_data_r <= byte_w;
            out_valid_r <= 1'b1;
            out_last_r <= 1'b0;
            out_ok_r <= 1'b0;
          end
        end
        if (tb_end_w) begin
          out_data_r <= last_byte_r;
          out_valid_r <= 1'b1;
          out_last_r <= 1'b1;
          out_ok_r <= (crc_next_w == '0);
        end
      end
    end
  end

  assign m_axis_tdata_o = out_data_r;
  assign m_axis_tuser_o = out_ok_r;
  assign m_axis_tvalid_o = out_valid_r;
  assign m_axis_tlast_o = out_last_r;

endmodule

`default_nettype wire
