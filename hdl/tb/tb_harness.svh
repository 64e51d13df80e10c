// The parts every block testbench shares: the verdict lines the suite's servers judge (README,
// "Testbench convention"), the release of a reset, the watchdog that turns a hang into a failed
// verdict, and the random AXI-Stream handshakes. Macros, not a package or module: each
// expected/actual value keeps its own width in the printed hex, and the counters stay the
// testbench's own variables. The including testbench declares `int cycle, errors, samples`,
// `int rst_cnt`, `logic rst_n`, and for TB_HANDSHAKE `s_tvalid`, `s_tready`, `gate_r` and
// `ready_r`. Each macro is a whole statement: use it without a trailing semicolon.
`ifndef TB_HARNESS_SVH
`define TB_HARNESS_SVH

// The tag before each verdict line: the run's secret, which the server passes as
// +sa_verdict=<key> and a design cannot read, so the server reads only these lines as the
// report (servers/core/sv/verdict.py). Empty when no server passed one.
function automatic string tb_verdict_tag();
  string key;
  if ($value$plusargs("sa_verdict=%s", key)) return {"[sa:", key, "] "};
  return "";
endfunction

// Counts down rst_cnt and releases rst_n when it reaches its last cycle.
`define TB_RESET_RELEASE \
  if (rst_cnt > 0) begin \
    rst_cnt <= rst_cnt - 1; \
    if (rst_cnt == 1) rst_n <= 1'b1; \
  end

// One MISMATCH line and one counted error when COND holds.
`define TB_MISMATCH_IF(COND, SIGNAL, EXPECTED, ACTUAL) \
  if (COND) begin \
    errors = errors + 1; \
    $display("%sMISMATCH time=%0t cycle=%0d signal=%s expected=%h actual=%h", tb_verdict_tag(), \
             $time, cycle, SIGNAL, EXPECTED, ACTUAL); \
  end

// A mismatch unless ACTUAL equals EXPECTED in every bit (X and Z included).
`define TB_EXPECT(SIGNAL, EXPECTED, ACTUAL) \
  `TB_MISMATCH_IF((ACTUAL) !== (EXPECTED), SIGNAL, EXPECTED, ACTUAL)

// The summary line, then the end of the simulation.
`define TB_FINISH \
  begin \
    $display("%sMismatches: %0d in %0d samples", tb_verdict_tag(), errors, samples); \
    $finish; \
  end

// Past LIMIT cycles the run ends as a mismatch of the beat count (EXPECTED beats, ACTUAL seen),
// so a design that stalls fails with a verdict instead of running into the tool's timeout.
`define TB_WATCHDOG(LIMIT, EXPECTED, ACTUAL) \
  if (cycle > (LIMIT)) begin \
    $display("%sMISMATCH time=%0t cycle=%0d signal=beats expected=%h actual=%h", \
             tb_verdict_tag(), $time, cycle, EXPECTED, ACTUAL); \
    $display("%sMismatches: %0d in %0d samples", tb_verdict_tag(), errors + 1, samples + 1); \
    $finish; \
  end

// Random input gaps (one cycle in five, changed only when no beat is pending, so a valid beat
// is never withdrawn) and output back-pressure (one cycle in three); none when FULL_RATE holds.
`define TB_HANDSHAKE(FULL_RATE) \
  begin \
    if (!s_tvalid || s_tready) gate_r <= (FULL_RATE) || (($urandom % 5) != 0); \
    ready_r <= (FULL_RATE) || (($urandom % 3) != 0); \
  end

`endif
