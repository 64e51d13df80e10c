"""The design file (YAML), one schema for every design the host runs: a planned or hand-written
design and the receiver's block registry (`hdl/blocks.yaml`) alike. Per block: specification,
interface (a module header, or ports it is derived from), 3GPP clauses, dependencies, the
files it compiles from, and the hidden verification assets (a testbench with fixed vectors, or
a testbench whose golden vectors a refmodels generator writes for each run)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator

SimulatorName = Literal["iverilog", "verilator"]


class BlockStatus(StrEnum):
    """Where a block's reference stands (not a run's state of the block)."""

    VERIFIED = "verified"  # RTL + testbench pass on both simulators, lint clean
    NOT_STARTED = "not_started"


class Port(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    direction: Literal["input", "output"]
    width: int = Field(ge=1)
    description: str = ""


class Plusarg(BaseModel):
    """How one testbench plusarg is filled from a case's JSON sidecar."""

    model_config = ConfigDict(extra="forbid")

    name: str
    param: str | None = Field(None, description="key of the sidecar's params")
    words: str | None = Field(None, description="word count of this vector file")
    map: dict[str, int] = Field(default_factory=dict, description="value translation")
    bitmask: bool = Field(False, description="a list param as a hex bitmap (bit i = item i)")

    def value(self, sidecar: dict) -> str:
        if self.param is not None:
            raw = sidecar["params"][self.param]
            if self.bitmask:
                return f"{sum(1 << int(i) for i in raw):x}"
        elif self.words is not None:
            raw = next(f["words"] for f in sidecar["files"] if f["file"] == self.words)
        else:
            raise ValueError(f"plusarg {self.name}: neither param nor words")
        if isinstance(raw, bool):
            raw = int(raw)
        if self.map:
            raw = self.map[str(raw)]
        return str(int(raw))


class Vectors(BaseModel):
    """Golden vectors a refmodels generator writes per run (hidden like the testbench)."""

    model_config = ConfigDict(extra="forbid")

    generator: str = Field(description="the refmodels command writing the golden vectors")
    plusargs: list[Plusarg] = Field(default_factory=list)
    extra_cases: dict[str, dict[str, int | float | str]] = Field(
        default_factory=dict, description="custom cases (--params) run besides the defaults"
    )


class Judge(BaseModel):
    """What the design loop's hidden run checks: the cases (default or extra case names of
    the generator) and the simulators, each of which must pass."""

    model_config = ConfigDict(extra="forbid")

    cases: list[str] = Field(min_length=1)
    simulators: list[SimulatorName] = Field(default_factory=lambda: ["iverilog"], min_length=1)


class Verification(BaseModel):
    """The assets that decide the verdict. The generating roles never see their content."""

    model_config = ConfigDict(extra="forbid")

    testbench: list[str] = Field(min_length=1, description="Workspace-relative files")
    vectors: list[str] = Field(default_factory=list, description="Golden vectors it reads")
    include_dirs: list[str] = Field(default_factory=list)
    top: str | None = None
    simulator: SimulatorName = "iverilog"
    timeout_s: float = 60.0


class SynthTarget(BaseModel):
    model_config = ConfigDict(extra="forbid")

    clock_period_ns: float = 10.0


