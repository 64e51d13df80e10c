`default_nettype none
// A small stream buffer for the waveform server's tests: each input sample, scaled by three,
// is written into one of four banks of memory (a generate loop of bank_ram), read back in order
// into an output register and handed on under back-pressure.
module membuf (
    input  logic       clk,
    input  logic       rst_n,
    input  logic [7:0] s_axis_tdata_i,
    input  logic       s_axis_tvalid_i,
    output logic       s_axis_tready_o,
    output logic [9:0] m_axis_tdata_o,
    output logic       m_axis_tvalid_o,
    input  logic       m_axis_tready_i
);
  logic [3:0] wr_ptr_r;
  logic [3:0] rd_ptr_r;
  logic [4:0] count_r;
  logic [9:0] scaled_w;
  logic [3:0][9:0] rdata_w;
  logic push_w;
  logic pop_w;
  logic fetch_w;
  logic [9:0] out_r;
  logic out_valid_r;

  assign scaled_w = 10'(s_axis_tdata_i) * 10'd3;
  assign s_axis_tready_o = count_r < 5'd12;
  assign push_w = s_axis_tvalid_i && s_axis_tready_o;
  assign pop_w = out_valid_r && m_axis_tready_i;
  assign fetch_w = (count_r != 5'd0) && (!out_valid_r || pop_w);

  for (genvar g = 0; g < 4; g++) begin : gen_bank
    logic we_here_w;
    assign we_here_w = push_w && (wr_ptr_r[1:0] == 2'(g));
    bank_ram u_ram (
        .clk(clk),
        .we_i(we_here_w),
        .waddr_i(wr_ptr_r[3:2]),
        .wdata_i(scaled_w),
        .raddr_i(rd_ptr_r[3:2]),
        .rdata_o(rdata_w[g])
    );
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      wr_ptr_r <= '0;
      rd_ptr_r <= '0;
      count_r <= '0;
      out_r <= '0;
      out_valid_r <= 1'b0;
    end else begin
      if (push_w) wr_ptr_r <= wr_ptr_r + 4'd1;
      if (fetch_w) begin
        out_r <= rdata_w[rd_ptr_r[1:0]];
        out_valid_r <= 1'b1;
        rd_ptr_r <= rd_ptr_r + 4'd1;
      end else if (pop_w) begin
        out_valid_r <= 1'b0;
      end
      count_r <= count_r + 5'(push_w) - 5'(fetch_w);
    end
  end

  assign m_axis_tdata_o = out_r;
  assign m_axis_tvalid_o = out_valid_r;
endmodule

module bank_ram (
    input  logic       clk,
    input  logic       we_i,
    input  logic [1:0] waddr_i,
    input  logic [9:0] wdata_i,
    input  logic [1:0] raddr_i,
    output logic [9:0] rdata_o
);
  logic [9:0] mem_r[4];
  always_ff @(posedge clk) begin
    if (we_i) mem_r[waddr_i] <= wdata_i;
  end
  assign rdata_o = mem_r[raddr_i];
endmodule
`default_nettype wire
