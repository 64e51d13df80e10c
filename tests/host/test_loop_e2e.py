"""The whole loop end to end: real iverilog, Verilator and waveform servers over MCP stdio
(per an mcp.json) or in-process, with a scripted team standing in for the LLMs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml

from silicon_agent.host.report import render_report
from silicon_agent.host.run_setup import create_run
from silicon_agent.host.runs import execute_run
from silicon_agent.host.state import BlockStatus, StateStore
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.server import build as build_iverilog
from silicon_agent.servers.openlane.server import build as build_openlane
from silicon_agent.servers.verilator.server import build as build_verilator

from .scenario import (
    GENERATING,
    TB_MARKER,
    code_reply,
    counter_code,
    hidden_leaks,
    make_workspace,
    write_config,
    write_mcp_json,
)


@pytest.fixture(scope="module")
def full_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("e2e")
    blocks = ["counter", "gray", "counter_fix", "ticker"]
    design = make_workspace(root, blocks)
    config = write_config(root, blocks, parallel=2)
    mcp = write_mcp_json(root, ["iverilog", "verilator", "vcd", "openlane"])
    run = create_run(design, root / "runs", str(config), str(mcp), run_id="e2e")
    asyncio.run(execute_run(run))
    return run


def steps_of(run: Path, block: str) -> list[tuple[str, str, int]]:
    store = StateStore(run / "state.sqlite")
    try:
        return [(r.kind, r.outcome, r.iteration) for _, r in store.steps(block)]
    finally:
        store.close()


def exchanges(run: Path) -> list[tuple[int, dict]]:
    store = StateStore(run / "state.sqlite")
    try:
        return [(seq, json.loads(x.model_dump_json())) for seq, x in store.exchanges()]
    finally:
        store.close()


def prompts_of(run: Path, block: str, role: str) -> list[str]:
    return [
        "\n".join(m["content"] for m in x["messages"])
        for _, x in exchanges(run)
        if x["role"] == role and x["correlation_id"].startswith(block + "/")
    ]


@pytest.mark.slow
def test_servers_came_up_over_stdio(full_run: Path) -> None:
    store = StateStore(full_run / "state.sqlite")
    meta = store.meta()
    store.close()
    assert {"iverilog", "verilator", "vcd", "openlane"} <= set(meta["servers"])
    assert meta["phase"] == "done"


@pytest.mark.slow
def test_block_passes_first_time(full_run: Path) -> None:
    assert steps_of(full_run, "counter") == [
        ("write", "submitted", 1),
        ("check", "clean", 1),
        ("simulate", "PASS", 1),
        ("synth", "synthesized", 1),
    ]
    store = StateStore(full_run / "state.sqlite")
    state = store.blocks()["counter"]
    calls = store.tool_calls()
    synthesis = store.synthesis()
    store.close()
    assert state.status == BlockStatus.PASSED and state.iteration == 1
    # Synthesis ran through the openlane server once the block passed: area and slack kept.
    assert synthesis["counter"]["status"] == "PASS"
    assert synthesis["counter"]["area_um2"] > 0 and synthesis["counter"]["cells"] > 0
    assert synthesis["counter"]["worst_setup_slack_ns"] is not None
    assert state.synth == synthesis["counter"]
    # The RTL Engineer linted its draft through the verilator server before answering.
    draft = [c for _, c in calls if c["tool"] == "check_draft"]
    assert draft and json.loads(draft[0]["result"])["status"] == "PASS"


@pytest.mark.slow
def test_two_compile_fixes(full_run: Path) -> None:
    steps = steps_of(full_run, "gray")
    assert [s[:2] for s in steps] == [
        ("write", "submitted"),
        ("check", "errors"),
        ("write", "submitted"),
        ("check", "errors"),
        ("write", "submitted"),
        ("check", "clean"),
        ("simulate", "PASS"),
        ("synth", "passed"),
    ]
    store = StateStore(full_run / "state.sqlite")
    signatures = [e["signature"] for e in store.error_log() if e["block"] == "gray"]
    gray_steps = store.steps("gray")
    counter_passed = max(s for s, r in store.steps("counter") if r.kind == "synth")
    store.close()
    assert "SYNTAX_ERROR" in signatures[0] and "UNDECLARED_IDENTIFIER" in signatures[1]
    # gray depends on counter: it starts only once counter has passed.
    assert gray_steps[0][0] > counter_passed
    fixes = prompts_of(full_run, "gray", "rtl_engineer")
    assert len(fixes) == 3
    # A fix sees its previous code and the structured diagnostics, and is told to fix only
    # those errors.
    assert "assign gray_o = bin_i ^ (bin_i >> 1)\n" in fixes[1]
    assert "SYNTAX_ERROR" in fixes[1] and "Fix ONLY the identified errors" in fixes[1]
    assert "bin_shift_w" in fixes[2] and "UNDECLARED_IDENTIFIER" in fixes[2]


@pytest.mark.slow
def test_functional_bug_fixed_after_explain_mismatch(full_run: Path) -> None:
    assert [s[:2] for s in steps_of(full_run, "counter_fix")] == [
        ("write", "submitted"),
        ("check", "clean"),
        ("simulate", "SIM_FAIL"),
        ("distill", "explained"),
        ("reflect", "hypotheses"),
        ("debug", "submitted"),
        ("check", "clean"),
        ("simulate", "PASS"),
        ("synth", "passed"),
    ]
    reflect = prompts_of(full_run, "counter_fix", "reflection_debug")
    assert len(reflect) == 2
    # The waveform server's explanation reached the reflection: the value the DUT held.
    assert "Waveform explanation of the first mismatch" in reflect[0]
    assert "8'h07" in reflect[0] and "8'h05" in reflect[0]
    assert "signal=count_o" in reflect[0]
    explained = full_run / "attempts" / "counter_fix" / "iter01" / "explain_mismatch.json"
    assert json.loads(explained.read_text())["ok"] is True
    assert (full_run / "attempts" / "counter_fix" / "iter01" / "mismatch.png").stat().st_size > 0
    # The debug step got the hypotheses and the fix-only rule.
    assert "Reflection (hypotheses)" in reflect[1] and "Fix ONLY" in reflect[1]


@pytest.mark.slow
def test_never_converges_escalates_after_eight(full_run: Path) -> None:
    steps = steps_of(full_run, "ticker")
    submitted = [s for s in steps if s[1] == "submitted"]
    assert len(submitted) == 8
    assert steps[-1][:2] == ("escalate", "escalated")
    assert [s[1] for s in steps if s[0] == "simulate"] == ["SIM_FAIL"] * 8
    store = StateStore(full_run / "state.sqlite")
    state = store.blocks()["ticker"]
    escalations = store.escalations()
    store.close()
    assert state.status == BlockStatus.ESCALATED and state.iteration == 8
    assert "8 iterations" in escalations["ticker"]["reason"]
    assert escalations["ticker"]["summary"].startswith("The block kept failing")
    # The report's escalation column gives the reason and the summary, not a name.
    page = render_report(full_run)
    row = page[page.index("<td>ticker</td>") :].split("</tr>", 1)[0]
    assert "no pass after 8 iterations (limit reached): The block kept failing" in row


@pytest.mark.slow
def test_generating_roles_never_see_hidden_assets(full_run: Path) -> None:
    records = exchanges(full_run)
    generating = [x for _, x in records if x["role"] in GENERATING]
    assert len(generating) > 15
    assert hidden_leaks([x for _, x in records]) == []
    # The vectors' content is not in any prompt either.
    vectors = (full_run.parent.parent / "verif" / "gray_vectors.hex").read_text().split()[3:]
    every = json.dumps([x["messages"] for _, x in records])
    assert not [v for v in vectors if f"{v}\\n" in every or f" {v} " in every]


@pytest.mark.slow
def test_verdicts_are_the_servers(full_run: Path) -> None:
    for name in ("counter", "gray", "counter_fix"):
        simulate = (full_run / "attempts" / name).glob("iter*/simulate.json")
        verdicts = [json.loads(p.read_text()) for p in sorted(simulate)]
        assert verdicts[-1]["status"] == "PASS"
        assert verdicts[-1]["mismatch_count"] == 0 and verdicts[-1]["samples"] > 0
        assert verdicts[-1]["tool"] == "iverilog"


@pytest.mark.slow
def test_cost_events_and_run_files(full_run: Path) -> None:
    store = StateStore(full_run / "state.sqlite")
    events = store.events()
    steps = store.steps()
    tool_calls = store.tool_calls()
    store.close()
    lines = [json.loads(x) for x in (full_run / "events.jsonl").read_text().splitlines()]
    assert [x["event_id"] for x in lines] == [e.event_id for _, e in events]
    for line in lines:
        assert line["started_at"] <= line["finished_at"]
        assert line["input_tokens"] > 0 and line["output_tokens"] > 0 and line["cost_usd"] > 0
        assert line["component"] and line["model"] and "/" in line["correlation_id"]
    assert {x["model"] for x in lines if x["component"] == "orchestrator"} == {"scripted-small"}
    step_lines = (full_run / "steps.jsonl").read_text().splitlines()
    assert len(step_lines) == len(steps)
    assert len(list((full_run / "calls").glob("*.json"))) == len(events)
    assert len((full_run / "tool_calls.jsonl").read_text().splitlines()) == len(tool_calls)
    # The host's own server calls are kept too, each with its result.
    host_tools = {c["tool"] for _, c in tool_calls if c["role"] == "host"}
    assert {
        "verilator.lint",
        "iverilog.compile",
        "iverilog.run_testbench",
        "vcd.explain_mismatch",
        "openlane.synthesize",
    } <= host_tools


def test_stagnation_escalates_early_in_process(tmp_path: Path) -> None:
    design = make_workspace(tmp_path, ["stuck"])
    config = write_config(tmp_path, ["stuck"])
    mcp = write_mcp_json(tmp_path, [])
    run = create_run(design, tmp_path / "runs", str(config), str(mcp), run_id="stuck")
    workspace = Workspace.open(tmp_path)
    servers = {"iverilog": build_iverilog(workspace), "verilator": build_verilator(workspace)}
    states = asyncio.run(execute_run(run, in_process=servers))
    state = states["stuck"]
    assert state.status == BlockStatus.ESCALATED
    assert state.iteration == 3
    assert state.escalation is not None and "stagnation" in state.escalation["reason"]
    kinds = [k for k, _, _ in steps_of(run, "stuck")]
    assert kinds == ["write", "check"] * 3 + ["escalate"]


def test_budget_exhausted_escalates(tmp_path: Path) -> None:
    design = make_workspace(tmp_path, ["gray"])
    config = write_config(tmp_path, ["gray"])
    data = yaml.safe_load(config.read_text())
    data["budget"] = {"max_tokens": 200}
    config.write_text(yaml.safe_dump(data))
    mcp = write_mcp_json(tmp_path, [])
    run = create_run(design, tmp_path / "runs", str(config), str(mcp), run_id="budget")
    workspace = Workspace.open(tmp_path)
    servers = {"iverilog": build_iverilog(workspace), "verilator": build_verilator(workspace)}
    state = asyncio.run(execute_run(run, in_process=servers))["gray"]
    # The first write spent the budget; the fix after its compile error is not asked for.
    assert state.status == BlockStatus.ESCALATED and state.iteration == 1
    assert state.escalation is not None and state.escalation["reason"] == "budget exhausted"
    assert [k for k, _, _ in steps_of(run, "gray")] == ["write", "check", "escalate"]


def test_judge_review_and_pnr_lead_advice(tmp_path: Path) -> None:
    design = make_workspace(tmp_path, ["counter"])
    data = yaml.safe_load(design.read_text())
    data["blocks"][0]["synth"] = {"clock_period_ns": 0.3}  # a target no counter meets
    design.write_text(yaml.safe_dump(data, sort_keys=False))
    config = write_config(tmp_path, ["counter"])
    settings = yaml.safe_load(config.read_text())
    settings["limits"]["judge_review"] = True
    config.write_text(yaml.safe_dump(settings))
    script = tmp_path / "script.yaml"
    rules = yaml.safe_load(script.read_text())["rules"]
    finding = {"rule": "8", "line": 13, "text": "no 3GPP clause comment on the counter logic"}
    advice = {
        "meets_target": False,
        "critical_path": "count_r increment carry chain",
        "advice": "relax the clock or pipeline the increment",
    }
    rules[:0] = [
        {"match": ["Step: review"], "reply": {"structured": {"findings": [finding]}}},
        {"match": ["Step: pnr"], "reply": {"structured": advice}},
        # Sent back on timing: the rewrite is asked as a fix of the passing code.
        {"match": ["Block: counter\n", "Step: fix"], "reply": code_reply(counter_code("counter"))},
    ]
    script.write_text(yaml.safe_dump({"rules": rules}))
    mcp = write_mcp_json(tmp_path, [])
    run = create_run(design, tmp_path / "runs", str(config), str(mcp), run_id="judge")
    workspace = Workspace.open(tmp_path)
    servers = {
        "iverilog": build_iverilog(workspace),
        "verilator": build_verilator(workspace),
        "openlane": build_openlane(workspace),
    }
    asyncio.run(execute_run(run, in_process=servers))
    store = StateStore(run / "state.sqlite")
    state = store.blocks()["counter"]
    roles = [x.role for _, x in store.exchanges()]
    store.close()
    steps = steps_of(run, "counter")
    # The clock is missed: the advice is recorded and the block goes back once with it.
    assert [(k, o) for k, o, _ in steps] == [
        ("write", "submitted"),
        ("check", "clean"),
        ("simulate", "PASS"),
        ("review", "findings"),
        ("synth", "timing_missed"),
        ("write", "submitted"),
        ("check", "clean"),
        ("simulate", "PASS"),
        ("review", "findings"),
        ("synth", "synthesized"),
    ]
    # The Judge advises; the block passed on the simulator's verdict.
    assert state.status == BlockStatus.PASSED and state.timing_returns == 1
    assert state.review == {"findings": [finding], "note": ""}
    assert state.synth is not None and state.synth["worst_setup_slack_ns"] < 0
    assert state.synth["pnr_advice"] == advice["advice"]
    rules_said = state.synth["pnr_recommendations"]
    assert rules_said and any("slack" in r.lower() or "timing" in r.lower() for r in rules_said)
    assert roles.count("judge") == 2 and roles.count("pnr_lead") == 2
    rewrite = prompts_of(run, "counter", "rtl_engineer")[-1]
    assert "misses its 0.3 ns clock" in rewrite and rules_said[0] in rewrite
    assert advice["advice"] in rewrite


def test_testbench_compile_error_is_shown_without_the_testbench(tmp_path: Path) -> None:
    design = make_workspace(tmp_path, ["porty"])
    config = write_config(tmp_path, ["porty"])
    wrong = counter_code("porty").replace("en_i", "enable_i")
    rules = [
        {"match": ["Block: porty\n", "Attempt: 1 of"], "reply": code_reply(wrong)},
        {"match": ["Block: porty\n", "Attempt: 2 of"], "reply": code_reply(counter_code("porty"))},
    ]
    (tmp_path / "script.yaml").write_text(yaml.safe_dump({"rules": rules}))
    mcp = write_mcp_json(tmp_path, [])
    run = create_run(design, tmp_path / "runs", str(config), str(mcp), run_id="porty")
    workspace = Workspace.open(tmp_path)
    servers = {"iverilog": build_iverilog(workspace), "verilator": build_verilator(workspace)}
    state = asyncio.run(execute_run(run, in_process=servers))["porty"]
    assert state.status == BlockStatus.PASSED and state.iteration == 2
    assert [(k, o) for k, o, _ in steps_of(run, "porty")][:4] == [
        ("write", "submitted"),
        ("check", "clean"),  # the design alone is fine ...
        ("simulate", "COMPILE_FAIL"),  # ... but it does not fit the hidden testbench
        ("write", "submitted"),
    ]
    fix = prompts_of(run, "porty", "rtl_engineer")[1]
    assert "<hidden verification asset>" in fix and "the hidden harness reported" in fix
    # A diagnostic located in the testbench: neither its snippet nor its message text.
    for secret in (TB_MARKER, "verif/tb_porty", "model_r", "$display", "is not a port"):
        assert secret not in fix
