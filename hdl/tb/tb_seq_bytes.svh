// The output side shared by the multi-subframe testbenches (tb_pdsch_rx_seq, tb_lte_top_seq),
// included in the module body after the includer's declarations (MAX_SF, MAX_BYTES, dir,
// n_sf, bytes_total, cycle, errors, samples, ready_r, m_tdata, m_tuser, m_tvalid, m_tlast).
// Declares the subframe in flight and its counters, the expected bytes, byte counts and CRC
// verdicts (seq_tb_bytes.hex, seq_n_bytes.hex, seq_crc_ok.hex, read by TB_SEQ_READ), and
// TB_SEQ_BYTES, which checks each output byte (data, tlast, tuser = CRC-24A verdict on the
// last) and on a subframe's last byte (TB_SEQ_LAST) moves on to the next subframe: its
// configuration words are written again from word 0 and its input starts.
int sf = 0;  // the subframe in flight
int cfg_idx = 0;
int in_idx = 0;  // within the subframe
logic in_done = 1'b0;
int out_idx = 0;
int out_base = 0;
logic [7:0] exp_byte[MAX_BYTES];
logic [15:0] sf_bytes[MAX_SF];
logic sf_crc[MAX_SF];
logic [7:0] exp_now;
assign exp_now = exp_byte[(out_base+out_idx)%MAX_BYTES];

`define TB_SEQ_READ \
  begin \
    $readmemh({dir, "/seq_tb_bytes.hex"}, exp_byte, 0, bytes_total - 1); \
    $readmemh({dir, "/seq_n_bytes.hex"}, sf_bytes, 0, n_sf - 1); \
    $readmemh({dir, "/seq_crc_ok.hex"}, sf_crc, 0, n_sf - 1); \
  end

`define TB_SEQ_LAST (m_tvalid && ready_r && out_idx + 1 == int'(sf_bytes[sf%MAX_SF]))

`define TB_SEQ_BYTES \
  if (m_tvalid && ready_r) begin \
    samples = samples + 1; \
    `TB_MISMATCH_IF(sf >= n_sf || m_tdata !== exp_now, "m_axis_tdata_o", exp_now, m_tdata) \
    `TB_EXPECT("m_axis_tlast_o", out_idx == int'(sf_bytes[sf%MAX_SF]) - 1, m_tlast) \
    `TB_MISMATCH_IF(m_tlast && m_tuser !== sf_crc[sf%MAX_SF], "m_axis_tuser_o", \
                    sf_crc[sf%MAX_SF], m_tuser) \
    out_idx <= out_idx + 1; \
    if (`TB_SEQ_LAST) begin \
      out_idx <= 0; \
      out_base <= out_base + out_idx + 1; \
      in_idx <= 0; \
      in_done <= 1'b0; \
      cfg_idx <= 0; \
      sf <= sf + 1; \
      if (sf + 1 == n_sf) begin \
        $display("tb: seq_cycles=%0d", cycle); \
        `TB_FINISH \
      end \
    end \
  end
