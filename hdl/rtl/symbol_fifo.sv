`default_nettype none
// First-in first-out buffer of AXI-Stream beats in an inferable RAM (soft_buffer_ram: one write
// and one registered read per cycle). lte_baseband_top puts it between the equaliser and the
// PDSCH back end (TS 36.211 7.1 onwards): the channel estimator streams a subframe's estimates
// at about one RE per cycle, the back end takes a 64QAM symbol in 6 cycles, so without it the
// estimator (and behind it the OFDM demodulator's next subframe) waits for the back end.
// In/out: WIDTH-bit beats, the same beats out in order; full throughput (one in and one out
// per cycle). tready depends only on the fill level, never on tvalid or the output's tready.
module symbol_fifo #(
    parameter int DEPTH_LOG2 = 12,
    parameter int WIDTH = 49
) (
    input  logic             clk,
    input  logic             rst_n,
    input  logic [WIDTH-1:0] s_axis_tdata_i,
    input  logic             s_axis_tvalid_i,
    output logic             s_axis_tready_o,
    output logic [WIDTH-1:0] m_axis_tdata_o,
    output logic             m_axis_tvalid_o,
    input  logic             m_axis_tready_i
);

  localparam int DEPTH = 1 << DEPTH_LOG2;
  localparam logic [DEPTH_LOG2:0] FULL = (DEPTH_LOG2 + 1)'(DEPTH);

  logic [DEPTH_LOG2-1:0] wr_ptr_r;
  logic [DEPTH_LOG2-1:0] rd_ptr_r;
  logic [  DEPTH_LOG2:0] count_r;  // words in the RAM not yet read into the output register
  logic                  out_valid_r;  // the RAM's read register holds the head beat
  logic                  wr_w;
  logic                  rd_w;

  assign s_axis_tready_o = (count_r != FULL);
  assign wr_w = s_axis_tvalid_i && s_axis_tready_o;
  // A word is read only a cycle after it was written (count_r counts it from then on).
  assign rd_w = (count_r != '0) && (!out_valid_r || m_axis_tready_i);
  assign m_axis_tvalid_o = out_valid_r;

  soft_buffer_ram #(
      .DEPTH(DEPTH),
      .WIDTH(WIDTH)
  ) u_mem (
      .clk(clk),
      .rst_n(rst_n),
      .we_i(wr_w),
      .waddr_i(wr_ptr_r),
      .wdata_i(s_axis_tdata_i),
      .re_i(rd_w),
      .raddr_i(rd_ptr_r),
      .rdata_o(m_axis_tdata_o)
  );

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      wr_ptr_r <= '0;
      rd_ptr_r <= '0;
      count_r <= '0;
      out_valid_r <= 1'b0;
    end else begin
      if (wr_w) wr_ptr_r <= wr_ptr_r + 1'b1;
      if (rd_w) rd_ptr_r <= rd_ptr_r + 1'b1;
      count_r <= count_r + (DEPTH_LOG2 + 1)'(wr_w) - (DEPTH_LOG2 + 1)'(rd_w);
      if (rd_w) out_valid_r <= 1'b1;
      else if (m_axis_tready_i) out_valid_r <= 1'b0;
    end
  end

endmodule

`default_nettype wire
