"""Result models of the waveform tools: every list is bounded and says when rows were cut."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class WaveIssue(BaseModel):
    model_config = ConfigDict(extra="forbid")

    message: str
    argument: str | None = None
    hint: str | None = None


class WaveResult(BaseModel):
    """Fields every waveform result carries: ok/error instead of exceptions."""

    model_config = ConfigDict(extra="forbid")

    ok: bool = True
    error: WaveIssue | None = Field(None, description="Why the call was refused (ok=false)")
    file: str | None = Field(None, description="Workspace-relative dump path")
    timescale: str | None = Field(None, description="One tick of every time in this result")
    warnings: list[str] = Field(default_factory=list)
    cached: bool = Field(False, description="The parsed dump came from the in-process cache")
    truncated: bool = Field(False, description="Rows were cut at the limit")


class SignalEntry(BaseModel):
    name: str
    width: int
    kind: str = Field(description="Wire, Reg, Logic, Integer, Parameter, Real, ...")
    direction: str | None = None
    alias_of: str | None = Field(None, description="Same net as this (shorter) name")


class SignalList(WaveResult):
    signals: list[SignalEntry] = Field(default_factory=list)
    total: int = Field(0, description="Matching signals before the limit")


class Row(BaseModel):
    time: int
    cycle: int | None = Field(None, description="Clock edge index (0 = first edge)")
    values: dict[str, str] = Field(
        default_factory=dict, description="Hex with width (8'h3f); x/z kept"
    )


class Table(WaveResult):
    signals: list[str] = Field(default_factory=list, description="Resolved names, in order")
    clock: str | None = None
    sample: str | None = Field(None, description="'before' the edge (what flops see) or 'after'")
    rows: list[Row] = Field(default_factory=list)


class EventResult(WaveResult):
    condition: str = ""
    signals: list[str] = Field(default_factory=list)
    clock: str | None = None
    found: bool = False
    time: int | None = None
    cycle: int | None = None
    values: dict[str, str] = Field(default_factory=dict, description="Condition signals there")
    scanned: int = Field(0, description="Points evaluated (clock edges or change times)")


class Divergence(BaseModel):
    time: int | None = None
    cycle: int | None = None
    beat: int | None = Field(None, description="Handshake beat index (vector compare)")
    signal: str
    expected: str
    actual: str


class CompareResult(WaveResult):
    reference: str = ""
    mode: Literal["dump", "vectors", ""] = ""
    signals: list[str] = Field(default_factory=list)
    clock: str | None = None
    compared: int = Field(0, description="Samples (cycles, change points or beats) compared")
    mismatches: int = Field(0, description="Mismatching samples counted (up to the cap)")
    first: Divergence | None = None
    divergences: list[Divergence] = Field(default_factory=list, description="Earliest few")


class HandshakeStats(BaseModel):
    prefix: str
    valid: str
    ready: str | None
    data: str | None
    last: str | None
    cycles: int
    beats: int = Field(description="Cycles with tvalid && tready")
    packets: int = Field(description="Beats with tlast")
    stalls: int = Field(description="tvalid without tready (back-pressure)")
    bubbles: int = Field(description="tready without tvalid")
    idle: int
    unknown: int = Field(description="Cycles where tvalid or tready was x/z")
    longest_stall: int
    longest_stall_cycle: int | None = None
    first_beat_cycle: int | None = None
    last_beat_cycle: int | None = None
    violations: int = Field(
        0, description="Stalled beats where tvalid dropped or tdata changed before tready"
    )
    first_violation_cycle: int | None = None


class HandshakeResult(WaveResult):
    clock: str | None = None
    start_cycle: int = 0
    end_cycle: int = 0
    interfaces: list[HandshakeStats] = Field(default_factory=list)


class ConeSignal(BaseModel):
    rtl: str = Field(description="Hierarchical name in the RTL")
    level: int = Field(description="0 = the failing signal, 1 = its direct drivers, ...")
    dump: str | None = Field(None, description="Name in the dump; None when not dumped")
    lines: list[str] = Field(
        default_factory=list,
        description="Source lines assigning it ('file.sv:12'; a called function as "
        "'file.sv:40-66 (function f)')",
    )


class InputBeat(BaseModel):
    port: str = Field(description="The design's input stream (the part before _tvalid)")
    beat: int = Field(description="Its beat number since the last reset release (0 = first)")
    cycle: int = Field(description="The clock edge that accepted it")
    values: dict[str, str] = Field(
        description="The stream's fields and the design's other inputs (its configuration) "
        "as they were on that edge"
    )


class ExplainResult(WaveResult):
    signal: str = ""
    notes: list[str] = Field(default_factory=list, description="What stands out, in words")
    clock: str | None = None
    time: int | None = Field(None, description="The mismatch time examined")
    cycle: int | None = None
    value: str | None = None
    expected: str | None = None
    changed_at: int | None = Field(None, description="When the signal took the value it has")
    changed_at_cycle: int | None = None
    previous_value: str | None = None
    first_mismatch: Divergence | None = Field(None, description="From the reference, if given")
    cone: list[ConeSignal] = Field(default_factory=list)
    window: Table | None = None
    handshakes: list[HandshakeStats] = Field(default_factory=list)
    inputs: list[InputBeat] = Field(
        default_factory=list,
        description="The last beats the design's input streams accepted up to the mismatch "
        "(sources needed), with its configuration inputs",
    )


class Toggle(BaseModel):
    name: str
    width: int
    changes: int


class SummaryResult(WaveResult):
    format: str = ""
    version: str = ""
    start: int = 0
    end: int = 0
    signals: int = 0
    nets: int = Field(0, description="Distinct nets (aliases collapsed)")
    scopes: list[str] = Field(default_factory=list, description="Top scopes")
    busiest: list[Toggle] = Field(default_factory=list)
    counted: int = Field(0, description="Nets whose changes were counted")


class RenderInfo(WaveResult):
    path: str | None = None
    format: str = ""
    width: int = 0
    height: int = 0
    signals: list[str] = Field(default_factory=list)
    start: int = 0
    end: int = 0
