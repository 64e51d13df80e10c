"""A small design and a scripted team for the host's end-to-end tests: real servers, real
simulators; only the LLM is scripted."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

TB_MARKER = "HIDDEN_TB_MARKER_5c1e"
VEC_MARKER = "HIDDEN_VECTORS_MARKER_9d2b"
# What no generating role (RTL Engineer, Reflection/Debug, Verification Engineer) may see.
HIDDEN_SECRETS = (
    TB_MARKER,
    VEC_MARKER,
    "verif/tb_",
    "gray_vectors",
    "model_r",  # the hidden testbench's reference model
    "$readmemh",
)
GENERATING = frozenset({"rtl_engineer", "reflection_debug", "verification_engineer"})


def hidden_leaks(records: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(role, correlation id, secret) for every generating-role prompt that shows a hidden
    asset; `records` are exchanges as dicts."""
    leaks = []
    for record in records:
        if record["role"] not in GENERATING:
            continue
        text = json.dumps(record["messages"])
        leaks += [
            (record["role"], record["correlation_id"], s) for s in HIDDEN_SECRETS if s in text
        ]
    return leaks


def counter_code(module: str, bug: str = "") -> str:
    """A counter; `bug` is an expression replacing the increment (a functional bug)."""
    step = bug or "count_r + 1'b1"
    return f"""`default_nettype none
// Up-counter with enable and synchronous active-low reset.
module {module} #(
    parameter int WIDTH = 8
) (
    input  logic             clk,
    input  logic             rst_n,
    input  logic             en_i,
    output logic [WIDTH-1:0] count_o
);
  logic [WIDTH-1:0] count_r;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      count_r <= '0;
    end else if (en_i) begin
      count_r <= {step};
    end
  end

  assign count_o = count_r;
endmodule
`default_nettype wire
"""


def counter_tb(module: str) -> str:
    return f"""`default_nettype none
// {TB_MARKER}: self-checking testbench with a reference model.
module tb_{module};
  localparam int WIDTH = 8;
  logic clk = 1'b0;
  logic rst_n = 1'b0;
  logic en = 1'b0;
  logic [WIDTH-1:0] count;
  logic [WIDTH-1:0] model_r = '0;
  int cycle = 0;
  int errors = 0;
  int samples = 0;

  {module} #(.WIDTH(WIDTH)) dut (.clk(clk), .rst_n(rst_n), .en_i(en), .count_o(count));

  always #5 clk = ~clk;

  always @(posedge clk) begin
    cycle <= cycle + 1;
    if (!rst_n) model_r <= '0;
    else if (en) model_r <= model_r + 1'b1;
  end

  always @(negedge clk) begin
    if (rst_n) begin
      samples = samples + 1;
      if (count !== model_r) begin
        errors = errors + 1;
        $display("MISMATCH time=%0t cycle=%0d signal=count_o expected=%h actual=%h",
                 $time, cycle, model_r, count);
      end
    end
    en <= (cycle % 3) != 0;
    if (cycle == 3) rst_n <= 1'b1;
    if (cycle >= 80) begin
      $display("Mismatches: %0d in %0d samples", errors, samples);
      $finish;
    end
  end
endmodule
`default_nettype wire
"""


TICK_IFACE = (
    "module tick (input logic clk, input logic rst_n, input logic en_i, "
    "output logic [7:0] count_o, output logic wrap_o);"
)
TICK_SPEC = (
    "Counts enabled cycles with the counter block (instantiate it as u_counter) and gives "
    "wrap_o, high while the count is all ones; wrap_o comes from the counter."
)


def tick_code(wrap: str = "") -> str:
    """The tick block over the counter; `wrap` is a local stand-in for the counter's wrap_o
    (wrong), else the counter's own wrap_o is used."""
    port = "" if wrap else ", .wrap_o(wrap_o)"
    local = f"  assign wrap_o = {wrap};\n" if wrap else ""
    return f"""`default_nettype none
// Enabled-cycle counter with a wrap flag, over the counter block.
module tick (
    input  logic       clk,
    input  logic       rst_n,
    input  logic       en_i,
    output logic [7:0] count_o,
    output logic       wrap_o
);
  counter #(.WIDTH(8)) u_counter (.clk(clk), .rst_n(rst_n), .en_i(en_i), .count_o(count_o){port});
{local}endmodule
`default_nettype wire
"""


