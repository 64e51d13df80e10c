"""The 4-bit counter from prompt to a frozen, passing design through the `agent-host` CLI:
questions, answers, refusal to freeze, the frozen spec, the plan and its DAG picture,
approval, a run that pauses on a question, the answer, and the passing RTL. The LLM is
scripted; iverilog and Verilator run for real over MCP stdio."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from PIL import Image

from silicon_agent.host.cli import main
from silicon_agent.host.state import StateStore

from .scenario import (
    COUNTER_ANSWERS,
    COUNTER_PROMPT,
    counter4_code,
    counter_rules,
    write_config,
    write_mcp_json,
)


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("counter")
    write_config(root, counter_rules())
    answers = root / "answers.yaml"
    answers.write_text(yaml.safe_dump(COUNTER_ANSWERS))
    write_mcp_json(root, ["iverilog", "verilator"])
    out = root / "plan"
    code = main(
        [
            "plan",
            COUNTER_PROMPT,
            "--answers",
            str(answers),
            "--out",
            str(out),
            "--config",
            str(root / "host.yaml"),
        ]
    )
    assert code == 0
    return root


def run_args(root: Path, *rest: str) -> list[str]:
    return ["--runs-dir", str(root / "runs"), *rest]


def test_questions_answers_and_frozen_spec(planned: Path) -> None:
    out = planned / "plan"
    rounds = json.loads((out / "clarify.json").read_text())
    # Round 1: the questions that matter, answered from the file.
    assert [q["id"] for q in rounds[0]["questions"]] == [
        "overflow",
        "reset_value",
        "ports",
        "clock",
    ]
    assert rounds[0]["answers"] == COUNTER_ANSWERS
    # Round 2: the helper said "done" with L5.area open; the host refused to freeze.
    assert rounds[1]["questions"] == [] and any("L5.area" in f for f in rounds[1]["refused"])
    spec = json.loads((out / "spec.json").read_text())
    assert spec["prompt"] == COUNTER_PROMPT
    assert spec["L2"]["reset"] == {
        "name": "rst",
        "active": "high",
        "kind": "asynchronous",
        "value": "4'h0",
    }
    assert [p["name"] for p in spec["L2"]["ports"]] == ["clk", "rst", "en", "count"]
    assert "count wraps from 1111 to 0000" in spec["L1"]["behavior"]
    assert spec["L5"]["clock_period_ns"] == 10.0 and spec["L5"]["area"] == "minimal"
    # The helper saw the answers in round 2 and the open fields in round 3.
    calls = json.loads((out / "planning_calls.json").read_text())
    texts = ["\n".join(m["content"] for m in c["messages"]) for c in calls]
    assert "-> wrap to 0000" in texts[1] and "L5.area (Field required)" in texts[2]
    assert [c["role"] for c in calls] == [
        "spec_helper",
        "spec_helper",
        "spec_helper",
        "planner",
        "verification_engineer",
    ]


def test_plan_and_design_context(planned: Path) -> None:
    out = planned / "plan"
    plan = json.loads((out / "plan.json").read_text())
    assert [n["name"] for n in plan["nodes"]] == ["counter4"]
    assert plan["nodes"][0]["kind"] == "module"
    design = yaml.safe_load((out / "design.yaml").read_text())
    assert design["plan"] == "plan.json"
    block = design["blocks"][0]
    assert block["interface"] == (
        "module counter4 (input logic clk, input logic rst, input logic en, "
        "output logic [3:0] count);"
    )
    assert block["verification"] == {"testbench": ["verif/tb_counter4.sv"], "top": "tb_counter4"}
    assert "Reset: rst, active high, asynchronous; reset value 4'h0." in block["spec"]
    tb = (out / "verif/tb_counter4.sv").read_text()
    assert tb.count("Mismatches: ") == 1 and "$finish" in tb
    assert (out / "rtl/counter4.sv").read_text().startswith("// Stub: counter4")


def test_run_refuses_unapproved_then_approve_run_pause_answer(
    planned: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = planned / "plan"
    design = str(out / "design.yaml")
    common = ["--config", str(planned / "host.yaml"), "--mcp-config", str(planned / "mcp.json")]
    assert main(run_args(planned, "run", design, *common, "--run-id", "early")) == 2
    assert "is not approved" in capsys.readouterr().err

    assert main(["approve", str(out), "--yes", "--by", "tester"]) == 0
    shown = capsys.readouterr().out
    assert "counter4 [module] module counter4 (input logic clk" in shown
    assert "L2 clock=clk reset=rst active-high asynchronous value 4'h0" in shown
    assert "approved: " in shown
    with Image.open(out / "dag.png") as picture:
        assert picture.format == "PNG" and picture.width >= 300
        # Not a blank canvas: the box and its label are drawn.
        assert len(set(picture.convert("L").getdata())) > 10
    approval = json.loads((out / "approval.json").read_text())
    assert approval["approved_by"] == "tester"
    assert set(approval["files"]) == {
        "design.yaml",
        "plan.json",
        "spec.json",
        "verif/tb_counter4.sv",
    }

    # The RTL Engineer asks instead of guessing: the block pauses with its question.
    assert main(run_args(planned, "run", design, *common, "--run-id", "c4")) == 0
    printed = capsys.readouterr().out
    assert "PAUSED" in printed and "QUESTION: Must rst clear count immediately" in printed
    assert main(run_args(planned, "status", "c4")) == 0
    assert "QUESTION: Must rst clear count" in capsys.readouterr().out
    assert main(run_args(planned, "report", "c4")) == 0
    report = (planned / "runs/c4/report.html").read_text()
    assert "QUESTION: Must rst clear count immediately" in report

    assert main(run_args(planned, "answer", "c4", "asynchronous: clear at once")) == 0
    printed = capsys.readouterr().out
    assert "PASSED" in printed and "artifact=Frozen" in printed
    assert main(run_args(planned, "report", "c4")) == 0
    capsys.readouterr()
    report = (planned / "runs/c4/report.html").read_text()
    assert "<td>PASSED</td>" in report and "<td>Frozen</td></tr>" in report
    assert "QUESTION:" not in report

    store = StateStore(planned / "runs/c4/state.sqlite")
    try:
        steps = [r for _, r in store.steps("counter4")]
        state = store.blocks()["counter4"]
        meta = store.meta()
        calls = [c for _, c in store.tool_calls() if c["tool"] == "iverilog.run_testbench"]
        prompts = [
            "\n".join(m.content for m in x.messages)
            for _, x in store.exchanges()
            if x.role == "rtl_engineer"
        ]
    finally:
        store.close()
    assert [(r.kind, r.outcome) for r in steps] == [
        ("write", "question"),
        ("answer", "answered"),
        ("write", "submitted"),
        ("check", "clean"),
        ("simulate", "PASS"),
        ("synth", "passed"),
        ("freeze", "frozen"),
    ]
    artifacts = [r.detail.get("artifact") for r in steps if r.kind != "answer"]
    assert artifacts == ["Stub", "Draft", "Testing", "Passing", "Passing", "Frozen"]
    assert state.status == "PASSED" and state.artifact == "Frozen" and state.frozen_sha256
    assert meta["phase"] == "done"
    # The answer reached the RTL Engineer's next prompt.
    assert "Answer from the engineer: asynchronous: clear at once" in prompts[-1]
    verdict = json.loads(calls[-1]["result"])
    assert verdict["status"] == "PASS" and verdict["mismatch_count"] == 0
    assert verdict["samples"] >= 60
    assert (out / "rtl/counter4.sv").read_text() == counter4_code()


def test_run_refuses_an_edited_plan(planned: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = planned / "plan"
    if not (out / "approval.json").exists():
        assert main(["approve", str(out), "--yes"]) == 0
    tb = out / "verif/tb_counter4.sv"
    original = tb.read_text()
    tb.write_text(original.replace("cycle >= 60", "cycle >= 6"))
    try:
        common = ["--config", str(planned / "host.yaml"), "--mcp-config", str(planned / "mcp.json")]
        code = main(run_args(planned, "run", str(out / "design.yaml"), *common, "--run-id", "x"))
        err = capsys.readouterr().err
        assert code == 2
        assert "changed since it was approved (verif/tb_counter4.sv)" in err
    finally:
        tb.write_text(original)


def test_answers_file_missing_an_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(tmp_path, counter_rules())
    answers = tmp_path / "answers.yaml"
    answers.write_text(yaml.safe_dump({"overflow": "wrap"}))
    code = main(
        [
            "plan",
            COUNTER_PROMPT,
            "--answers",
            str(answers),
            "--out",
            str(tmp_path / "p"),
            "--config",
            str(tmp_path / "host.yaml"),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "has no answer for: reset_value: What value does the count take on reset?" in err
    assert not (tmp_path / "p/design.yaml").exists()
