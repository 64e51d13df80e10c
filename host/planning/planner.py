"""The Planner: recursive decomposition of a frozen specification into the block plan, the
Verification Engineer's testbench for every node, and the design context (`design.yaml`,
`plan.json`, `spec.json`, testbenches, header stubs) that `agent-host run` reads."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

from ..llm.gateway import Gateway, Ledger
from ..llm.types import Message
from ..mcp_client import McpConfig, ServerPool, ToolCallFailed, suite_mcp_config
from ..roles.prompts import role_prompt
from .plan import (
    Connection,
    Plan,
    PlanInvalid,
    PlanNode,
    VerificationPlan,
    interface_of,
    validate_plan,
)
from .spec import Specification, SpecPort


class ChildPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=60)
    purpose: str = Field(max_length=2000)
    ports: list[SpecPort] = Field(min_length=1, max_length=64)
    verification: VerificationPlan


class Decomposition(BaseModel):
    model_config = ConfigDict(extra="forbid")

    leaf: bool
    children: list[ChildPlan] = Field(default_factory=list, max_length=8)
    connections: list[Connection] = Field(default_factory=list, max_length=256)


class TestbenchAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str = Field(min_length=1, max_length=20000)


TB_RULES = [
    (r"MISMATCH time=%0?t cycle=%0?d signal=\S+ expected=%\w actual=%\w", "a MISMATCH line"),
    (r"Mismatches: %0?d in %0?d samples", "the 'Mismatches: <n> in <m> samples' line"),
    (r"\$finish", "$finish"),
]
PRINTS = re.compile(r"\$(display|write|monitor|strobe)\b")


def convention_problems(code: str) -> list[str]:
    problems = [f"no {what}" for pattern, what in TB_RULES if not re.search(pattern, code)]
    if len(re.findall(r"Mismatches: ", code)) != 1:
        problems.append("exactly one 'Mismatches:' summary line is required")
    return problems


def spec_text(spec: Specification) -> str:
    l2 = spec.L2
    lines = [spec.L1.summary, "", "Behaviour:", *(f"- {b}" for b in spec.L1.behavior)]
    if l2.clock:
        lines.append(f"Clock: {l2.clock} (rising edge).")
    if l2.reset:
        r = l2.reset
        lines.append(f"Reset: {r.name}, active {r.active}, {r.kind}; reset value {r.value}.")
    lines.append(f"Timing: {l2.timing}")
    if l2.protocols:
        lines.append("Protocols: " + ", ".join(l2.protocols))
    lines.append(f"Architecture: {spec.L4.approach}")
    return "\n".join(lines)


class Planner:
    def __init__(
        self,
        gateway: Gateway,
        ledger: Ledger,
        max_depth: int = 3,
        servers: McpConfig | None = None,
    ) -> None:
        self.gateway = gateway
        self.ledger = ledger
        self.max_depth = max_depth
        self.servers = servers
        self.nodes: list[PlanNode] = []

    async def decompose(self, node: PlanNode, context: str, depth: int) -> None:
        self.nodes.append(node)
        if depth >= self.max_depth:
            return
        text = (
            f"Step: decompose\nNode: {node.name}\nDepth: {depth}\n\n{context}\n\n"
            f"Node specification:\n{node.spec}\n\nInterface:\n{interface_of(node)}"
        )
        answer = await self.gateway.structured(
            "planner",
            [
                Message(role="system", content=role_prompt("planner")),
                Message(role="user", content=text),
            ],
            Decomposition,
            correlation_id=f"plan/decompose/{node.name}",
            ledger=self.ledger,
        )
        if answer.leaf or not answer.children:
            return
        node.kind = "integration"
        node.children = [c.name for c in answer.children]
        node.connections = answer.connections
        for child in answer.children:
            sub = PlanNode(
                name=child.name,
                spec=child.purpose,
                ports=child.ports,
                verification=child.verification,
            )
            await self.decompose(sub, context, depth + 1)

    async def testbench(self, node: PlanNode, context: str) -> str:
        v = node.verification
        text = (
            f"Step: testbench\nNode: {node.name}\n\n{context}\n\nNode specification:\n"
            f"{node.spec}\n\nInterface:\n{interface_of(node)}\n\nScenarios:\n"
            + "\n".join(f"- {s}" for s in v.scenarios)
            + f"\nOracle: {v.oracle}\nCoverage goals: {', '.join(v.coverage_goals)}\n"
            f"Testbench module: tb_{node.name}"
        )
        answer = await self.gateway.structured(
            "verification_engineer",
            [
                Message(role="system", content=role_prompt("verification_engineer")),
                Message(role="user", content=text),
            ],
            TestbenchAnswer,
            correlation_id=f"plan/testbench/{node.name}",
            ledger=self.ledger,
        )
        problems = convention_problems(answer.code)
        if problems:
            raise PlanInvalid([f"testbench of {node.name}: {p}" for p in problems])
        return answer.code

    async def plan(self, spec: Specification, out: Path) -> Plan:
        context = "Design context (applies to every block):\n" + spec_text(spec)
        top = PlanNode(
            name=spec.L2.module,
            spec=spec_text(spec),
            ports=spec.L2.ports,
            verification=VerificationPlan(**spec.L3.model_dump()),
        )
        await self.decompose(top, context, 0)
        benches: dict[str, str] = {}
        for node in self.nodes:
            benches[node.name] = await self.testbench(node, context)
            node.testbench = f"verif/tb_{node.name}.sv"
        plan = Plan(name=spec.L2.module, top=top.name, nodes=self.nodes)
        validate_plan(plan)
        design = write_context(out, spec, plan, benches)
        problems = await compile_testbenches(out, plan, self.servers)
        if problems:
            design.unlink()  # a plan whose testbenches do not build is not runnable
            raise PlanInvalid(problems)
        return plan


async def compile_testbenches(out: Path, plan: Plan, servers: McpConfig | None = None) -> list[str]:
    """Each testbench must build against its block's header stub: the ports it drives and
    reads are the planned ones. The iverilog server compiles them over MCP, like every other
    host step; nothing here is simulated."""
    pool = ServerPool(servers or suite_mcp_config(), workspace=out, only=["iverilog"])
    problems = []
    async with pool:
        if "iverilog" not in pool.clients:
            reason = pool.failed.get("iverilog", "not configured")
            return [f"the iverilog server is needed to check the testbenches: {reason}"]
        for node in plan.nodes:
            sources = [f"rtl/{node.name}.sv", f"verif/tb_{node.name}.sv"]
            try:
                result = await pool.call(
                    "iverilog", "compile", {"sources": sources, "top": f"tb_{node.name}"}
                )
            except ToolCallFailed as exc:
                problems.append(f"testbench of {node.name} could not be compiled: {exc}")
                continue
            if result.get("status") == "TOOL_ERROR":
                return []  # no Icarus on this machine: the run's own checks will say so
            if result.get("status") != "PASS":
                messages = [d.get("message", "") for d in result.get("diagnostics", [])[:3]]
                first = "; ".join(messages) or str(result.get("summary", ""))
                problems.append(
                    f"testbench of {node.name} does not build on its interface: {first}"
                )
    return problems


def design_of(spec: Specification, plan: Plan) -> dict[str, object]:
    blocks = []
    for node in plan.nodes:
        clock_note = ""
        if spec.L2.clock:
            clock_note = f"\nClock: {spec.L2.clock}."
        if spec.L2.reset and any(p.name == spec.L2.reset.name for p in node.ports):
            r = spec.L2.reset
            clock_note += f" Reset: {r.name}, active {r.active}, {r.kind}, value {r.value}."
        text = node.spec if node.name == plan.top else node.spec + clock_note
        if node.kind == "integration":
            wiring = "\n".join(f"- {c.source} -> {c.target}" for c in node.connections)
            text += "\n\nStructural parent. Connections (source -> target):\n" + wiring
        block: dict[str, object] = {
            "name": node.name,
            "top": node.name,
            "kind": node.kind,
            "rtl_file": f"rtl/{node.name}.sv",
            "spec": text,
            "interface": interface_of(node),
            "depends_on": plan.uses(node),
            "verification": {"testbench": [node.testbench], "top": f"tb_{node.name}"},
        }
        if node.name == plan.top and spec.L5.clock_period_ns:
            block["synth"] = {"clock_period_ns": spec.L5.clock_period_ns}
        blocks.append(block)
    return {"name": plan.name, "workspace": ".", "plan": "plan.json", "blocks": blocks}


def write_context(out: Path, spec: Specification, plan: Plan, benches: dict[str, str]) -> Path:
    (out / "verif").mkdir(parents=True, exist_ok=True)
    (out / "rtl").mkdir(parents=True, exist_ok=True)
    (out / "spec.json").write_text(spec.model_dump_json(indent=1) + "\n")
    (out / "plan.json").write_text(plan.model_dump_json(indent=1) + "\n")
    for node in plan.nodes:
        (out / f"verif/tb_{node.name}.sv").write_text(benches[node.name].rstrip() + "\n")
        stub = out / f"rtl/{node.name}.sv"
        if not stub.exists():
            # A Stub: the header only, until the RTL Engineer writes the body.
            stub.write_text(f"// Stub: {node.name}\n{interface_of(node)}\nendmodule\n")
    design = out / "design.yaml"
    design.write_text(yaml.safe_dump(design_of(spec, plan), sort_keys=False))
    (out / "approval.json").unlink(missing_ok=True)
    return design


def load_plan(out: Path) -> tuple[Specification, Plan]:
    spec = Specification.model_validate(json.loads((out / "spec.json").read_text()))
    return spec, Plan.model_validate(json.loads((out / "plan.json").read_text()))