def tick_tb() -> str:
    return f"""`default_nettype none
// {TB_MARKER}: the tick block against a reference model.
module tb_tick;
  logic clk = 1'b0;
  logic rst_n = 1'b0;
  logic en = 1'b0;
  logic [7:0] count;
  logic wrap;
  logic [7:0] model_r = '0;
  int cycle = 0;
  int errors = 0;
  int samples = 0;

  tick dut (.clk(clk), .rst_n(rst_n), .en_i(en), .count_o(count), .wrap_o(wrap));

  always #5 clk = ~clk;

  always @(posedge clk) begin
    cycle <= cycle + 1;
    if (!rst_n) model_r <= '0;
    else if (en) model_r <= model_r + 1'b1;
  end

  always @(negedge clk) begin
    if (rst_n) begin
      samples = samples + 1;
      if (count !== model_r) begin
        errors = errors + 1;
        $display("MISMATCH time=%0t cycle=%0d signal=count_o expected=%h actual=%h",
                 $time, cycle, model_r, count);
      end
      if (wrap !== (&model_r)) begin
        errors = errors + 1;
        $display("MISMATCH time=%0t cycle=%0d signal=wrap_o expected=%h actual=%h",
                 $time, cycle, &model_r, wrap);
      end
    end
    en <= (cycle % 3) != 0;
    if (cycle == 3) rst_n <= 1'b1;
    if (cycle >= 420) begin
      $display("Mismatches: %0d in %0d samples", errors, samples);
      $finish;
    end
  end
endmodule
`default_nettype wire
"""


def gray_code(variant: int) -> str:
    """Variant 0: correct; 1: a syntax error; 2: an undeclared identifier."""
    body = "assign gray_o = bin_i ^ (bin_i >> 1);"
    if variant == 1:
        body = "assign gray_o = bin_i ^ (bin_i >> 1)"  # missing semicolon
    if variant == 2:
        body = "assign gray_o = bin_i ^ (bin_shift_w >> 1);"
    return f"""`default_nettype none
// Binary to Gray code.
module gray (
    input  logic [7:0] bin_i,
    output logic [7:0] gray_o
);
  {body}
endmodule
`default_nettype wire
"""


GRAY_TB = f"""`default_nettype none
// {TB_MARKER}: golden vectors {{bin, gray}} from verif/gray_vectors.hex.
module tb_gray;
  logic [15:0] vectors [0:15];
  logic [7:0] bin;
  logic [7:0] gray_w;
  int errors = 0;

  gray dut (.bin_i(bin), .gray_o(gray_w));

  initial begin
    $readmemh("verif/gray_vectors.hex", vectors);
    for (int i = 0; i < 16; i++) begin
      bin = vectors[i][15:8];
      #1;
      if (gray_w !== vectors[i][7:0]) begin
        errors = errors + 1;
        $display("MISMATCH time=%0t cycle=%0d signal=gray_o expected=%h actual=%h",
                 $time, i, vectors[i][7:0], gray_w);
      end
    end
    $display("Mismatches: %0d in %0d samples", errors, 16);
    $finish;
  end
endmodule
`default_nettype wire
"""


def gray_vectors() -> str:
    lines = [f"// {VEC_MARKER}"]
    for value in (0, 1, 2, 3, 7, 8, 15, 16, 31, 64, 100, 127, 128, 200, 254, 255):
        lines.append(f"{value:02x}{value ^ (value >> 1):02x}")
    return "\n".join(lines) + "\n"


def smoke_counter_tb(module: str, wrong: bool = False) -> str:
    """The Verification Engineer's visible smoke testbench for a counter (its own checks,
    written from the spec); `wrong` expects two per enabled cycle."""
    step = "2'd2" if wrong else "1'b1"
    return f"""`default_nettype none
// Smoke testbench: reset, then count enabled cycles.
module tb_smoke_{module};
  logic clk = 1'b0;
  logic rst_n = 1'b0;
  logic en_i = 1'b0;
  logic [7:0] count_o;
  logic [7:0] expect_q = '0;
  int cycle = 0;
  int errors = 0;
  int samples = 0;

  {module} #(.WIDTH(8)) dut (.clk(clk), .rst_n(rst_n), .en_i(en_i), .count_o(count_o));

  always #5 clk = ~clk;

  always @(posedge clk) begin
    if (!rst_n) expect_q <= '0;
    else if (en_i) expect_q <= expect_q + {step};
  end

  always @(negedge clk) begin
    if (rst_n) begin
      samples = samples + 1;
      if (count_o !== expect_q) begin
        errors = errors + 1;
        $display("MISMATCH time=%0t cycle=%0d signal=count_o expected=%h actual=%h",
                 $time, cycle, expect_q, count_o);
      end
    end
    cycle = cycle + 1;
    rst_n = cycle > 2;
    en_i = (cycle % 2) == 0;
    if (cycle == 40) begin
      $display("Mismatches: %0d in %0d samples", errors, samples);
      $finish;
    end
  end
endmodule
`default_nettype wire
"""


