`default_nettype none
// Rate dematcher for turbo-coded transport channels: the inverse of TS 36.212 clause 5.1.4.1
// (sub-block interleaving 5.1.4.1.1, bit collection and circular-buffer selection 5.1.4.1.2).
//
// The circular buffer w_k is walked from k0 = R * (2 * ceil(N_cb / (8 R)) * rv + 2) with the
// source address of every position generated on the fly (column permutation of Table 5.1.4-1;
// d(2) uses the shifted interleaver); <NULL> positions (dummy bits and filler bits) consume no
// LLR. Each received LLR is added, saturating to +-127, into the soft buffer at its d address,
// so repeated bits combine. With combine_i = 0 the buffer is cleared first (new transmission);
// with 1 it keeps the previous transmission's soft bits (HARQ combining, TS 36.321 5.3.2.2).
// N_PROC soft buffers of PROC_DEPTH words per stream, one per HARQ process (proc_i); code block
// r of a transport block sits at word off_i = sum of K_r' + 4 over r' < r of its process's
// buffer, so that every code block of a retransmitted transport block combines with its own
// first transmission. The soft buffers are three RAMs (soft_buffer_ram), one per stream d(0),
// d(1), d(2), as three SRAM banks would be: N_PROC x PROC_DEPTH x LLR_W bits each
// (the back end's: HARQ_SOFT_BITS of the package). A received LLR reads the word its position belongs to (registered read)
// and writes the sum back a cycle later; two successive LLRs never share a position (the walk
// revisits one only after N_cb positions), and the output waits a cycle for the last write.
// The clear and the output read one word of each per cycle.
//
// In:  E LLRs of one code block, tlast on the last; k_i, f_i, rv_i, ncb_i, combine_i, proc_i,
//      off_i are taken with the first LLR and must hold until it is accepted.
// Out: the soft d stream, {d2[k], d1[k], d0[k]} (3 LLRs, d0 in the low byte) per beat for
//      k = 0..K+3, tlast on the last of the K + 4 beats.
module rate_dematcher #(
    parameter int MAX_K = 6144,  // largest code block
    parameter int N_PROC = 1,  // HARQ processes (soft buffers), 1..8
    // Words per stream of one process's buffer: every code block of its transport block.
    parameter int PROC_DEPTH = lte_baseband_pkg::CB_MAX * (MAX_K + 4)
) (
    input  logic                                 clk,
    input  logic                                 rst_n,
    input  logic [                         12:0] k_i,
    input  logic [                          5:0] f_i,
    input  logic [                          1:0] rv_i,
    input  logic [                         14:0] ncb_i,
    input  logic                                 combine_i,
    input  logic [                          2:0] proc_i,
    input  logic [                         13:0] off_i,
    input  logic [  lte_baseband_pkg::LLR_W-1:0] s_axis_tdata_i,
    input  logic                                 s_axis_tvalid_i,
    output logic                                 s_axis_tready_o,
    input  logic                                 s_axis_tlast_i,
    output logic [3*lte_baseband_pkg::LLR_W-1:0] m_axis_tdata_o,
    output logic                                 m_axis_tvalid_o,
    input  logic                                 m_axis_tready_i,
    output logic                                 m_axis_tlast_o
);
  import lte_baseband_pkg::*;

  localparam int ADDR_W = 13;  // K + 4 < 2^13 for every K up to 6144
  localparam int MEM_DEPTH = N_PROC * PROC_DEPTH;  // words of a stream's soft-buffer RAM
  localparam int MEM_W = $clog2(MEM_DEPTH);  // address in a stream's soft-buffer RAM
  localparam logic [MEM_W-1:0] PROC_STRIDE = MEM_W'($unsigned(PROC_DEPTH));
  localparam logic [2:0] LAST_PROC = 3'($unsigned(N_PROC - 1));
  localparam logic signed [LLR_W:0] SUM_MAX = (LLR_W + 1)'(LLR_MAX);
  localparam logic signed [LLR_W:0] SUM_MIN = -SUM_MAX;

  typedef enum logic [2:0] {
    ST_IDLE  = 3'd0,
    ST_DIV   = 3'd1,
    ST_START = 3'd2,
    ST_CLEAR = 3'd3,
    ST_RUN   = 3'd4,
    ST_OUT   = 3'd5,
    ST_DRAIN = 3'd6
  } state_e;

  // Inter-column permutation pattern of TS 36.212 Table 5.1.4-1.
  function automatic logic [4:0] perm(input logic [4:0] col);
    perm = {col[0], col[1], col[2], col[3], col[4]};  // the pattern is the 5-bit reversal
  endfunction

  state_e             state_r;
  logic        [ 5:0] f_r;
  logic        [ 1:0] rv_r;
  logic        [14:0] ncb_r;
  logic        [ 7:0] rows_r;  // R_subblock = ceil((K + 4) / 32)
  logic        [12:0] kpi_r;  // K_Pi = 32 R
  logic        [ 4:0] nd_r;  // dummy bits N_D = K_Pi - (K + 4)
  logic        [12:0] d_len_r;  // K + 4
  logic        [14:0] div_rem_r;  // ncb - q * 8R while counting q = ceil(ncb / 8R)
  logic        [ 3:0] div_q_r;
  logic               combine_r;
  logic        [MEM_W-1:0] base_r;  // first address of the selected soft buffer
  logic        [ 6:0] col0_w;  // k0 / R

  // Circular-buffer position: j, section (0: v(0); 1: interleaved v(1)/v(2)), column, row, and
  // in section 1 the phase (0: d(1), 1: d(2)).
  logic        [14:0] j_r;
  logic               sect_r;
  logic        [ 4:0] col_r;
  logic        [ 7:0] row_r;
  logic               phase_r;

  logic        [13:0] idx_w;  // interleaver input index, y_idx = d_{idx - N_D}
  logic        [12:0] src_w;
  logic        [ 1:0] stream_w;
  logic               null_w;
  logic [ADDR_W-1:0] addr_w;

  logic [ADDR_W-1:0] clr_addr_r;
  logic [ADDR_W-1:0] rd_addr_r;

  // Soft buffers: one RAM per stream (cleared by ST_CLEAR before new data).
  logic [LLR_W-1:0] rdata_w[3];
  logic [2:0] we_w;
  logic [MEM_W-1:0] waddr_w;
  logic [LLR_W-1:0] wdata_w;
  logic re_w;
  logic [MEM_W-1:0] raddr_w;
  logic [LLR_W-1:0] old_w;  // the soft bit a received LLR combines with
  logic [MEM_W-1:0] mem_addr_w;
  logic [MEM_W-1:0] clr_mem_w;
  logic [MEM_W-1:0] rd_mem_w;
  logic [2:0] proc_w;
  // The accepted LLR whose soft bit is being read: its sum is written back the next cycle.
  logic wr_pend_r;
  logic [1:0] wr_stream_r;
  logic [MEM_W-1:0] wr_addr_r;
  logic [LLR_W-1:0] wr_llr_r;

  logic signed [LLR_W:0] sum_w;
  logic [LLR_W-1:0] sat_w;
  logic in_fire_w;
  logic out_free_w;
  logic out_valid_r;
  logic out_last_r;

  assign col0_w = {2'b0, div_q_r, 1'b0} * {5'd0, rv_r} + 7'd2;

  // Source of the current position.
  always_comb begin
    if (sect_r && phase_r) begin
      // d(2): pi(k) = (P(k / R) + 32 (k mod R) + 1) mod K_Pi, 5.1.4.1.1.
      idx_w = {9'd0, perm(col_r)} + {1'b0, row_r, 5'd0} + 14'd1;
      if (idx_w == {1'b0, kpi_r}) idx_w = '0;
      stream_w = 2'd2;
    end else begin
      idx_w = {1'b0, row_r, 5'd0} + {9'd0, perm(col_r)};
      stream_w = sect_r ? 2'd1 : 2'd0;
    end
    src_w = 13'(idx_w - {9'd0, nd_r});
    null_w = (idx_w < {9'd0, nd_r}) || ((stream_w != 2'd2) && (src_w < {7'd0, f_r}));
    addr_w = src_w;  // within the memory of stream_w
  end

  // A process number past N_PROC - 1 folds onto the last process.
  if (N_PROC >= 8) begin : gen_all_proc
    assign proc_w = proc_i;
  end else begin : gen_fold_proc
    assign proc_w = (proc_i > LAST_PROC) ? LAST_PROC : proc_i;
  end
  assign mem_addr_w = base_r + MEM_W'(addr_w);
  assign clr_mem_w = base_r + MEM_W'(clr_addr_r);
  assign rd_mem_w = base_r + MEM_W'(rd_addr_r);
  assign in_fire_w = s_axis_tvalid_i && s_axis_tready_o;
  assign s_axis_tready_o = (state_r == ST_RUN) && !null_w;
  assign old_w = rdata_w[wr_stream_r];
  assign sum_w = $signed({old_w[LLR_W-1], old_w}) + $signed({wr_llr_r[LLR_W-1], wr_llr_r});
  always_comb begin
    if (sum_w > SUM_MAX) sat_w = SUM_MAX[LLR_W-1:0];
    else if (sum_w < SUM_MIN) sat_w = SUM_MIN[LLR_W-1:0];
    else sat_w = sum_w[LLR_W-1:0];
  end
  assign out_free_w = !out_valid_r || m_axis_tready_i;

  // One write port: the clear, or the pending sum; one read port: the output, or the soft bit
  // of the accepted LLR.
  always_comb begin
    for (int s = 0; s < 3; s++) begin
      we_w[s] = (state_r == ST_CLEAR) || (wr_pend_r && (wr_stream_r == $unsigned(2'(s))));
    end
  end
  assign waddr_w = (state_r == ST_CLEAR) ? clr_mem_w : wr_addr_r;
  assign wdata_w = (state_r == ST_CLEAR) ? '0 : sat_w;
  assign re_w = (state_r == ST_OUT) ? out_free_w : in_fire_w;
  assign raddr_w = (state_r == ST_OUT) ? rd_mem_w : mem_addr_w;

  for (genvar s = 0; s < 3; s++) begin : gen_stream
    soft_buffer_ram #(
        .DEPTH(MEM_DEPTH),
        .WIDTH(LLR_W),
        .ADDR_W(MEM_W)
    ) u_ram (
        .clk(clk),
        .rst_n(rst_n),
        .we_i(we_w[s]),
        .waddr_i(waddr_w),
        .wdata_i(wdata_w),
        .re_i(re_w),
        .raddr_i(raddr_w),
        .rdata_o(rdata_w[s])
    );
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      wr_pend_r <= 1'b0;
      wr_stream_r <= '0;
      wr_addr_r <= '0;
      wr_llr_r <= '0;
    end else begin
      wr_pend_r <= in_fire_w;
      if (in_fire_w) begin
        wr_stream_r <= stream_w;
        wr_addr_r <= mem_addr_w;
        wr_llr_r <= s_axis_tdata_i;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      state_r <= ST_IDLE;
      f_r <= '0;
      rv_r <= '0;
      ncb_r <= '0;
      rows_r <= '0;
      kpi_r <= '0;
      nd_r <= '0;
      d_len_r <= '0;
      div_rem_r <= '0;
      div_q_r <= '0;
      combine_r <= 1'b0;
      base_r <= '0;
      j_r <= '0;
      sect_r <= 1'b0;
      col_r <= '0;
      row_r <= '0;
      phase_r <= 1'b0;
      clr_addr_r <= '0;
      rd_addr_r <= '0;
      out_valid_r <= 1'b0;
      out_last_r <= 1'b0;
    end else begin
      if (out_valid_r && m_axis_tready_i) out_valid_r <= 1'b0;
      case (state_r)
        ST_IDLE: begin
          // The RAMs' read words are the output: the last beat leaves before the next block.
          if (s_axis_tvalid_i && !out_valid_r) begin
            f_r <= f_i;
            rv_r <= rv_i;
            ncb_r <= ncb_i;
            d_len_r <= k_i + 13'd4;
            rows_r <= 8'((k_i + 13'd4 + 13'd31) >> 5);
            kpi_r <= ((k_i + 13'd4 + 13'd31) >> 5) << 5;
            div_rem_r <= ncb_i;
            div_q_r <= '0;
            combine_r <= combine_i;
            // {0, off_i}: a cast of off_i alone is a no-op at the default MEM_W = 14
            base_r <= MEM_W'(proc_w) * PROC_STRIDE + MEM_W'({1'b0, off_i});
            state_r <= ST_DIV;
          end
        end
        ST_DIV: begin
          nd_r <= 5'(kpi_r - d_len_r);
          // ceil(N_cb / 8R) by repeated subtraction: at most 12 steps.
          if (div_rem_r != '0) begin
            div_q_r <= div_q_r + 4'd1;
            if (div_rem_r > {4'd0, rows_r, 3'd0}) div_rem_r <= div_rem_r - {4'd0, rows_r, 3'd0};
            else div_rem_r <= '0;
          end else begin
            state_r <= ST_START;
          end
        end
        ST_START: begin
          // k0 = col0 * R: row 0 of column col0 in section 0, or in the interleaved section
          // the pair (col0 - 32) * R / 2 with the phase of its parity.
          j_r <= {8'd0, col0_w} * {7'd0, rows_r};
          if (col0_w < 7'd32) begin
            sect_r <= 1'b0;
            col_r <= col0_w[4:0];
            row_r <= '0;
            phase_r <= 1'b0;
          end else begin
            sect_r <= 1'b1;
            col_r <= 5'((col0_w - 7'd32) >> 1);
            row_r <= col0_w[0] ? (rows_r >> 1) : 8'd0;
            phase_r <= col0_w[0] & rows_r[0];
          end
          state_r <= combine_r ? ST_RUN : ST_CLEAR;
          clr_addr_r <= '0;
        end
        ST_CLEAR: begin
          clr_addr_r <= clr_addr_r + 1'b1;
          if (clr_addr_r == d_len_r - 1'b1) state_r <= ST_RUN;
        end
        ST_RUN: begin
          if (null_w || in_fire_w) begin
            // Next circular-buffer position, wrapping at N_cb.
            if (j_r == ncb_r - 15'd1) begin
              j_r <= '0;
              sect_r <= 1'b0;
              col_r <= '0;
              row_r <= '0;
              phase_r <= 1'b0;
            end else begin
              j_r <= j_r + 15'd1;
              if (sect_r && !phase_r) begin
                phase_r <= 1'b1;
              end else begin
                phase_r <= 1'b0;
                if (row_r == rows_r - 8'd1) begin
                  row_r <= '0;
                  col_r <= col_r + 5'd1;
                  if (col_r == 5'd31) sect_r <= 1'b1;
                end else begin
                  row_r <= row_r + 8'd1;
                end
              end
            end
          end
          if (in_fire_w && s_axis_tlast_i) begin
            rd_addr_r <= '0;
            state_r <= ST_DRAIN;
          end
        end
        ST_DRAIN: state_r <= ST_OUT;  // the last LLR's sum is written
        ST_OUT: begin
          if (out_free_w) begin
            out_valid_r <= 1'b1;
            out_last_r <= (rd_addr_r == d_len_r - 1'b1);
            rd_addr_r <= rd_addr_r + 1'b1;
            if (rd_addr_r == d_len_r - 1'b1) state_r <= ST_IDLE;
          end
        end
        default: state_r <= ST_IDLE;
      endcase
    end
  end

  assign m_axis_tdata_o = {rdata_w[2], rdata_w[1], rdata_w[0]};
  assign m_axis_tvalid_o = out_valid_r;
  assign m_axis_tlast_o = out_last_r;

endmodule

`default_nettype wire
