`default_nettype none
// CRC checker: bit-serial syndrome of a code block (CRC-24B) or a transport block (CRC-24A).
// Implements the parity check of TS 36.212 clause 5.1.1: the register starts at zero and the
// block, parity bits included, is shifted through the generator; a zero remainder passes.
//
// In:  one bit a_k per beat in s_axis_tdata_i[0], s_axis_tuser_i selects the polynomial
//      (lte_baseband_pkg::crc_type_e, taken from the first beat of a block), tlast on the
//      block's last parity bit.
// Out: one beat per block, m_axis_tdata_o = {pass, syndrome[23:0]}, tlast always 1.
module crc_checker (
    input  logic                                       clk,
    input  logic                                       rst_n,
    input  logic                                       s_axis_tdata_i,
    input  logic                                       s_axis_tuser_i,
    input  logic                                       s_axis_tvalid_i,
    output logic                                       s_axis_tready_o,
    input  logic                                       s_axis_tlast_i,
    output logic [lte_baseband_pkg::CRC_TDATA_W-1:0]   m_axis_tdata_o,
    output logic                                       m_axis_tvalid_o,
    input  logic                                       m_axis_tready_i,
    output logic                                       m_axis_tlast_o
);
  import lte_baseband_pkg::*;

  logic [CRC_W-1:0] crc_r;
  logic             crc_sel_r;  // polynomial of the block in flight
  logic             first_r;  // next accepted beat starts a block
  logic [CRC_W-1:0] crc_next_w;
  logic [CRC_W-1:0] poly_w;
  logic             sel_w;
  logic             feedback_w;
  logic             in_fire_w;
  logic [CRC_W-1:0] out_syndrome_r;
  logic             out_pass_r;
  logic             out_valid_r;

  // The output holds one verdict; a block's last bit waits until that slot is free.
  assign s_axis_tready_o = !out_valid_r || m_axis_tready_i;
  assign in_fire_w = s_axis_tvalid_i && s_axis_tready_o;

  always_comb begin
    sel_w = first_r ? s_axis_tuser_i : crc_sel_r;
    poly_w = (sel_w == CRC_24B) ? CRC24B_POLY : CRC24A_POLY;
    feedback_w = (first_r ? 1'b0 : crc_r[CRC_W-1]) ^ s_axis_tdata_i;
    crc_next_w = {(first_r ? {(CRC_W - 1) {1'b0}} : crc_r[CRC_W-2:0]), 1'b0} ^
        (feedback_w ? poly_w : '0);
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      crc_r <= '0;
      crc_sel_r <= 1'b0;
      first_r <= 1'b1;
      out_syndrome_r <= '0;
      out_pass_r <= 1'b0;
      out_valid_r <= 1'b0;
    end else begin
      if (out_valid_r && m_axis_tready_i) out_valid_r <= 1'b0;
      if (in_fire_w) begin
        crc_r <= crc_next_w;
        crc_sel_r <= sel_w;
        first_r <= s_axis_tlast_i;
        if (s_axis_tlast_i) begin
          out_syndrome_r <= crc_next_w;
          out_pass_r <= (crc_next_w == '0);
          out_valid_r <= 1'b1;
        end
      end
    end
  end

  assign m_axis_tdata_o = {out_pass_r, out_syndrome_r};
  assign m_axis_tvalid_o = out_valid_r;
  assign m_axis_tlast_o = 1'b1;

endmodule

`default_nettype wire