class Block(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    top: str = Field("", description="The module the RTL Engineer writes (default: name)")
    status: BlockStatus = BlockStatus.NOT_STARTED
    rtl_file: str = Field("", description="Workspace-relative path the host writes the code to")
    rtl: list[str] = Field(
        default_factory=list,
        description="Every file the block compiles from, package first, its own file last "
        "(default: its dependencies' files, then its own)",
    )
    spec: str = ""
    spec_file: str | None = None
    interface: str = Field("", description="Module header: name, parameters and ports")
    ports: list[Port] = Field(default_factory=list, description="The interface as ports")
    refs_3gpp: list[str] = Field(
        default_factory=list, validation_alias=AliasChoices("refs_3gpp", "clauses")
    )
    depends_on: list[str] = Field(default_factory=list)
    kind: Literal["module", "integration"] = Field(
        "module", description="integration: the structural parent of its dependencies"
    )
    verification: Verification | None = None
    vectors: Vectors | None = None
    judge: Judge | None = None
    synth: SynthTarget | None = None
    trace: dict[str, Any] | None = Field(
        None,
        description="The DUT output streams the simulator servers trace and judge on their "
        "own (their TraceSpec, without the expected beats; checked against the ports by "
        "silicon_agent.hdl.registry)",
    )

    @model_validator(mode="before")
    @classmethod
    def registry_spelling(cls, data: Any) -> Any:
        """The registry writes the hidden testbench as `testbench` and `tb_top`."""
        if isinstance(data, dict) and ("testbench" in data or "tb_top" in data):
            data = dict(data)
            testbench, top = data.pop("testbench", None), data.pop("tb_top", None)
            if testbench is not None and "verification" not in data:
                data["verification"] = {
                    "testbench": [testbench],
                    "top": top,
                    # The testbench's own folder, for the harness it includes.
                    "include_dirs": [str(Path(testbench).parent)],
                    "simulator": "verilator",
                    "timeout_s": 900.0,
                }
        return data

    @model_validator(mode="after")
    def derived(self) -> Block:
        self.top = self.top or self.name
        if not self.rtl_file:
            if not self.rtl:
                raise ValueError(f"block {self.name}: rtl_file or rtl is required")
            self.rtl_file = self.rtl[-1]
        if not self.interface and self.ports:
            self.interface = module_header(self.top, self.ports)
        if not self.interface:
            raise ValueError(f"block {self.name}: interface or ports are required")
        if self.vectors is not None and self.verification is None:
            raise ValueError(f"block {self.name}: generated vectors need a testbench")
        return self

    # The registry's names for the same facts.
    @property
    def clauses(self) -> list[str]:
        return self.refs_3gpp

    @property
    def testbench(self) -> str | None:
        return self.verification.testbench[0] if self.verification else None

    @property
    def tb_top(self) -> str | None:
        return self.verification.top if self.verification else None

    def plusargs(self, sidecar: dict) -> list[str]:
        assert self.vectors is not None
        return [f"{p.name}={p.value(sidecar)}" for p in self.vectors.plusargs]


def module_header(top: str, ports: list[Port]) -> str:
    """The header the RTL Engineer implements, from the registry's ports."""
    lines = [
        f"  {p.direction:6s} logic {f'[{p.width - 1}:0] ' if p.width > 1 else ''}{p.name}"
        + ("," if i < len(ports) - 1 else "")
        + (f"  // {p.description}" if p.description else "")
        for i, p in enumerate(ports)
    ]
    return f"module {top}\n  import lte_baseband_pkg::*;\n(\n" + "\n".join(lines) + "\n);"


class Design(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = "design"
    workspace: str = "."
    plan: str | None = Field(None, description="A planned design: run needs its approval")
    package: str | None = Field(None, description="The shared package every block may import")
    clock_period_ns: float | None = Field(None, description="Synthesis clock of every block")
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
            if block.synth is None and self.clock_period_ns is not None:
                block.synth = SynthTarget(clock_period_ns=self.clock_period_ns)
        order = topological_order(self)
        if len(order) != len(self.blocks):
            raise ValueError("block dependencies form a cycle")
        return self

    def block(self, name: str) -> Block:
        for block in self.blocks:
            if block.name == name:
                return block
        raise KeyError(name)

    def verified(self) -> list[Block]:
        return [b for b in self.blocks if b.status == BlockStatus.VERIFIED]

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

    def sources(self, name: str) -> list[str]:
        """The files a block compiles from."""
        block = self.block(name)
        if block.rtl:
            return list(block.rtl)
        return [d.rtl_file for d in self.dependencies(name)] + [block.rtl_file]

    @property
    def generated(self) -> bool:
        """Its golden vectors are generated per run: a run stages a private workspace."""
        return any(b.vectors is not None for b in self.blocks)


def testbench_side(files: Sequence[str], package: str | None) -> tuple[list[str], list[str]]:
    """A block's files as run_testbench takes them: (design, testbench-side). The shared
    package is the testbench's: its constants size the testbench's vectors and checks, so it
    goes among the testbench files (the servers compile it ahead of the design text and refuse
    a design that defines a package the testbench uses)."""
    return [f for f in files if f != package], [f for f in files if f == package]


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


def hidden_paths(design: Design) -> list[str]:
    return [
        p
        for b in design.blocks
        if b.verification is not None
        for p in b.verification.testbench + b.verification.vectors
    ]
