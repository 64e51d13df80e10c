`default_nettype none
// Random samples in with random gaps, random back-pressure out; the model is a queue of
// 3 * sample. The first wrong output beat is reported and the run stops.
module tb_membuf;
  logic clk = 1'b0;
  logic rst_n = 1'b0;
  logic [7:0] s_tdata = '0;
  logic s_tvalid = 1'b0;
  logic s_tready;
  logic [9:0] m_tdata;
  logic m_tvalid;
  logic m_tready = 1'b0;
  logic [9:0] model[$];
  int cycle = 0;
  int errors = 0;
  int samples = 0;

  membuf dut (
      .clk(clk), .rst_n(rst_n), .s_axis_tdata_i(s_tdata), .s_axis_tvalid_i(s_tvalid),
      .s_axis_tready_o(s_tready), .m_axis_tdata_o(m_tdata), .m_axis_tvalid_o(m_tvalid),
      .m_axis_tready_i(m_tready)
  );

  always #5 clk = ~clk;

  always @(posedge clk) begin
    cycle <= cycle + 1;
    if (rst_n && s_tvalid && s_tready) model.push_back(10'(s_tdata) * 10'd3);
    if (rst_n && m_tvalid && m_tready) begin
      samples = samples + 1;
      if (model.size() == 0 || m_tdata !== model[0]) begin
        errors = errors + 1;
        $display("MISMATCH time=%0t cycle=%0d signal=m_axis_tdata_o expected=%h actual=%h",
                 $time, cycle, model.size() ? model[0] : 10'h0, m_tdata);
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
      end
      model.delete(0);
    end
    if (cycle == 3) rst_n <= 1'b1;
    if (!s_tvalid || s_tready) begin
      s_tvalid <= ($urandom % 3) != 0;
      s_tdata <= 8'($urandom);
    end
    m_tready <= ($urandom % 4) != 0;
    if (cycle >= 400) begin
      $display("Mismatches: %0d in %0d samples", errors, samples);
      $finish;
    end
  end
endmodule
`default_nettype wire
