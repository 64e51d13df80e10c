`default_nettype none
// One bank of the ofdm_demodulator's in-place FFT buffers (the 1024-point DFT that undoes the
// OFDM modulation of TS 36.211 6.12): a simple dual-port RAM, one write and one registered read
// per cycle. A read of the address written in the same cycle returns the old word.
module ofdm_bank_ram #(
    parameter int DEPTH_LOG2 = 9,
    parameter int WIDTH = 44
) (
    input  logic                  clk,
    input  logic                  rst_n,
    input  logic                  we_i,
    input  logic [DEPTH_LOG2-1:0] waddr_i,
    input  logic [     WIDTH-1:0] wdata_i,
    input  logic [DEPTH_LOG2-1:0] raddr_i,
    output logic [     WIDTH-1:0] rdata_o
);

  // Large memory: no reset (every word is written before it is read, see ofdm_demodulator).
  logic [WIDTH-1:0] mem_r[1 << DEPTH_LOG2];

  always_ff @(posedge clk) begin
    if (we_i) mem_r[waddr_i] <= wdata_i;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      rdata_o <= '0;
    end else begin
      rdata_o <= mem_r[raddr_i];
    end
  end

endmodule

`default_nettype wire
