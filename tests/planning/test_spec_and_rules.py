"""The specification levels and their freeze rule, the terminal answerer, the testbench
convention check, the testbench's power to reject wrong counters, and the rule that design
files may not print."""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path

import pytest
from mcp import Client

from silicon_agent.host.cli import main
from silicon_agent.host.planning.approval import approve
from silicon_agent.host.planning.helper import Question, terminal_answers
from silicon_agent.host.planning.plan import PlanInvalid
from silicon_agent.host.planning.planner import convention_problems
from silicon_agent.host.planning.session import plan_design
from silicon_agent.host.planning.spec import SpecNotFrozen, freeze, open_fields
from silicon_agent.host.run_setup import create_run
from silicon_agent.host.runs import execute_run
from silicon_agent.host.state import StateStore
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.server import build as build_iverilog
from silicon_agent.servers.verilator.server import build as build_verilator

from .scenario import (
    COUNTER_ANSWERS,
    COUNTER_PROMPT,
    COUNTER_SPEC,
    TB_COUNTER4,
    counter4_code,
    counter_rules,
    rule,
    structured,
    write_config,
    write_mcp_json,
)


def test_freeze_refuses_open_fields() -> None:
    draft = copy.deepcopy(COUNTER_SPEC)
    del draft["L2"]["reset"]["value"]
    draft["L3"]["scenarios"] = []
    draft.pop("L4")
    with pytest.raises(SpecNotFrozen) as caught:
        freeze(COUNTER_PROMPT, draft)
    assert caught.value.open_fields == [
        "L2.reset.value (Field required)",
        "L3.scenarios (List should have at least 1 item after validation, not 0)",
        "L4 (missing)",
    ]
    assert open_fields(COUNTER_SPEC) == []
    spec = freeze(COUNTER_PROMPT, COUNTER_SPEC)
    assert spec.L2.reset is not None and spec.L2.reset.kind == "asynchronous"


def test_terminal_answers_ask_each_question() -> None:
    asked: list[str] = []
    replies = iter(["wrap", "  0000  "])

    def ask(text: str) -> str:
        asked.append(text)
        return next(replies)

    answer = terminal_answers(ask)
    questions = [
        Question(id="overflow", text="Wrap or saturate?", why="decides the code"),
        Question(id="reset_value", text="Reset value?"),
    ]
    got = asyncio.run(answer(questions))
    assert got == {"overflow": "wrap", "reset_value": "0000"}
    assert asked[0] == "[overflow] Wrap or saturate?  (decides the code)\n> "


def test_testbench_convention_check() -> None:
    assert convention_problems(TB_COUNTER4) == []
    no_summary = TB_COUNTER4.replace("Mismatches: %0d in %0d samples", "done")
    assert "no the 'Mismatches: <n> in <m> samples' line" in convention_problems(no_summary)
    twice = TB_COUNTER4.replace(
        "$finish;", '$display("Mismatches: %0d in %0d samples", errors, samples);\n$finish;'
    )
    assert "exactly one 'Mismatches:' summary line is required" in convention_problems(twice)
    assert "no $finish" in convention_problems(TB_COUNTER4.replace("$finish", "$stop"))


@pytest.mark.anyio
async def test_counter_testbench_rejects_wrong_counters(tmp_path: Path) -> None:
    (tmp_path / "verif").mkdir()
    (tmp_path / "verif/tb_counter4.sv").write_text(TB_COUNTER4)
    variants = {
        "right": counter4_code(),
        "sync_reset": counter4_code(reset="posedge clk"),
        "saturating": counter4_code(step="(count_r == 4'hf) ? count_r : count_r + 4'h1"),
    }
    verdicts = {}
    async with Client(build_iverilog(Workspace.open(tmp_path))) as client:
        for name, code in variants.items():
            (tmp_path / f"{name}.sv").write_text(code)
            result = await client.call_tool(
                "run_testbench",
                {
                    "design": [f"{name}.sv"],
                    "testbench": ["verif/tb_counter4.sv"],
                    "top": "tb_counter4",
                },
            )
            verdicts[name] = result.structured_content
    assert verdicts["right"]["status"] == "PASS"
    assert verdicts["sync_reset"]["status"] == "SIM_FAIL"
    assert verdicts["saturating"]["status"] == "SIM_FAIL"
    assert verdicts["saturating"]["first_mismatch"]["signal"] == "count"


