`default_nettype none
// Synchronous FIFO with AXI-Stream handshakes on both sides; DEPTH must be a power of two.
module fifo #(
    parameter int WIDTH = 8,
    parameter int DEPTH = 8
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
  localparam int AW = $clog2(DEPTH);

  logic [WIDTH-1:0] mem_r[DEPTH];
  logic [AW:0] wr_ptr_r;
  logic [AW:0] rd_ptr_r;
  logic full_w;
  logic empty_w;
  logic push_w;
  logic pop_w;

  assign full_w  = (wr_ptr_r[AW] != rd_ptr_r[AW]) && (wr_ptr_r[AW-1:0] == rd_ptr_r[AW-1:0]);
  assign empty_w = (wr_ptr_r == rd_ptr_r);
  assign s_axis_tready_o = !full_w;
  assign m_axis_tvalid_o = !empty_w;
  assign m_axis_tdata_o  = mem_r[rd_ptr_r[AW-1:0]];
  assign push_w = s_axis_tvalid_i && s_axis_tready_o;
  assign pop_w  = m_axis_tvalid_o && m_axis_tready_i;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      wr_ptr_r <= '0;
      rd_ptr_r <= '0;
    end else begin
      if (push_w) wr_ptr_r <= wr_ptr_r + 1'b1;
      if (pop_w) rd_ptr_r <= rd_ptr_r + 1'b1;
    end
  end

  always_ff @(posedge clk) begin
    if (push_w) mem_r[wr_ptr_r[AW-1:0]] <= s_axis_tdata_i;
  end
endmodule
`default_nettype wire