def smoke_gray_tb(wrong: bool = False, broken: bool = False) -> str:
    """A smoke testbench over all 256 inputs; `wrong` shifts the wrong way, `broken` does not
    compile."""
    shift = "<<" if wrong else ">>"
    end = "end" if not broken else ""
    return f"""`default_nettype none
// Smoke testbench: every 8-bit input against the Gray formula.
module tb_smoke_gray;
  logic [7:0] bin_i;
  logic [7:0] gray_o;
  logic [7:0] want;
  logic [8:0] b;
  int errors = 0;
  int samples = 0;

  gray dut (.bin_i(bin_i), .gray_o(gray_o));

  initial begin
    for (b = 0; b < 256; b = b + 1) begin
      bin_i = b[7:0];
      want = b[7:0] ^ (b[7:0] {shift} 1);
      #1;
      samples = samples + 1;
      if (gray_o !== want) begin
        errors = errors + 1;
        $display("MISMATCH time=%0t cycle=%0d signal=gray_o expected=%h actual=%h",
                 $time, b, want, gray_o);
      end
    {end}
    $display("Mismatches: %0d in %0d samples", errors, samples);
    $finish;
  end
endmodule
`default_nettype wire
"""


def smoke_reply(code: str) -> dict[str, Any]:
    return {"structured": {"code": code, "notes": "smoke"}}


COUNTER_IFACE = (
    "module {m} #(parameter int WIDTH = 8) (input logic clk, input logic rst_n, "
    "input logic en_i, output logic [WIDTH-1:0] count_o);"
)


def block(
    name: str,
    spec: str,
    iface: str,
    deps: list[str] | None = None,
    vectors: list[str] | None = None,
) -> dict[str, Any]:
    return {
        "name": name,
        "top": name,
        "rtl_file": f"rtl/{name}.sv",
        "spec": spec,
        "interface": iface,
        "depends_on": deps or [],
        "verification": {
            "testbench": [f"verif/tb_{name}.sv"],
            "vectors": vectors or [],
            "top": f"tb_{name}",
        },
    }


def make_workspace(root: Path, blocks: list[str]) -> Path:
    """The workspace and design file; `blocks` picks from counter, gray, counter_fix, ticker,
    stuck, tick."""
    (root / "verif").mkdir(parents=True, exist_ok=True)
    entries = []
    counter_spec = "An 8-bit up-counter: counts enabled cycles, synchronous active-low reset."
    for name in blocks:
        if name == "tick":
            (root / "verif" / "tb_tick.sv").write_text(tick_tb())
            deps = ["counter"] if "counter" in blocks else []
            entries.append(block("tick", TICK_SPEC, TICK_IFACE, deps))
        elif name == "gray":
            (root / "verif" / "tb_gray.sv").write_text(GRAY_TB)
            (root / "verif" / "gray_vectors.hex").write_text(gray_vectors())
            deps = ["counter"] if "counter" in blocks else []
            entries.append(
                block(
                    "gray",
                    "Combinational binary-to-Gray converter: gray = bin xor (bin >> 1).",
                    "module gray (input logic [7:0] bin_i, output logic [7:0] gray_o);",
                    deps,
                    ["verif/gray_vectors.hex"],
                )
            )
        else:
            (root / "verif" / f"tb_{name}.sv").write_text(counter_tb(name))
            entries.append(block(name, counter_spec, COUNTER_IFACE.format(m=name)))
            if name == "counter":
                entries[-1]["synth"] = {"clock_period_ns": 10.0}
    design = {"name": "host-test", "workspace": ".", "blocks": entries}
    path = root / "design.yaml"
    path.write_text(yaml.safe_dump(design, sort_keys=False))
    return path


def code_reply(code: str, notes: str = "") -> dict[str, Any]:
    return {"structured": {"code": code, "notes": notes}}


REFLECTION = {
    "structured": {
        "hypotheses": [
            {
                "cause": "the increment is wrong on some cycles",
                "evidence": "count_o differs from the expected value at the first mismatch",
                "suspect_signal": "count_r",
            }
        ],
        "fix_plan": "make the enabled increment exactly one",
    }
}

ESCALATION = {
    "structured": {
        "summary": "The block kept failing simulation with a different wrong increment.",
        "suggested_action": "A human should review the increment logic.",
    }
}


