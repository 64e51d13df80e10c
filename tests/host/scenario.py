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
    stuck."""
    (root / "verif").mkdir(parents=True, exist_ok=True)
    entries = []
    counter_spec = "An 8-bit up-counter: counts enabled cycles, synchronous active-low reset."
    for name in blocks:
        if name == "gray":
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


def script_rules(blocks: list[str], delay_s: float = 0.0) -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = []

    def rule(match: list[str], reply: dict[str, Any], turn: int | None = None) -> None:
        item: dict[str, Any] = {"match": match, "reply": reply, "delay_s": delay_s}
        if turn is not None:
            item["turn"] = turn
        rules.append(item)

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


def write_config(root: Path, blocks: list[str], parallel: int = 2, delay_s: float = 0.0) -> Path:
    script = root / "script.yaml"
    script.write_text(yaml.safe_dump({"rules": script_rules(blocks, delay_s)}, sort_keys=False))
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
        "limits": {"max_iterations": 8, "stagnation_repeats": 3, "parallel_blocks": parallel},
        "retry": {"attempts": 2, "base_delay_s": 0.01, "max_delay_s": 0.05},
    }
    path = root / "host.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def write_mcp_json(root: Path, servers: list[str]) -> Path:
    entries = {
        name: {"command": sys.executable, "args": ["-m", f"servers.{name}.server"], "env": {}}
        for name in servers
    }
    path = root / "mcp.json"
    path.write_text(json.dumps({"mcpServers": entries}, indent=1))
    return path
