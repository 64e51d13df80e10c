"""The trace judge's wire models: which DUT output streams a run_testbench traces, and the
expected beats it compares them with. Neutral, so the simulator servers (which judge) and the
block registry (which names the streams and writes the expected beats) share one definition
without the registry importing server code."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_STREAMS = 8
Identifier = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=64)]
InstancePath = Annotated[
    str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){0,7}$", max_length=256)
]


class TraceStream(BaseModel):
    """One output stream of the DUT: its port names, and where its expected beats come from."""

    model_config = ConfigDict(extra="forbid")

    name: Identifier = Field(description="key of this stream in the expected-beats file")
    data: Identifier = Field(description="data port")
    valid: Identifier | None = Field(None, description="valid port; none: a beat every edge")
    ready: Identifier | None = Field(None, description="ready port; none: always ready")
    last: Identifier | None = None
    user: Identifier | None = None
    same_as: Identifier | None = Field(
        None, description="expect the beats another traced stream accepted (a FIFO's input)"
    )
    complete: bool = Field(
        True, description="the beats after the last reset must be all the expected beats"
    )
    reference_only: bool = Field(
        False, description="recorded only, as what a same_as stream is judged against"
    )

    @property
    def from_file(self) -> bool:
        return not self.reference_only and self.same_as is None


class TraceSpec(BaseModel):
    """What the server traces in a run_testbench and what it compares the trace with."""

    model_config = ConfigDict(extra="forbid")

    dut: InstancePath = Field(description="DUT instance path below the testbench top")
    clock: Identifier = Field(description="DUT clock port; beats are taken at its rising edge")
    reset: Identifier | None = Field(None, description="DUT reset port; a reset starts a pass")
    reset_active_low: bool = True
    streams: list[TraceStream] = Field(min_length=1, max_length=MAX_STREAMS)
    expected: str | None = Field(
        None,
        description="workspace path of the expected-beats JSON; read by the server only, so "
        "keep it where the sandboxed run cannot read it (e.g. a 0700 folder)",
    )

    @model_validator(mode="after")
    def _consistent(self) -> TraceSpec:
        names = [s.name for s in self.streams]
        if len(set(names)) != len(names):
            raise ValueError("stream names repeat")
        for s in self.streams:
            if s.same_as is not None and (s.same_as not in names or s.same_as == s.name):
                raise ValueError(f"stream {s.name}: same_as names no other traced stream")
        if self.expected is None and any(s.from_file for s in self.streams):
            raise ValueError("expected is needed for streams without same_as")
        return self


class ExpectedStream(BaseModel):
    """The expected beats of one stream, column by column (hex data, 0/1 last, hex user);
    a missing column is not compared."""

    model_config = ConfigDict(extra="forbid")

    data: list[str]
    last: list[int | None] | None = None
    user: list[str | None] | None = None

    @model_validator(mode="after")
    def _same_length(self) -> ExpectedStream:
        for column in (self.last, self.user):
            if column is not None and len(column) != len(self.data):
                raise ValueError("columns differ in length")
        return self


class ExpectedBeats(BaseModel):
    model_config = ConfigDict(extra="forbid")

    streams: dict[str, ExpectedStream]