def test_testbench_that_does_not_fit_the_interface_is_rejected(tmp_path: Path) -> None:
    wrong = TB_COUNTER4.replace(".en(en)", ".enable(en)")
    rules = [r for r in counter_rules() if "Step: testbench\nNode: counter4\n" not in r["match"]]
    rules.append(rule(["Step: testbench\nNode: counter4\n"], structured({"code": wrong})))
    config = write_config(tmp_path, rules)
    answers = tmp_path / "answers.yaml"
    answers.write_text("\n".join(f"{k}: '{v}'" for k, v in COUNTER_ANSWERS.items()))
    out = tmp_path / "plan"
    with pytest.raises(PlanInvalid, match="testbench of counter4 does not build on its interface"):
        asyncio.run(plan_design(COUNTER_PROMPT, out, str(answers), str(config)))
    assert not (out / "design.yaml").exists()


def test_design_code_may_not_print(tmp_path: Path) -> None:
    noisy = counter4_code().replace(
        "  assign count = count_r;", '  assign count = count_r;\n  initial $display("hi");'
    )
    rules = [
        r for r in counter_rules(ask_during_run=False) if "Block: counter4\n" not in r["match"]
    ]
    rules.append(rule(["Block: counter4\n", "Attempt: 1 of"], structured({"code": noisy})))
    rules.append(
        rule(["Block: counter4\n", "Attempt: 2 of"], structured({"code": counter4_code()}))
    )
    config = write_config(tmp_path, rules)
    answers = tmp_path / "answers.yaml"
    answers.write_text("\n".join(f"{k}: '{v}'" for k, v in COUNTER_ANSWERS.items()))
    out = tmp_path / "plan"
    asyncio.run(plan_design(COUNTER_PROMPT, out, str(answers), str(config)))
    approve(out)
    run = create_run(
        out / "design.yaml", tmp_path / "runs", str(config), str(write_mcp_json(tmp_path, []))
    )
    ws = Workspace.open(out)
    servers = {"iverilog": build_iverilog(ws), "verilator": build_verilator(ws)}
    states = asyncio.run(execute_run(run, in_process=servers))
    assert states["counter4"].status == "PASSED"
    store = StateStore(run / "state.sqlite")
    try:
        steps = [(r.kind, r.outcome) for _, r in store.steps("counter4")][:3]
        errors = store.error_log()
    finally:
        store.close()
    assert steps == [("write", "submitted"), ("check", "errors"), ("write", "submitted")]
    assert errors[0]["message"] == "design code may not print: remove $display"


def test_interactive_plan_and_declined_approval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, counter_rules())
    asked: list[str] = []

    def engineer(text: str) -> str:
        asked.append(text)
        if text.startswith("Approve"):
            return "n"
        return COUNTER_ANSWERS[text[1 : text.index("]")]]

    monkeypatch.setattr("builtins.input", engineer)
    out = tmp_path / "plan"
    assert main(["plan", COUNTER_PROMPT, "--out", str(out), "--config", str(config)]) == 0
    assert [a.split("]")[0] for a in asked] == ["[overflow", "[reset_value", "[ports", "[clock"]
    assert main(["approve", str(out)]) == 1
    assert "not approved" in capsys.readouterr().out
    assert asked[-1] == "Approve and freeze this plan? [y/N] "
    assert not (out / "approval.json").exists() and (out / "dag.png").exists()
