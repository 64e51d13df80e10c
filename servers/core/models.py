"""Result and diagnostic models shared by every server: the wire contract of a verdict."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class Status(StrEnum):
    PASS = "PASS"
    COMPILE_FAIL = "COMPILE_FAIL"
    SIM_FAIL = "SIM_FAIL"
    TIMEOUT = "TIMEOUT"
    TOOL_ERROR = "TOOL_ERROR"
    INVALID_INPUT = "INVALID_INPUT"


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


class Category(StrEnum):
    SYNTAX_ERROR = "SYNTAX_ERROR"
    UNDECLARED_IDENTIFIER = "UNDECLARED_IDENTIFIER"
    MISSING_MODULE = "MISSING_MODULE"
    PORT_MISMATCH = "PORT_MISMATCH"
    WIDTH_MISMATCH = "WIDTH_MISMATCH"
    MULTIPLE_DRIVERS = "MULTIPLE_DRIVERS"
    LATCH_INFERRED = "LATCH_INFERRED"
    UNSUPPORTED_CONSTRUCT = "UNSUPPORTED_CONSTRUCT"
    SIMULATOR_LIMITATION = "SIMULATOR_LIMITATION"
    ASSERTION_FAILED = "ASSERTION_FAILED"
    SIM_MISMATCH = "SIM_MISMATCH"
    FORBIDDEN_CONSTRUCT = "FORBIDDEN_CONSTRUCT"
    TOOL_CRASH = "TOOL_CRASH"
    TIMEOUT = "TIMEOUT"
    INVALID_INPUT = "INVALID_INPUT"
    LINT = "LINT"
    OTHER = "OTHER"


class Diagnostic(BaseModel):
    """One finding, located as precisely as any of the tools knows it."""

    model_config = ConfigDict(extra="forbid")

    severity: Severity
    category: Category
    code: str | None = Field(
        None, description="Tool-specific code, e.g. WIDTHTRUNC or slang's option"
    )
    file: str | None = Field(None, description="Workspace-relative path")
    line: int | None = None
    column: int | None = None
    message: str
    snippet: str | None = Field(None, description="Lines around the location; '>' marks the line")
    hint: str | None = Field(None, description="What to change, phrased for an LLM to act on")
    source: str | None = Field(
        None, description="Which tool reported it (iverilog, verilator, slang)"
    )


class Mismatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    time: str | None = None
    cycle: int | None = None
    signal: str | None = None
    expected: str | None = None
    actual: str | None = None


class TraceCheck(BaseModel):
    """The server's own verdict from its trace of the DUT's output beats (hidden-asset runs)."""

    model_config = ConfigDict(extra="forbid")

    passed: bool = Field(description="every traced beat matched the server's expected beats")
    agrees: bool = Field(description="false: it disagrees with the testbench, verdict withheld")
    beats: int = Field(description="accepted output beats traced")
    mismatch_count: int
    first_mismatch: Mismatch | None = None
    summary: str = ""


class ToolResult(BaseModel):
    """The verdict of one tool call. Every field is filled by the server, never by the design."""

    model_config = ConfigDict(extra="forbid")

    status: Status
    summary: str = Field("", description="One line a person reads first")
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    first_mismatch: Mismatch | None = None
    mismatch_count: int | None = None
    samples: int | None = Field(None, description="Samples the testbench says it checked")
    exit_code: int | None = None
    timed_out: bool = False
    truncated: bool = False
    duration_s: float = 0.0
    tool: str
    tool_version: str | None = None
    cache_hit: bool = False
    sandbox: str | None = Field(None, description="How tool processes were confined")
    artifacts: dict[str, str] = Field(
        default_factory=dict, description="Workspace-relative paths: image, log, waves"
    )
    output_tail: str | None = Field(None, description="Last lines of the tool output")
    trace: TraceCheck | None = Field(
        None, description="The trace judge's verdict, when run_testbench was given a trace"
    )
