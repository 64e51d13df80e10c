"""Scripted planning teams for the planning tests: the Specification Helper, the Planner,
the Verification Engineer, the RTL Engineer and the Integration engineer. Only the LLM is
scripted; the testbenches they hand over run on the real simulators."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from tests.host.scenario import write_mcp_json  # noqa: F401 - one writer for both suites

COUNTER_PROMPT = "a 4-bit synchronous up-counter with enable and an active-high asynchronous reset"

COUNTER_PORTS = [
    {"name": "clk", "direction": "input", "width": 1, "description": "clock"},
    {"name": "rst", "direction": "input", "width": 1, "description": "reset"},
    {"name": "en", "direction": "input", "width": 1, "description": "count enable"},
    {"name": "count", "direction": "output", "width": 4, "description": "count value"},
]

COUNTER_SPEC: dict[str, Any] = {
    "L1": {
        "summary": "4-bit up-counter with enable and asynchronous active-high reset",
        "behavior": [
            "count increments by one on each rising clk edge while en is high",
            "count holds its value while en is low",
            "count wraps from 1111 to 0000",
            "rst high clears count to 0000 at once, without waiting for a clock edge",
        ],
    },
    "L2": {
        "module": "counter4",
        "ports": COUNTER_PORTS,
        "clock": "clk",
        "reset": {"name": "rst", "active": "high", "kind": "asynchronous", "value": "4'h0"},
        "protocols": [],
        "timing": "count changes one clock edge after en is sampled high",
    },
    "L3": {
        "scenarios": [
            "reset then count with en toggling",
            "wrap from 1111 to 0000",
            "reset asserted between clock edges",
        ],
        "oracle": "a cycle-accurate reference model in the testbench",
        "coverage_goals": ["every count value", "wrap", "asynchronous reset mid-cycle"],
    },
    "L4": {"approach": "one 4-bit register and an incrementer", "submodules": []},
    "L5": {"clock_period_ns": 10.0, "area": "minimal", "power": "no target"},
}


def counter_round1() -> dict[str, Any]:
    """What the prompt says: the reset value, wrap/saturate and port names are open."""
    spec = copy.deepcopy(COUNTER_SPEC)
    spec["L1"]["behavior"] = spec["L1"]["behavior"][:2]
    del spec["L2"]["reset"]["value"]
    spec["L2"]["ports"] = []
    del spec["L5"]["clock_period_ns"]
    return spec


COUNTER_QUESTIONS = [
    {"id": "overflow", "text": "At 1111, does the count wrap to 0000 or saturate at 1111?"},
    {"id": "reset_value", "text": "What value does the count take on reset?"},
    {"id": "ports", "text": "What are the port names?", "why": "the interface is frozen"},
    {"id": "clock", "text": "What clock period must it meet?"},
]

COUNTER_ANSWERS = {
    "overflow": "wrap to 0000",
    "reset_value": "0000",
    "ports": "clk, rst, en, count[3:0]",
    "clock": "10 ns",
}

TB_COUNTER4 = """`default_nettype none
// Self-checking testbench of counter4: reference model, wrap, asynchronous reset.
module tb_counter4;
  logic clk = 1'b0;
  logic rst = 1'b1;
  logic en = 1'b0;
  logic [3:0] count;
  logic [3:0] model_r = 4'h0;
  int cycle = 0;
  int errors = 0;
  int samples = 0;

  counter4 dut (.clk(clk), .rst(rst), .en(en), .count(count));

  always #5 clk = ~clk;

  always @(posedge clk or posedge rst) begin
    if (rst) model_r <= 4'h0;
    else if (en) model_r <= model_r + 4'h1;
  end

  always @(posedge clk) cycle <= cycle + 1;

  always @(negedge clk) begin
    samples = samples + 1;
    if (count !== model_r) begin
      errors = errors + 1;
      $display("MISMATCH time=%0t cycle=%0d signal=count expected=%h actual=%h",
               $time, cycle, model_r, count);
    end
    en <= (cycle % 4) != 3;
    if (cycle == 2) rst <= 1'b0;
    if (cycle >= 60) begin
      $display("Mismatches: %0d in %0d samples", errors, samples);
      $finish;
    end
  end

  // Reset between two clock edges: an asynchronous reset clears the count at once.
  initial begin
    #302 rst = 1'b1;
    #1;
    samples = samples + 1;
    if (count !== 4'h0) begin
      errors = errors + 1;
      $display("MISMATCH time=%0t cycle=%0d signal=count expected=%h actual=%h",
               $time, cycle, 4'h0, count);
    end
    #1 rst = 1'b0;
  end
endmodule
`default_nettype wire
"""


def counter4_code(reset: str = "posedge clk or posedge rst", step: str = "count_r + 4'h1") -> str:
    return f"""`default_nettype none
// 4-bit up-counter, enable, asynchronous active-high reset, wraps at 1111.
module counter4 (
    input  logic       clk,
    input  logic       rst,
    input  logic       en,
    output logic [3:0] count
);
  logic [3:0] count_r;

  always_ff @({reset}) begin
    if (rst) begin
      count_r <= 4'h0;
    end else if (en) begin
      count_r <= {step};
    end
  end

  assign count = count_r;
endmodule
`default_nettype wire
"""


def rule(match: list[str], reply: dict[str, Any]) -> dict[str, Any]:
    return {"match": match, "reply": reply}


def structured(body: dict[str, Any]) -> dict[str, Any]:
    return {"structured": body}


def counter_rules(ask_during_run: bool = True) -> list[dict[str, Any]]:
    round2 = copy.deepcopy(COUNTER_SPEC)
    del round2["L5"]["area"]  # a premature "done": the host must refuse to freeze
    rules = [
        rule(
            ["Step: clarify\nRound: 1\n"],
            structured({"questions": COUNTER_QUESTIONS, "spec": counter_round1()}),
        ),
        rule(
            ["Step: clarify\nRound: 2\n", "-> wrap to 0000"],
            structured({"questions": [], "spec": round2}),
        ),
        rule(
            ["Step: clarify\nRound: 3\n", "L5.area (Field required)"],
            structured({"questions": [], "spec": COUNTER_SPEC}),
        ),
        rule(["Step: decompose\nNode: counter4\n"], structured({"leaf": True})),
        rule(["Step: testbench\nNode: counter4\n"], structured({"code": TB_COUNTER4})),
        rule(
            ["Block: counter4\n", "Answer from the engineer: asynchronous"],
            structured({"code": counter4_code(), "notes": "async reset as answered"}),
        ),
    ]
    if ask_during_run:
        rules.append(
            rule(
                ["Block: counter4\n", "Step: write"],
                structured(
                    {
                        "question": "Must rst clear count immediately (asynchronous) or "
                        "at the next clock edge?"
                    }
                ),
            )
        )
    else:
        rules.append(
            rule(["Block: counter4\n", "Step: write"], structured({"code": counter4_code()}))
        )
    return rules


# --- a two-level design: sum_reg = a register of the sum of two inputs --------------------


def ports(*items: tuple[str, str, int]) -> list[dict[str, Any]]:
    return [{"name": n, "direction": d, "width": w} for n, d, w in items]


SUMREG_PORTS = ports(
    ("clk", "input", 1),
    ("rst", "input", 1),
    ("a", "input", 8),
    ("b", "input", 8),
    ("y", "output", 8),
)
SUMREG_SPEC: dict[str, Any] = {
    "L1": {
        "summary": "registered 8-bit sum of two inputs",
        "behavior": ["y takes (a + b) mod 256 at each rising clk edge", "rst clears y to 0"],
    },
    "L2": {
        "module": "sum_reg",
        "ports": SUMREG_PORTS,
        "clock": "clk",
        "reset": {"name": "rst", "active": "high", "kind": "synchronous", "value": "8'h00"},
        "protocols": [],
        "timing": "y is the sum of the inputs sampled at the previous rising edge",
    },
    "L3": {
        "scenarios": ["random operands", "carry out of bit 7 is dropped", "reset"],
        "oracle": "reference model (a + b) & 0xff registered",
        "coverage_goals": ["overflowing sums", "reset"],
    },
    "L4": {"approach": "an adder feeding a register", "submodules": ["adder8", "reg8"]},
    "L5": {"clock_period_ns": 10.0, "area": "minimal", "power": "no target"},
}

VERIFY = {
    "scenarios": ["directed and random values"],
    "oracle": "reference model in the testbench",
    "coverage_goals": ["all bits toggle"],
}


def sumreg_decomposition(sum_width: int = 8) -> dict[str, Any]:
    return {
        "leaf": False,
        "children": [
            {
                "name": "adder8",
                "purpose": "Combinational 8-bit adder: s_o = (a_i + b_i) mod 256.",
                "ports": ports(
                    ("a_i", "input", 8), ("b_i", "input", 8), ("s_o", "output", sum_width)
                ),
                "verification": VERIFY,
            },
            {
                "name": "reg8",
                "purpose": "8-bit register: q_o takes d_i at each rising clk edge; "
                "rst (synchronous, active high) clears it to 0.",
                "ports": ports(
                    ("clk", "input", 1),
                    ("rst", "input", 1),
                    ("d_i", "input", 8),
                    ("q_o", "output", 8),
                ),
                "verification": VERIFY,
            },
        ],
        "connections": [
            {"source": "a", "target": "adder8.a_i"},
            {"source": "b", "target": "adder8.b_i"},
            {"source": "adder8.s_o", "target": "reg8.d_i"},
            {"source": "clk", "target": "reg8.clk"},
            {"source": "rst", "target": "reg8.rst"},
            {"source": "reg8.q_o", "target": "y"},
        ],
    }


def tb_clocked(name: str, dut: str, ports_text: str, drive: str, model: str, out: str) -> str:
    return f"""`default_nettype none
// Self-checking testbench of {name}.
module tb_{name};
  logic clk = 1'b0;
  logic rst = 1'b1;
  logic [7:0] x = 8'h00;
  logic [7:0] z = 8'h00;
  logic [7:0] got;
  logic [7:0] model_r = 8'h00;
  int cycle = 0;
  int errors = 0;
  int samples = 0;

  {dut} dut ({ports_text});

  always #5 clk = ~clk;

  always @(posedge clk) begin
    cycle <= cycle + 1;
    if (rst) model_r <= 8'h00;
    else model_r <= {model};
  end

  always @(negedge clk) begin
    samples = samples + 1;
    if (got !== model_r) begin
      errors = errors + 1;
      $display("MISMATCH time=%0t cycle=%0d signal={out} expected=%h actual=%h",
               $time, cycle, model_r, got);
    end
    {drive}
    if (cycle == 2) rst <= 1'b0;
    if (cycle >= 40) begin
      $display("Mismatches: %0d in %0d samples", errors, samples);
      $finish;
    end
  end
endmodule
`default_nettype wire
"""


TB_REG8 = tb_clocked(
    "reg8",
    "reg8",
    ".clk(clk), .rst(rst), .d_i(x), .q_o(got)",
    "x <= x * 8'd37 + 8'd11;",
    "x",
    "q_o",
)
TB_SUMREG = tb_clocked(
    "sum_reg",
    "sum_reg",
    ".clk(clk), .rst(rst), .a(x), .b(z), .y(got)",
    "x <= x * 8'd37 + 8'd11; z <= z + 8'd97;",
    "x + z",
    "y",
)
TB_ADDER8 = """`default_nettype none
// Self-checking testbench of adder8: sums that overflow drop the carry.
module tb_adder8;
  logic [7:0] a = 8'h00;
  logic [7:0] b = 8'h00;
  logic [7:0] s;
  logic [7:0] expected;
  int errors = 0;
  int samples = 0;

  adder8 dut (.a_i(a), .b_i(b), .s_o(s));

  initial begin
    for (int i = 0; i < 64; i++) begin
      a = 8'(i * 41 + 7);
      b = 8'(i * 89 + 200);
      #1;
      expected = a + b;
      samples = samples + 1;
      if (s !== expected) begin
        errors = errors + 1;
        $display("MISMATCH time=%0t cycle=%0d signal=s_o expected=%h actual=%h",
                 $time, i, expected, s);
      end
    end
    $display("Mismatches: %0d in %0d samples", errors, samples);
    $finish;
  end
endmodule
`default_nettype wire
"""

ADDER8 = """`default_nettype none
module adder8 (
    input  logic [7:0] a_i,
    input  logic [7:0] b_i,
    output logic [7:0] s_o
);
  assign s_o = a_i + b_i;
endmodule
`default_nettype wire
"""

REG8 = """`default_nettype none
module reg8 (
    input  logic       clk,
    input  logic       rst,
    input  logic [7:0] d_i,
    output logic [7:0] q_o
);
  always_ff @(posedge clk) begin
    if (rst) begin
      q_o <= 8'h00;
    end else begin
      q_o <= d_i;
    end
  end
endmodule
`default_nettype wire
"""

SUM_REG = """`default_nettype none
// Structural parent: the adder feeds the register.
module sum_reg (
    input  logic       clk,
    input  logic       rst,
    input  logic [7:0] a,
    input  logic [7:0] b,
    output logic [7:0] y
);
  logic [7:0] sum_w;

  adder8 u_adder (.a_i(a), .b_i(b), .s_o(sum_w));
  reg8 u_reg (.clk(clk), .rst(rst), .d_i(sum_w), .q_o(y));
endmodule
`default_nettype wire
"""

SUM_REG_INLINE = SUM_REG.replace(
    "  adder8 u_adder (.a_i(a), .b_i(b), .s_o(sum_w));", "  assign sum_w = a + b;"
)


def sumreg_rules(sum_width: int = 8) -> list[dict[str, Any]]:
    return [
        rule(
            ["Step: clarify\nRound: 1\n"],
            structured(
                {
                    "questions": [{"id": "overflow", "text": "Is the carry out of bit 7 dropped?"}],
                    "spec": {k: v for k, v in SUMREG_SPEC.items() if k != "L1"},
                }
            ),
        ),
        rule(["Step: clarify\nRound: 2\n", "-> yes"], structured({"spec": SUMREG_SPEC})),
        rule(["Step: decompose\nNode: sum_reg\n"], structured(sumreg_decomposition(sum_width))),
        rule(["Step: decompose\nNode: adder8\n"], structured({"leaf": True})),
        rule(["Step: decompose\nNode: reg8\n"], structured({"leaf": True})),
        rule(["Step: testbench\nNode: sum_reg\n"], structured({"code": TB_SUMREG})),
        rule(["Step: testbench\nNode: adder8\n"], structured({"code": TB_ADDER8})),
        rule(["Step: testbench\nNode: reg8\n"], structured({"code": TB_REG8})),
        rule(["Block: adder8\n", "Answer from the engineer:"], structured({"code": ADDER8})),
        rule(
            ["Block: adder8\n", "Step: write"],
            structured({"question": "Should the sum saturate at 255 or wrap?"}),
        ),
        rule(["Block: reg8\n", "Step: write"], structured({"code": REG8})),
        # The first parent computes the sum itself: not structural, sent back.
        rule(["Block: sum_reg\n", "Attempt: 1 of"], structured({"code": SUM_REG_INLINE})),
        rule(["Block: sum_reg\n", "Attempt: 2 of"], structured({"code": SUM_REG})),
    ]


def write_config(root: Path, rules: list[dict[str, Any]]) -> Path:
    script = root / "script.yaml"
    script.write_text(yaml.safe_dump({"rules": rules}, sort_keys=False))
    config = {
        "providers": {"scripted": {"kind": "scripted", "script": str(script)}},
        "roles": {
            "default": {
                "model": {"provider": "scripted", "model": "scripted-large"},
                "max_tokens": 4096,
            }
        },
        # The planned testbenches are the verification here; no smoke testbench step.
        "limits": {
            "max_iterations": 4,
            "stagnation_repeats": 3,
            "parallel_blocks": 2,
            "smoke_testbench": False,
        },
        "retry": {"attempts": 1, "base_delay_s": 0.01, "max_delay_s": 0.05},
    }
    path = root / "host.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path
