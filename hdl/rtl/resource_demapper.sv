`default_nettype none
// Resource element demapper: the PDSCH resource elements of one subframe out of the received
// grid, in the mapping order of TS 36.211 clause 6.3.5 (k first, then l). Excluded are the
// control region (l < CFI), the port-0 cell-specific reference signals of clause 6.10.1.2
// (k = 6m + (v + N_ID^cell mod 6) mod 6, v = 0 at l = 0, 7 and 3 at l = 4, 11), PSS and SSS in
// subframes 0 and 5 (clause 6.11, the central 72 subcarriers of l = 5, 6) and the PBCH of
// subframe 0 (clause 6.6.4, the central 72 subcarriers of l = 7..10), and every RB outside
// the allocation bitmap. 10 MHz, normal CP: 14 symbols of 600 subcarriers, DC excluded.
//
// In:  the 8400 REs of a subframe {I, Q} (FFT_OUT), symbol-major, k = 0..599; tlast on the
//      last. cell_id_i, cfi_i, subframe_i, rb_mask_i are taken with the first RE.
// Out: the PDSCH REs unchanged, tlast on the last PDSCH RE of the subframe.
module resource_demapper (
    input  logic                                     clk,
    input  logic                                     rst_n,
    input  logic [lte_baseband_pkg::N_CELL_ID_W-1:0] cell_id_i,
    input  logic [                              1:0] cfi_i,
    input  logic [  lte_baseband_pkg::SUBFRAME_W-1:0] subframe_i,
    input  logic [ lte_baseband_pkg::N_RB_DL_MAX-1:0] rb_mask_i,
    input  logic [ lte_baseband_pkg::FFT_TDATA_W-1:0] s_axis_tdata_i,
    input  logic                                     s_axis_tvalid_i,
    output logic                                     s_axis_tready_o,
    input  logic                                     s_axis_tlast_i,
    output logic [ lte_baseband_pkg::FFT_TDATA_W-1:0] m_axis_tdata_o,
    output logic                                     m_axis_tvalid_o,
    input  logic                                     m_axis_tready_i,
    output logic                                     m_axis_tlast_o
);
  import lte_baseband_pkg::*;

  localparam int N_SC = N_RB_DL_MAX * N_SC_RB;  // 600
  localparam logic [9:0] SYNC_K_FIRST = 10'(N_SC / 2 - 36);  // central 72 subcarriers
  localparam logic [9:0] SYNC_K_LAST = 10'(N_SC / 2 + 35);
  localparam logic [9:0] K_LAST = 10'(N_SC - 1);

  // Position of the next input RE and the configuration of the subframe in flight.
  logic                    first_r;
  logic [             3:0] sym_r;
  logic [             9:0] k_r;
  logic [             5:0] rb_r;
  logic [             3:0] sc_in_rb_r;
  logic [             2:0] k_mod6_r;
  logic [             2:0] vshift_r;
  logic [             1:0] cfi_r;
  logic [  SUBFRAME_W-1:0] subframe_r;
  logic [ N_RB_DL_MAX-1:0] rb_mask_r;
  logic [             5:0] last_rb_r;

  // Configuration as seen by the current beat (the ports on the first RE of a subframe).
  logic [             2:0] vshift_w;
  logic [             1:0] cfi_w;
  logic [  SUBFRAME_W-1:0] subframe_w;
  logic [ N_RB_DL_MAX-1:0] rb_mask_w;
  logic [             5:0] last_rb_w;
  logic [             5:0] top_rb_w;

  logic                    crs_w;
  logic                    central_w;
  logic                    reserved_w;
  logic                    pdsch_w;
  logic                    last_pdsch_w;
  logic                    in_fire_w;

  logic [FFT_TDATA_W-1:0]  out_data_r;
  logic                    out_valid_r;
  logic                    out_last_r;

  // Highest allocated RB: its last subcarrier in l = 13 is the subframe's last PDSCH RE.
  always_comb begin
    top_rb_w = '0;
    for (int rb = 0; rb < N_RB_DL_MAX; rb++) begin
      if (rb_mask_i[rb]) top_rb_w = rb[5:0];
    end
  end

  assign vshift_w = first_r ? 3'(cell_id_i % 9'd6) : vshift_r;
  assign cfi_w = first_r ? cfi_i : cfi_r;
  assign subframe_w = first_r ? subframe_i : subframe_r;
  assign rb_mask_w = first_r ? rb_mask_i : rb_mask_r;
  assign last_rb_w = first_r ? top_rb_w : last_rb_r;

  always_comb begin
    logic [2:0] crs_k;
    crs_k = '0;
    crs_w = 1'b0;
    if (sym_r == 4'd0 || sym_r == 4'd7) begin
      crs_k = vshift_w;
      crs_w = 1'b1;
    end else if (sym_r == 4'd4 || sym_r == 4'd11) begin
      crs_k = (vshift_w >= 3'd3) ? vshift_w - 3'd3 : vshift_w + 3'd3;
      crs_w = 1'b1;
    end
    crs_w = crs_w && (k_mod6_r == crs_k);
    central_w = (k_r >= SYNC_K_FIRST) && (k_r <= SYNC_K_LAST);
    reserved_w = central_w && (
        ((subframe_w == 4'd0 || subframe_w == 4'd5) && (sym_r == 4'd5 || sym_r == 4'd6)) ||
        ((subframe_w == 4'd0) && (sym_r >= 4'd7) && (sym_r <= 4'd10)));
    pdsch_w = ({2'b0, sym_r} >= {4'b0, cfi_w}) && rb_mask_w[rb_r] && !crs_w && !reserved_w;
    last_pdsch_w = (sym_r == 4'd13) && (rb_r == last_rb_w) && (sc_in_rb_r == 4'd11);
  end

  // Non-PDSCH REs are consumed without waiting for the output.
  assign s_axis_tready_o = !pdsch_w || !out_valid_r || m_axis_tready_i;
  assign in_fire_w = s_axis_tvalid_i && s_axis_tready_o;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      first_r <= 1'b1;
      sym_r <= '0;
      k_r <= '0;
      rb_r <= '0;
      sc_in_rb_r <= '0;
      k_mod6_r <= '0;
      vshift_r <= '0;
      cfi_r <= '0;
      subframe_r <= '0;
      rb_mask_r <= '0;
      last_rb_r <= '0;
      out_data_r <= '0;
      out_valid_r <= 1'b0;
      out_last_r <= 1'b0;
    end else begin
      if (out_valid_r && m_axis_tready_i) out_valid_r <= 1'b0;
      if (in_fire_w) begin
        vshift_r <= vshift_w;
        cfi_r <= cfi_w;
        subframe_r <= subframe_w;
        rb_mask_r <= rb_mask_w;
        last_rb_r <= last_rb_w;
        first_r <= s_axis_tlast_i;
        if (pdsch_w) begin
          out_data_r <= s_axis_tdata_i;
          out_valid_r <= 1'b1;
          out_last_r <= last_pdsch_w;
        end
        // Advance (l, k) with k's RB, subcarrier-in-RB and k mod 6 counters.
        if (s_axis_tlast_i || (k_r == K_LAST)) begin
          k_r <= '0;
          rb_r <= '0;
          sc_in_rb_r <= '0;
          k_mod6_r <= '0;
          sym_r <= s_axis_tlast_i ? 4'd0 : sym_r + 4'd1;
        end else begin
          k_r <= k_r + 10'd1;
          k_mod6_r <= (k_mod6_r == 3'd5) ? 3'd0 : k_mod6_r + 3'd1;
          if (sc_in_rb_r == 4'd11) begin
            sc_in_rb_r <= '0;
            rb_r <= rb_r + 6'd1;
          end else begin
            sc_in_rb_r <= sc_in_rb_r + 4'd1;
          end
        end
      end
    end
  end

  assign m_axis_tdata_o = out_data_r;
  assign m_axis_tvalid_o = out_valid_r;
  assign m_axis_tlast_o = out_last_r;

endmodule

`default_nettype wire
