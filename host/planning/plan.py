"""The block plan: a tree of modules and integration (parent) nodes, each with its ports,
its verification plan and its testbench, and the checks that make a plan executable:
acyclic, every port connected with matching widths, every block verified."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .spec import SpecPort


class VerificationPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scenarios: list[str] = Field(default_factory=list, max_length=20)
    oracle: str = Field("", max_length=400)
    coverage_goals: list[str] = Field(default_factory=list, max_length=20)


class Connection(BaseModel):
    """`source` drives `target`; each end is `child.port` or a port of the parent."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(max_length=80)
    target: str = Field(max_length=80)


class PlanNode(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=60)
    kind: Literal["module", "integration"] = "module"
    spec: str = Field(max_length=4000)
    ports: list[SpecPort] = Field(min_length=1)
    children: list[str] = Field(default_factory=list)
    connections: list[Connection] = Field(default_factory=list)
    depends_on: list[str] = Field(default_factory=list, description="Besides the children")
    verification: VerificationPlan = Field(default_factory=VerificationPlan)
    testbench: str | None = Field(None, description="Workspace-relative testbench file")

    def port(self, name: str) -> SpecPort | None:
        return next((p for p in self.ports if p.name == name), None)


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    top: str
    nodes: list[PlanNode] = Field(min_length=1)

    def node(self, name: str) -> PlanNode:
        for node in self.nodes:
            if node.name == name:
                return node
        raise KeyError(name)

    def uses(self, node: PlanNode) -> list[str]:
        return [*node.children, *(d for d in node.depends_on if d not in node.children)]


class PlanInvalid(ValueError):
    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("the plan is not valid:\n" + "\n".join(f"- {p}" for p in problems))


def interface_of(node: PlanNode) -> str:
    ports = ", ".join(
        f"{p.direction} logic {'' if p.width == 1 else f'[{p.width - 1}:0] '}{p.name}"
        for p in node.ports
    )
    return f"module {node.name} ({ports});"


def cycle_in(plan: Plan) -> list[str] | None:
    """A dependency cycle as a path of node names, or None."""
    names = {n.name for n in plan.nodes}
    colour: dict[str, int] = {}
    stack: list[str] = []

    def visit(name: str) -> list[str] | None:
        colour[name] = 1
        stack.append(name)
        for dep in plan.uses(plan.node(name)):
            if dep not in names:
                continue
            if colour.get(dep) == 1:
                return [*stack[stack.index(dep) :], dep]
            if dep not in colour and (found := visit(dep)):
                return found
        stack.pop()
        colour[name] = 2
        return None

    for node in plan.nodes:
        if node.name not in colour and (found := visit(node.name)):
            return found
    return None


def connection_problems(plan: Plan, parent: PlanNode) -> list[str]:
    problems: list[str] = []
    known = {n.name: n for n in plan.nodes}

    def end(text: str) -> tuple[str | None, str, int | None, str | None]:
        """(child or None for the parent, port, width, direction as seen from the parent)"""
        if "." in text:
            child, port = text.split(".", 1)
            node = known.get(child)
            spec = node.port(port) if node and child in parent.children else None
            if spec is None:
                return child, port, None, None
            # A child's output is a source inside the parent; its input is a sink.
            return child, port, spec.width, "source" if spec.direction == "output" else "sink"
        spec = parent.port(text)
        if spec is None:
            return None, text, None, None
        return None, text, spec.width, "source" if spec.direction == "input" else "sink"

    driven: dict[str, int] = {}
    for c in parent.connections:
        s_child, _, s_width, s_role = end(c.source)
        t_child, _, t_width, t_role = end(c.target)
        where = f"{parent.name}: {c.source} -> {c.target}"
        if s_role is None:
            problems.append(f"{where}: no port '{c.source}'")
            continue
        if t_role is None:
            problems.append(f"{where}: no port '{c.target}'")
            continue
        if s_role != "source":
            what = f"an input of {s_child}" if s_child else f"an output of {parent.name}"
            problems.append(f"{where}: '{c.source}' cannot drive ({what})")
        if t_role != "sink":
            what = f"an output of {t_child}" if t_child else f"an input of {parent.name}"
            problems.append(f"{where}: '{c.target}' cannot be driven ({what})")
        if s_width != t_width:
            problems.append(
                f"{where}: width mismatch: {c.source} is {s_width} bits, "
                f"{c.target} is {t_width} bits"
            )
        driven[c.target] = driven.get(c.target, 0) + 1
    sinks = [f"{ch}.{p.name}" for ch in parent.children if ch in known for p in known[ch].ports]
    sinks = [s for s in sinks if end(s)[3] == "sink"]
    sinks += [p.name for p in parent.ports if p.direction == "output"]
    for sink in sinks:
        count = driven.get(sink, 0)
        if count == 0:
            problems.append(f"{parent.name}: '{sink}' is not connected (nothing drives it)")
        elif count > 1:
            problems.append(f"{parent.name}: '{sink}' is driven {count} times")
    return problems


def validate_plan(plan: Plan) -> None:
    """Raise PlanInvalid listing every problem; a plan that passes can be executed."""
    problems: list[str] = []
    names = [n.name for n in plan.nodes]
    if len(set(names)) != len(names):
        problems.append("node names must be unique")
    if plan.top not in names:
        problems.append(f"the top '{plan.top}' is not a node")
    parents: dict[str, str] = {}
    for node in plan.nodes:
        for used in plan.uses(node):
            if used not in names:
                problems.append(f"{node.name} uses unknown node '{used}'")
        for child in node.children:
            if child in parents:
                problems.append(f"{child} has two parents: {parents[child]} and {node.name}")
            parents[child] = node.name
        if node.kind == "integration" and not node.children:
            problems.append(f"{node.name} is an integration node without children")
        if node.kind == "module" and node.children:
            problems.append(f"{node.name} has children but is not an integration node")
        if not node.verification.scenarios or not node.verification.oracle:
            problems.append(f"{node.name} has no verification plan (scenarios and an oracle)")
        if not node.testbench:
            problems.append(f"{node.name} has no testbench")
    cycle = cycle_in(plan)
    if cycle:
        problems.append("the block dependencies form a cycle: " + " -> ".join(cycle))
    if not problems:
        for node in plan.nodes:
            if node.kind == "integration":
                problems += connection_problems(plan, node)
    if problems:
        raise PlanInvalid(problems)
