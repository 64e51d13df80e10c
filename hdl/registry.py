"""``hdl/blocks.yaml`` as typed models: what each block is, its ports, files and vectors."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from servers.core.sv.trace import TraceSpec, TraceStream

HDL_DIR = Path(__file__).resolve().parent
REPO = HDL_DIR.parent
BLOCKS_YAML = HDL_DIR / "blocks.yaml"
PACKAGE_SV = "hdl/pkg/lte_baseband_pkg.sv"


class BlockStatus(StrEnum):
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
    qpp: Literal["f1", "f2"] | None = Field(
        None, description="QPP parameter of TS 36.212 Table 5.1.3-3 for the K in param"
    )

    def value(self, sidecar: dict) -> str:
        if self.param is not None:
            raw = sidecar["params"][self.param]
            if self.bitmask:
                return f"{sum(1 << int(i) for i in raw):x}"
            if self.qpp is not None:
                from refmodels.qpp_table import QPP_TABLE

                row = next(r for r in QPP_TABLE if r[0] == int(raw))
                raw = row[1] if self.qpp == "f1" else row[2]
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
    model_config = ConfigDict(extra="forbid")

    generator: str = Field(description="the refmodels command writing the golden vectors")
    plusargs: list[Plusarg] = Field(default_factory=list)
    extra_cases: dict[str, dict[str, int | float | str]] = Field(
        default_factory=dict, description="custom cases (--params) run besides the defaults"
    )


class BlockTrace(BaseModel):
    """Which DUT output streams the trace judge follows (the expected beats are the case's
    own, written where the simulation cannot read them: ``hdl/sim.py``)."""

    model_config = ConfigDict(extra="forbid")

    dut: str = Field("dut", description="instance path of the block in its testbench")
    clock: str = "clk"
    reset: str | None = "rst_n"
    reset_active_low: bool = True
    streams: list[TraceStream] = Field(min_length=1)

    def spec(self, expected: str | None) -> TraceSpec:
        return TraceSpec(**self.model_dump(), expected=expected)


class Block(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    status: BlockStatus
    spec: str
    clauses: list[str]
    depends_on: list[str] = Field(default_factory=list)
    rtl: list[str] = Field(default_factory=list, description="design files, package first")
    testbench: str | None = None
    tb_top: str | None = None
    ports: list[Port] = Field(default_factory=list)
    vectors: Vectors
    trace: BlockTrace | None = Field(
        None, description="output streams the server traces and judges on its own"
    )

    @model_validator(mode="after")
    def _trace_ports_exist(self) -> Block:
        """Every traced port is one of the block's ports, in the direction its role needs."""
        if self.trace is None:
            return self
        direction = {p.name: p.direction for p in self.ports}
        wanted = [(self.trace.clock, "input")]
        if self.trace.reset is not None:
            wanted.append((self.trace.reset, "input"))
        for s in self.trace.streams:
            # Data, valid, last and user come from the side that sends, ready from the other.
            sends = "input" if s.reference_only else "output"
            receives = "output" if s.reference_only else "input"
            wanted += [(p, sends) for p in (s.data, s.valid, s.last, s.user) if p is not None]
            wanted += [(s.ready, receives)] if s.ready is not None else []
        for port, want in wanted:
            if direction.get(port) != want:
                raise ValueError(f"{self.name}: trace port {port} is not an {want} of the block")
        return self

    @property
    def rtl_file(self) -> str:
        return self.rtl[-1]

    def plusargs(self, sidecar: dict) -> list[str]:
        return [f"{p.name}={p.value(sidecar)}" for p in self.vectors.plusargs]


class Registry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    package: str
    clock_period_ns: float
    blocks: list[Block]

    def block(self, name: str) -> Block:
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(name)

    def verified(self) -> list[Block]:
        return [b for b in self.blocks if b.status == BlockStatus.VERIFIED]


def load_registry(path: Path = BLOCKS_YAML) -> Registry:
    """Parse and validate ``blocks.yaml``."""
    return Registry.model_validate(yaml.safe_load(path.read_text()))


def load_sidecar(case_dir: Path, block: str) -> dict:
    """The JSON sidecar refmodels writes next to a case's hex files."""
    return json.loads((case_dir / f"{block}.json").read_text())
