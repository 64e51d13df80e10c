`default_nettype none
// One stream's HARQ soft buffers of the rate dematcher (the soft d stream of the inverse of
// TS 36.212 5.1.4.1, kept per HARQ process, TS 36.321 5.3.2.2), and the memory of the top's
// symbol_fifo: a simple dual-port RAM, one write and one registered read per cycle (the read
// word holds while re_i is low). A read of the address written in the same cycle returns the
// old word.
module soft_buffer_ram #(
    parameter int DEPTH = 1024,
    parameter int WIDTH = 8,
    parameter int ADDR_W = $clog2(DEPTH)
) (
    input  logic              clk,
    input  logic              rst_n,
    input  logic              we_i,
    input  logic [ADDR_W-1:0] waddr_i,
    input  logic [ WIDTH-1:0] wdata_i,
    input  logic              re_i,
    input  logic [ADDR_W-1:0] raddr_i,
    output logic [ WIDTH-1:0] rdata_o
);

  // Large memory: no reset (the rate dematcher clears a code block's words before new data; the
  // FIFO reads only words it wrote).
  logic [WIDTH-1:0] mem_r[DEPTH];

  always_ff @(posedge clk) begin
    if (we_i) mem_r[waddr_i] <= wdata_i;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      rdata_o <= '0;
    end else if (re_i) begin
      rdata_o <= mem_r[raddr_i];
    end
  end

endmodule

`default_nettype wire
