"""A parent with two children: the Planner's decomposition, the plan checks (widths,
connections, cycles), a child that pauses on a question while its sibling goes on to
Frozen, and the Integration engineer's structural parent, written only once both children
are frozen and passing its own testbench. Real iverilog and Verilator, in process."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from silicon_agent.host.planning.approval import approve
from silicon_agent.host.planning.helper import file_answers
from silicon_agent.host.planning.plan import Plan, PlanInvalid, validate_plan
from silicon_agent.host.planning.session import plan_design
from silicon_agent.host.run_setup import create_run
from silicon_agent.host.runs import execute_run
from silicon_agent.host.state import BlockStatus, StateStore
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.server import build as build_iverilog
from silicon_agent.servers.verilator.server import build as build_verilator
from silicon_agent.suite.design import Design

from .scenario import SUM_REG, sumreg_rules, write_config, write_mcp_json

PROMPT = "register the 8-bit sum of a and b"


def make_plan(root: Path, sum_width: int = 8) -> Path:
    config = write_config(root, sumreg_rules(sum_width))
    answers = root / "answers.yaml"
    answers.write_text(yaml.safe_dump({"overflow": "yes"}))
    out = root / "plan"
    asyncio.run(plan_design(PROMPT, out, config_path=str(config), answerer=file_answers(answers)))
    return out


def servers(workspace: Path) -> dict[str, object]:
    ws = Workspace.open(workspace)
    return {"iverilog": build_iverilog(ws), "verilator": build_verilator(ws)}


@pytest.fixture(scope="module")
def two_level(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("two_level")
    out = make_plan(root)
    approve(out)
    mcp = write_mcp_json(root, [])
    run = create_run(
        out / "design.yaml", root / "runs", str(root / "host.yaml"), str(mcp), run_id="two"
    )
    return out, run


def test_decomposition_into_parent_and_children(two_level: tuple[Path, Path]) -> None:
    out, _ = two_level
    plan = Plan.model_validate_json((out / "plan.json").read_text())
    top = plan.node("sum_reg")
    assert top.kind == "integration" and top.children == ["adder8", "reg8"]
    assert [plan.node(c).kind for c in top.children] == ["module", "module"]
    design = yaml.safe_load((out / "design.yaml").read_text())
    blocks = {b["name"]: b for b in design["blocks"]}
    assert blocks["sum_reg"]["depends_on"] == ["adder8", "reg8"]
    assert blocks["sum_reg"]["kind"] == "integration"
    assert "- adder8.s_o -> reg8.d_i" in blocks["sum_reg"]["spec"]
    assert all(b["verification"]["testbench"] for b in blocks.values())


def test_child_pauses_sibling_freezes_parent_waits_then_integrates(
    two_level: tuple[Path, Path],
) -> None:
    out, run = two_level
    states = asyncio.run(execute_run(run, in_process=servers(out)))
    assert states["adder8"].status == BlockStatus.PAUSED
    assert states["adder8"].question == "Should the sum saturate at 255 or wrap?"
    assert states["reg8"].status == BlockStatus.PASSED and states["reg8"].artifact == "Frozen"
    # The parent has not started: one of its children is not frozen.
    assert states["sum_reg"].status == BlockStatus.NOT_STARTED
    assert states["sum_reg"].artifact == "Stub"
    store = StateStore(run / "state.sqlite")
    try:
        assert store.meta()["phase"] == "paused"
        assert not store.steps("sum_reg")
        store.answer("adder8", "wrap modulo 256: drop the carry")
    finally:
        store.close()

    states = asyncio.run(execute_run(run, in_process=servers(out)))
    assert {n: s.status for n, s in states.items()} == {
        "adder8": BlockStatus.PASSED,
        "reg8": BlockStatus.PASSED,
        "sum_reg": BlockStatus.PASSED,
    }
    assert all(s.artifact == "Frozen" for s in states.values())
    store = StateStore(run / "state.sqlite")
    try:
        steps = store.steps()
        exchanges = store.exchanges()
        calls = [c for _, c in store.tool_calls() if c["tool"] == "iverilog.run_testbench"]
    finally:
        store.close()
    frozen = {r.block: seq for seq, r in steps if r.kind == "freeze"}
    parent_first = min(seq for seq, r in steps if r.block == "sum_reg")
    assert parent_first > frozen["adder8"] and parent_first > frozen["reg8"]
    # The Integration engineer wrote the parent, seeing both children's interfaces.
    parent_calls = [x for _, x in exchanges if x.correlation_id.startswith("sum_reg/")]
    assert [x.role for x in parent_calls] == ["integrator", "integrator"]
    prompt = "\n".join(m.content for m in parent_calls[0].messages)
    retry = "\n".join(m.content for m in parent_calls[1].messages)
    assert "the structural parent must instantiate adder8" in retry
    assert [(r.kind, r.outcome) for _, r in steps if r.block == "sum_reg"][:3] == [
        ("write", "submitted"),
        ("check", "errors"),
        ("write", "submitted"),
    ]
    assert "- adder8: module adder8 (input logic [7:0] a_i" in prompt
    assert "- reg8: module reg8 (input logic clk" in prompt
    assert (out / "rtl/sum_reg.sv").read_text() == SUM_REG
    verdicts = {c["arguments"]["top"]: json.loads(c["result"]) for c in calls}
    assert set(verdicts) == {"tb_adder8", "tb_reg8", "tb_sum_reg"}
    for verdict in verdicts.values():
        assert verdict["status"] == "PASS" and verdict["mismatch_count"] == 0
    # The parent was verified with both children's frozen code.
    assert calls[-1]["arguments"]["design"] == ["rtl/adder8.sv", "rtl/reg8.sv", "rtl/sum_reg.sv"]


def test_width_mismatch_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(PlanInvalid) as caught:
        make_plan(tmp_path, sum_width=9)
    assert (
        "sum_reg: adder8.s_o -> reg8.d_i: width mismatch: adder8.s_o is 9 bits, "
        "reg8.d_i is 8 bits" in str(caught.value)
    )
    assert not (tmp_path / "plan/design.yaml").exists()


def valid_plan(tmp_path: Path) -> dict[str, object]:
    out = make_plan(tmp_path)
    return json.loads((out / "plan.json").read_text())


def test_cycles_and_open_ports_are_rejected(tmp_path: Path) -> None:
    data = valid_plan(tmp_path)
    validate_plan(Plan.model_validate(data))

    nodes = {n["name"]: n for n in data["nodes"]}
    nodes["adder8"]["depends_on"] = ["sum_reg"]
    with pytest.raises(PlanInvalid, match="cycle: sum_reg -> adder8 -> sum_reg"):
        validate_plan(Plan.model_validate(data))
    nodes["adder8"]["depends_on"] = []

    nodes["sum_reg"]["connections"] = [
        c for c in nodes["sum_reg"]["connections"] if c["target"] != "reg8.rst"
    ]
    nodes["sum_reg"]["connections"].append({"source": "y", "target": "adder8.a_i"})
    with pytest.raises(PlanInvalid) as caught:
        validate_plan(Plan.model_validate(data))
    text = str(caught.value)
    assert "'reg8.rst' is not connected (nothing drives it)" in text
    assert "'y' cannot drive (an output of sum_reg)" in text
    assert "'adder8.a_i' is driven 2 times" in text

    nodes["reg8"]["verification"] = {"scenarios": [], "oracle": ""}
    with pytest.raises(PlanInvalid, match="reg8 has no verification plan"):
        validate_plan(Plan.model_validate(data))


def test_design_file_cycle_is_rejected() -> None:
    block = {
        "top": "x",
        "rtl_file": "x.sv",
        "interface": "module x;",
        "verification": {"testbench": ["tb.sv"]},
    }
    data = {
        "name": "loop",
        "blocks": [
            {**block, "name": "a", "depends_on": ["b"]},
            {**block, "name": "b", "depends_on": ["a"]},
        ],
    }
    with pytest.raises(ValidationError, match="cycle"):
        Design.model_validate(data)
