"""``hdl/blocks.yaml``, the receiver's block registry: a design the agent host runs, validated
by the host's one design schema (``suite.design``) and read here for the hdl tools, which also
check each block's trace-judge streams against the simulator servers' own model."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from silicon_agent.suite.design import Block, BlockStatus, Design, Plusarg, Port, Vectors
from silicon_agent.suite.trace_spec import TraceSpec, TraceStream
from silicon_agent.suite.yaml_file import read_yaml

HDL_DIR = Path(__file__).resolve().parent
REPO = HDL_DIR.parent
BLOCKS_YAML = HDL_DIR / "blocks.yaml"
COVERAGE_YAML = HDL_DIR / "coverage.yaml"
PACKAGE_SV = "hdl/pkg/lte_baseband_pkg.sv"

Registry = Design

__all__ = [
    "BLOCKS_YAML",
    "Block",
    "BlockStatus",
    "BlockTrace",
    "COVERAGE_YAML",
    "Statement",
    "PACKAGE_SV",
    "Plusarg",
    "Port",
    "REPO",
    "Registry",
    "Vectors",
    "block_trace",
    "load_coverage",
    "load_registry",
    "load_sidecar",
]


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


def block_trace(block: Block) -> BlockTrace | None:
    """The block's trace streams, checked: every traced port is one of the block's ports, in
    the direction its role needs."""
    if block.trace is None:
        return None
    trace = BlockTrace.model_validate(block.trace)
    direction = {p.name: p.direction for p in block.ports}
    wanted = [(trace.clock, "input")]
    if trace.reset is not None:
        wanted.append((trace.reset, "input"))
    for s in trace.streams:
        # Data, valid, last and user come from the side that sends, ready from the other.
        sends = "input" if s.reference_only else "output"
        receives = "output" if s.reference_only else "input"
        wanted += [(p, sends) for p in (s.data, s.valid, s.last, s.user) if p is not None]
        wanted += [(s.ready, receives)] if s.ready is not None else []
    for port, want in wanted:
        if direction.get(port) != want:
            raise ValueError(f"{block.name}: trace port {port} is not an {want} of the block")
    return trace


def load_registry(path: Path = BLOCKS_YAML) -> Registry:
    """Parse and validate ``blocks.yaml``, the trace streams of every block included."""
    registry = Registry.model_validate(read_yaml(path))
    for block in registry.blocks:
        block_trace(block)
    return registry


def load_sidecar(case_dir: Path, block: str) -> dict:
    """The JSON sidecar refmodels writes next to a case's hex files."""
    return json.loads((case_dir / f"{block}.json").read_text())


class Statement(BaseModel):
    """One statement of a block's brief and the judge cases that exercise it
    (``hdl/coverage.yaml``)."""

    model_config = ConfigDict(extra="forbid")

    says: str = Field(min_length=1, description="the statement, quoted from the block's spec")
    cases: list[str] = Field(description="the judge cases that exercise it")
    checks: list[str] = Field(
        min_length=1, description="the signals the judge compares for it (testbench, trace)"
    )
    needs: dict[str, list[str | int]] = Field(
        default_factory=dict,
        description="parameter values each seed must draw in one of its cases",
    )


def load_coverage(path: Path = COVERAGE_YAML) -> dict[str, list[Statement]]:
    """Per block, the map from its brief's statements to the judge cases."""
    raw = read_yaml(path) or {}
    return {
        block: [Statement.model_validate(s) for s in statements]
        for block, statements in raw.items()
    }
