"""The design file (YAML): the blocks to build, with their specification, interface, 3GPP
references, dependencies and (hidden) verification assets."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator


class Verification(BaseModel):
    """The assets that decide the verdict. The generating roles never see their content."""

    model_config = ConfigDict(extra="forbid")

    testbench: list[str] = Field(min_length=1, description="Workspace-relative files")
    vectors: list[str] = Field(default_factory=list, description="Golden vectors it reads")
    top: str | None = None
    simulator: Literal["iverilog", "verilator"] = "iverilog"
    timeout_s: float = 60.0


class SynthTarget(BaseModel):
    model_config = ConfigDict(extra="forbid")

    clock_period_ns: float = 10.0


class Block(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    top: str = Field(description="The module the RTL Engineer writes")
    rtl_file: str = Field(description="Workspace-relative path the host writes the code to")
    spec: str = ""
    spec_file: str | None = None
    interface: str = Field(description="Module header: name, parameters and ports")
    refs_3gpp: list[str] = Field(default_factory=list)
    depends_on: list[str] = Field(default_factory=list)
    kind: Literal["module", "integration"] = Field(
        "module", description="integration: the structural parent of its dependencies"
    )
    verification: Verification
    synth: SynthTarget | None = None


class Design(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    workspace: str = "."
    plan: str | None = Field(None, description="A planned design: run needs its approval")
    blocks: list[Block] = Field(min_length=1)

    @model_validator(mode="after")
    def dag(self) -> Design:
        names = [b.name for b in self.blocks]
        if len(set(names)) != len(names):
            raise ValueError("block names must be unique")
        known = set(names)
        for block in self.blocks:
            unknown = set(block.depends_on) - known
            if unknown:
                raise ValueError(f"block {block.name} depends on unknown {sorted(unknown)}")
        order = topological_order(self)
        if len(order) != len(self.blocks):
            raise ValueError("block dependencies form a cycle")
        return self

    def block(self, name: str) -> Block:
        for block in self.blocks:
            if block.name == name:
                return block
        raise KeyError(name)

    def dependencies(self, name: str) -> list[Block]:
        """Every block `name` uses, transitively, dependencies first."""
        seen: list[str] = []

        def visit(current: str) -> None:
            for dep in self.block(current).depends_on:
                if dep not in seen:
                    visit(dep)
                    seen.append(dep)

        visit(name)
        return [self.block(n) for n in seen]

    def dependents(self, name: str) -> list[str]:
        return [b.name for b in self.blocks if name in b.depends_on]


def topological_order(design: Design) -> list[str]:
    remaining = {b.name: set(b.depends_on) for b in design.blocks}
    order: list[str] = []
    while True:
        ready = sorted(n for n, deps in remaining.items() if deps <= set(order))
        if not ready:
            return order
        for name in ready:
            order.append(name)
            del remaining[name]


class LoadedDesign(BaseModel):
    design: Design
    path: Path
    workspace: Path


def load_design(path: str | Path) -> LoadedDesign:
    file = Path(path).resolve()
    design = Design.model_validate(yaml.safe_load(file.read_text()))
    workspace = (file.parent / design.workspace).resolve()
    for block in design.blocks:
        if block.spec_file:
            block.spec = (block.spec + "\n" + (workspace / block.spec_file).read_text()).strip()
    if design.plan is not None:
        from .planning.approval import check_approved

        check_approved(file.parent)
    return LoadedDesign(design=design, path=file, workspace=workspace)


def hidden_paths(design: Design) -> list[str]:
    return [p for b in design.blocks for p in b.verification.testbench + b.verification.vectors]