def script_rules(
    blocks: list[str], delay_s: float = 0.0, smoke: bool = False
) -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = []

    def rule(match: list[str], reply: dict[str, Any], turn: int | None = None) -> None:
        item: dict[str, Any] = {"match": match, "reply": reply, "delay_s": delay_s}
        if turn is not None:
            item["turn"] = turn
        rules.append(item)

    if smoke:
        # The Verification Engineer's smoke testbenches come first: some block rules below
        # match any step of their block.
        for name in blocks:
            code = smoke_gray_tb() if name == "gray" else smoke_counter_tb(name)
            rule([f"Block: {name}\n", "Step: testbench"], smoke_reply(code))
    if "counter" in blocks:
        # First the RTL Engineer lints its draft through the verilator server, then answers.
        rule(
            ["Block: counter\n", "Step: write"],
            {
                "tool_calls": [
                    {"name": "check_draft", "arguments": {"code": counter_code("counter")}}
                ]
            },
            turn=0,
        )
        rule(["Block: counter\n", "Step: write"], code_reply(counter_code("counter"), "clean"))
    if "gray" in blocks:
        rule(["Block: gray\n", "Attempt: 1 of"], code_reply(gray_code(1)))
        rule(["Block: gray\n", "Attempt: 2 of"], code_reply(gray_code(2)))
        rule(["Block: gray\n", "Attempt: 3 of"], code_reply(gray_code(0)))
    if "counter_fix" in blocks:
        bug = "(count_r == WIDTH'(5)) ? count_r + 2'd2 : count_r + 1'b1"
        rule(["Block: counter_fix\n", "Step: write"], code_reply(counter_code("counter_fix", bug)))
        rule(["Block: counter_fix\n", "Step: reflect"], REFLECTION)
        rule(["Block: counter_fix\n", "Step: debug"], code_reply(counter_code("counter_fix")))
    if "ticker" in blocks:
        # Never converges: every attempt counts by a different wrong step.
        for attempt in range(1, 9):
            step = f"count_r + {attempt + 1}"
            for kind in ("write", "debug"):
                rule(
                    ["Block: ticker\n", f"Step: {kind}", f"Attempt: {attempt} of"],
                    code_reply(counter_code("ticker", step)),
                )
        rule(["Block: ticker\n", "Step: reflect"], REFLECTION)
        rule(["Block: ticker\n", "Step: escalate"], ESCALATION)
    if "stuck" in blocks:
        broken = counter_code("stuck").replace("count_r <= '0;", "count_r <= '0")
        rule(["Block: stuck\n", "Step: escalate"], ESCALATION)
        # The same wrong fix every time: the same diagnostic three times is stagnation.
        rule(["Block: stuck\n"], code_reply(broken))
    return rules


def write_config(
    root: Path, blocks: list[str], parallel: int = 2, delay_s: float = 0.0, smoke: bool = False
) -> Path:
    """The scripted team's config; `smoke` turns the Verification Engineer's smoke testbench
    on (the scenarios that do not test it keep their step lists short)."""
    script = root / "script.yaml"
    rules = script_rules(blocks, delay_s, smoke)
    script.write_text(yaml.safe_dump({"rules": rules}, sort_keys=False))
    model = {"provider": "scripted", "model": "scripted-large"}
    config = {
        "providers": {"scripted": {"kind": "scripted", "script": str(script)}},
        "roles": {
            "default": {"model": model, "max_tokens": 1024},
            "orchestrator": {"model": {"provider": "scripted", "model": "scripted-small"}},
        },
        "pricing": {
            "scripted-large": {"input_per_mtok": 3.0, "output_per_mtok": 15.0},
            "scripted-small": {"input_per_mtok": 0.5, "output_per_mtok": 1.5},
        },
        "limits": {
            "max_iterations": 8,
            "stagnation_repeats": 3,
            "parallel_blocks": parallel,
            "smoke_testbench": smoke,
        },
        "retry": {"attempts": 2, "base_delay_s": 0.01, "max_delay_s": 0.05},
    }
    path = root / "host.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def write_mcp_json(root: Path, servers: list[str]) -> Path:
    """The servers as this checkout's code (not an installed copy's): a test checks the
    sources it sits beside."""
    checkout = str(Path(__file__).resolve().parents[2])
    entries = {
        name: {
            "command": sys.executable,
            "args": ["-m", f"silicon_agent.servers.{name}.server"],
            "env": {"PYTHONPATH": checkout},
        }
        for name in servers
    }
    path = root / "mcp.json"
    path.write_text(json.dumps({"mcpServers": entries}, indent=1))
    return path
