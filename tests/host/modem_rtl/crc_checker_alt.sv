`default_nettype none
// A CRC checker written apart from the repository's reference (TS 36.212 5.1.1): a Galois
// register shifted one bit per accepted beat, the syndrome and its zero test out per block.
module crc_checker (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        s_axis_tdata_i,
    input  logic        s_axis_tuser_i,
    input  logic        s_axis_tvalid_i,
    output logic        s_axis_tready_o,
    input  logic        s_axis_tlast_i,
    output logic [24:0] m_axis_tdata_o,
    output logic        m_axis_tvalid_o,
    input  logic        m_axis_tready_i,
    output logic        m_axis_tlast_o
);
  import lte_baseband_pkg::*;

  logic [23:0] state_q;
  logic        use_b_q;
  logic        start_q;
  logic [24:0] verdict_q;
  logic        full_q;
  logic        take_w;
  logic        use_b_w;
  logic [23:0] reg_w;
  logic [23:0] shifted_w;

  assign take_w = s_axis_tvalid_i && s_axis_tready_o;
  assign s_axis_tready_o = m_axis_tready_i || !full_q;

  // 36.212 5.1.1: the remainder of the block divided by the generator, one bit at a time.
  always_comb begin
    use_b_w = start_q ? s_axis_tuser_i : use_b_q;
    reg_w = start_q ? 24'd0 : state_q;
    shifted_w = {reg_w[22:0], 1'b0};
    if (reg_w[23] ^ s_axis_tdata_i) begin
      shifted_w = shifted_w ^ (use_b_w ? CRC24B_POLY : CRC24A_POLY);
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      state_q <= 24'd0;
      use_b_q <= 1'b0;
      start_q <= 1'b1;
      verdict_q <= 25'd0;
      full_q <= 1'b0;
    end else begin
      if (full_q && m_axis_tready_i) full_q <= 1'b0;
      if (take_w) begin
        state_q <= shifted_w;
        use_b_q <= use_b_w;
        start_q <= s_axis_tlast_i;
        if (s_axis_tlast_i) begin
          verdict_q <= {shifted_w == 24'd0, shifted_w};
          full_q <= 1'b1;
        end
      end
    end
  end

  assign m_axis_tdata_o = verdict_q;
  assign m_axis_tvalid_o = full_q;
  assign m_axis_tlast_o = 1'b1;
endmodule
`default_nettype wire
