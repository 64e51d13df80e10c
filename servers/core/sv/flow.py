"""The compile -> simulate -> judge flow both simulators share; each supplies its commands."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..bounded import CallOutOfMemory, CallStopped, CallTimedOut, call_bounded, prewarm
from ..cache import CacheKey, ResultCache
from ..models import Category, Diagnostic, Severity, Status, ToolResult
from ..progress import Progress, no_progress
from ..runner import Limits, ProcessOutcome, run_process
from ..toolchain import Tool
from ..workspace import (
    STATE_DIR,
    InvalidInput,
    Workspace,
    atomic_write,
    prune_oldest,
    remove_tree,
)
from . import inputs
from . import trace as trace_judge
from .design_rules import WAVE_DUMP_MODULE, is_data_file
from .enrich import add_snippets, merge
from .includes import declares_package, include_closure, is_regular_file
from .one_text import DesignText, preprocess
from .slang_check import SlangReport, analyze
from .tool_messages import limitations_as_warnings
from .verdict import VERDICT_LINES, VERDICT_PLUSARG, judge

WAVE_PLUSARG = "sa_waves"
_STRING_LITERAL = re.compile(r'"([^"\n]{1,400})"')
LOG_TAIL_LINES = 40
KEEP_BUILDS = 200
SIM_CWD = "cwd"  # the simulation's working directory inside its scratch


@dataclass
class Build:
    """A compiled simulation: what ran, what it said, where the result lives."""

    result: ToolResult
    executable: Path | None
    key: str


@dataclass
class Sources:
    files: list[Path]
    design: list[Path]
    defines: dict[str, str]
    include_dirs: list[Path]
    top: str | None
    includes: list[Path] = field(default_factory=list)
    # ROM images listed among the design: never compiled, only $readmem'd by literal path.
    data: list[Path] = field(default_factory=list)
    # Server modules elaborated as extra roots where the simulator does not bind them.
    roots: list[str] = field(default_factory=list)

    @property
    def inputs(self) -> list[Path]:
        """Everything whose content decides a build."""
        return [*self.files, *self.includes, *self.include_dirs, *self.data]

    @property
    def bench(self) -> list[Path]:
        design = set(self.design)
        return [p for p in self.files if p not in design]


def invalid_result(tool: Tool, exc: InvalidInput) -> ToolResult:
    return ToolResult(
        status=Status.INVALID_INPUT,
        summary=str(exc),
        diagnostics=[exc.diagnostic()],
        tool=tool.name,
        tool_version=tool.version,
    )


def _plusarg_values(plusargs: Sequence[str]) -> list[str]:
    return [arg.split("=", 1)[1] for arg in plusargs if "=" in arg]


def _plusarg_paths(plusargs: Sequence[str]) -> list[Path]:
    """Absolute paths named by plusargs (`+vectors=/ws/...`): a run may read those."""
    return [Path(v) for v in _plusarg_values(plusargs) if v.startswith("/")]


def error_result(
    tool: Tool, status: Status, category: Category, message: str, hint: str, **fields: object
) -> ToolResult:
    """A result that is one error of the suite's own (not a tool message)."""
    diagnostic = Diagnostic(
        severity=Severity.ERROR,
        category=category,
        message=message,
        hint=hint,
        source="silicon-agent",
    )
    return ToolResult(status=status, diagnostics=[diagnostic], tool=tool.name, **fields)  # type: ignore[arg-type]


def missing_tool_result(tool: Tool, message: str) -> ToolResult:
    return error_result(
        tool,
        Status.TOOL_ERROR,
        Category.TOOL_CRASH,
        message,
        "Install the tool (make setup does it) and call again.",
        summary=message,
    )


def tail(text: str, lines: int = LOG_TAIL_LINES) -> str:
    return "\n".join(text.splitlines()[-lines:])


def result_from(
    outcome: ProcessOutcome, tool: Tool, started: float, log_text: str, **fields: object
) -> ToolResult:
    """A ToolResult with the process facts filled in; the caller gives the verdict fields."""
    status = fields["status"]
    return ToolResult(
        exit_code=outcome.exit_code,
        timed_out=outcome.timed_out,
        truncated=outcome.truncated,
        duration_s=time.monotonic() - started,
        tool=tool.name,
        tool_version=tool.version,
        sandbox=outcome.sandbox,
        output_tail=tail(log_text) if status != Status.PASS else None,
        **fields,  # type: ignore[arg-type]
    )


def settle(cache: ResultCache, key: CacheKey, result: ToolResult, workspace: Workspace) -> None:
    """Cache a verdict, or withhold it when an input file was edited while the tool ran: the
    tool may have read a mix of old and new contents, and a design's checks may have seen
    other bytes than the compiler did, so such a result is neither cached nor a verdict."""
    changed = [workspace.relative(p) for p in cache.put(key, result)]
    if not changed:
        return
    names = ", ".join(changed)
    result.status = Status.INVALID_INPUT
    result.summary = f"{names} changed while {result.tool} ran; the verdict is withheld"
    result.diagnostics.insert(
        0,
        Diagnostic(
            severity=Severity.ERROR,
            category=Category.INVALID_INPUT,
            file=changed[0],
            message=f"{names} changed while the tool ran",
            hint="Call again once the files are saved and stable to get a verdict on them.",
            source="silicon-agent",
        ),
    )


class BuildRefused(Exception):
    """A build stage refused the design: its result says why, and no compiler verdict
    follows."""

    def __init__(self, result: ToolResult) -> None:
        super().__init__(result.summary)
        self.result = result


class SimulatorFlow(ABC):
    """Template of compile/simulate/run_testbench; subclasses give the tool commands."""

    name: str

    def __init__(self, workspace: Workspace):
        self.workspace = workspace
        self.cache = ResultCache(workspace, self.name)
        self._locks: dict[str, asyncio.Lock] = {}
        prewarm()

    # -- what a simulator supplies -------------------------------------------------------
    @property
    @abstractmethod
    def tool(self) -> Tool: ...

    @abstractmethod
    def compile_argv(self, src: Sources, out_dir: Path, waves: str) -> tuple[list[str], Path]:
        """The build command and the executable it leaves in out_dir."""

    @abstractmethod
    def parse_compile(self, text: str) -> list[Diagnostic]: ...

    @abstractmethod
    def run_argv(
        self, executable: Path, plusargs: list[str], waves: str, wave_path: Path
    ) -> list[str]: ...

    compile_env: Mapping[str, str] = {}
    compile_timeout_s: float = 300.0

    def predefines(self) -> dict[str, str]:
        """The macros the simulator defines on its own: the design text is preprocessed with
        exactly these, so an `ifdef on a tool name picks the branch this tool would."""
        return {}

    # -- shared steps -------------------------------------------------------------------
    def check_sources(
        self,
        sources: Sequence[str],
        defines: Mapping[str, str] | None,
        include_dirs: Sequence[str] | None,
        top: str | None,
    ) -> Sources:
        files = inputs.source_files(self.workspace, sources, "sources")
        dirs = inputs.include_dirs(self.workspace, include_dirs)
        self.workspace.check_state()
        return Sources(
            files=files,
            design=[],
            defines=inputs.defines(defines),
            include_dirs=dirs,
            top=inputs.top_module(top),
            includes=include_closure(self.workspace, files, dirs),
        )

    def wave_dump_file(self, out_dir: Path, top: str | None) -> Path:
        """A module that dumps every signal when +sa_waves=<path> is given."""
        body = (
            f"module {WAVE_DUMP_MODULE};\n"
            "  initial begin : sa_dump\n"
            "    string sa_path;\n"
            f'    if ($value$plusargs("{WAVE_PLUSARG}=%s", sa_path)) begin\n'
            "      $dumpfile(sa_path);\n"
            "      $dumpvars;\n"
            "    end\n"
            "  end\n"
            "endmodule\n"
        )
        if top is not None and self.binds_wave_dump:
            body += f"bind {top} {WAVE_DUMP_MODULE} sa_wave_dump_i();\n"
        path = out_dir / "sa_wave_dump.sv"
        atomic_write(path, body)
        return path

    binds_wave_dump: bool = False

    async def build(
        self,
        src: Sources,
        waves: str,
        progress: Progress,
        extra_key: Mapping[str, object] | None = None,
        timeout_s: float | None = None,
    ) -> Build:
        """Compile (or take the cached build); identical concurrent builds run once. The
        compiler and slang's analysis both stop at timeout_s (the call's limit), and at
        compile_timeout_s whatever the call says."""
        key = self._build_key(src, waves, extra_key)
        limit_s = min(self.compile_timeout_s, timeout_s or self.compile_timeout_s)
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            return await self._build(src, waves, progress, key, limit_s)

    def _analysis_stopped(self, started: float, limit_s: float, stop: CallStopped) -> ToolResult:
        """A result for slang's reading of the design stopped by a limit or a crash of its
        worker: the design, not the suite, asked for too much."""
        if not isinstance(stop, CallTimedOut):
            message = (
                f"slang's analysis of the sources needed more than {stop.limit_mb} MB"
                if isinstance(stop, CallOutOfMemory)
                else f"slang's analysis of the sources stopped: {stop}"
            )
            return error_result(
                self.tool,
                Status.COMPILE_FAIL,
                Category.UNSUPPORTED_CONSTRUCT,
                message,
                "The design expands to something huge or nests too deeply (macros that "
                "expand each other, a huge generate loop or array, a very long expression); "
                "shrink it.",
                summary=f"{self.name} compile stopped: {message}",
                tool_version=self.tool.version,
                duration_s=time.monotonic() - started,
            )
        message = f"slang's analysis of the sources ran past timeout_s={limit_s:g}"
        return error_result(
            self.tool,
            Status.TIMEOUT,
            Category.TIMEOUT,
            message,
            "The design takes too long to elaborate (a huge generate loop or array?); "
            "shrink it, or call again with a larger timeout_s.",
            summary=f"{self.name} compile stopped: {message}",
            timed_out=True,
            tool_version=self.tool.version,
            duration_s=time.monotonic() - started,
        )

    def slang_report(self, src: Sources, limit_s: float, **extra: object) -> Awaitable[SlangReport]:
        """slang's analysis of the sources in a worker process killed at limit_s: a hostile
        design (a 1000x1000 generate loop) would otherwise hold the call as long as it likes.
        `extra` goes to analyze as it is (it must pickle)."""
        return call_bounded(
            analyze,
            self.workspace,
            src.files,
            design=src.design,
            defines=src.defines,
            include_dirs=src.include_dirs,
            top=src.top,
            timeout_s=limit_s,
            **extra,
        )

    def _build_key(
        self, src: Sources, waves: str, extra_key: Mapping[str, object] | None
    ) -> CacheKey:
        options = {
            "defines": src.defines,
            "top": src.top,
            "waves": waves,
            "design": [self.workspace.relative(p) for p in src.design],
            "data": [self.workspace.relative(p) for p in src.data],
            "tool_args": list(self.tool.extra_args),
            **(extra_key or {}),
        }
        return self.cache.key(
            tool_version=self.tool.version,
            operation="build",
            options=options,
            files=src.inputs,
        )

    async def _build(
        self,
        src: Sources,
        waves: str,
        progress: Progress,
        key: CacheKey,
        limit_s: float,
    ) -> Build:
        """Compile with slang's diagnostics merged in, stage by stage: the cached build, the
        one design text, the top, the compiler beside slang, the verdict on its output. A
        stage that ends the build early (bad input, slang stopped, the design refused) leaves
        through one exit (`_build_stopped`) that removes the private build folder."""
        started = time.monotonic()
        cached = self._cached_build(key, started)
        if cached is not None:
            return cached
        # Build in a private directory and rename it into place, so that concurrent calls
        # (here or in another server process) never see or remove each other's files.
        final_dir = self.workspace.keep_dir("build", self.name) / key[:24]
        prune_oldest(final_dir.parent, KEEP_BUILDS)
        out_dir = final_dir.with_name(f"{final_dir.name}.tmp-{uuid.uuid4().hex[:8]}")
        out_dir.mkdir(parents=True)
        running: list[asyncio.Future[SlangReport]] = []
        try:
            await progress(0.05, f"{self.name}: checking sources with slang")
            design_text = await self._design_text(src, limit_s)
            compiled, text_names = self._stage_design_text(src, design_text, out_dir, started)
            slang_task = asyncio.ensure_future(
                self.slang_report(src, limit_s, design_text=design_text)
            )
            running.append(slang_task)
            if src.top is None and self.binds_wave_dump and waves != "none":
                # The wave dump is bound into the top module, so the top must be known first.
                tops = [t for t in (await slang_task).tops if t != WAVE_DUMP_MODULE]
                src.top = compiled.top = tops[0] if len(tops) == 1 else None
            argv, executable = self.compile_argv(compiled, out_dir, waves)
            await progress(0.15, f"{self.name}: compiling {len(src.files)} files")
            # slang runs beside the compiler: its findings are needed only once both are done.
            outcome = await run_process(
                argv,
                cwd=self.compile_cwd(out_dir),
                scratch=out_dir,
                readable=[self.workspace.root, *self._state_inputs(compiled.inputs)],
                hidden=[self.workspace.state_dir],
                timeout_s=limit_s,
                env=self.compile_env,
                limits=Limits(cpu_s=int(limit_s) + 10),
            )
            report: SlangReport = await slang_task
            self._slang_refusal(report, started)
        except BaseException as exc:
            for task in running:
                task.cancel()
            remove_tree(out_dir)
            stopped = self._build_stopped(exc, started, limit_s)
            if stopped is None:
                raise
            return Build(stopped, None, key)
        text = outcome.stdout + "\n" + outcome.stderr
        atomic_write(out_dir / "compile.log", text)
        failed = outcome.exit_code != 0 or outcome.timed_out or not executable.exists()
        own = limitations_as_warnings(self.parse_compile(text), failed)
        if design_text is not None:
            own = design_text.remap(own, text_names)
        diagnostics = add_snippets(self.workspace, merge(own, report.diagnostics, failed))
        crashed = (
            any(d.category == Category.TOOL_CRASH for d in own)
            or (outcome.signal is not None)
            or outcome.exit_code == 134
        )
        status, summary, diagnostics = self._compile_verdict(
            outcome, text, failed and crashed, failed, diagnostics, limit_s
        )
        executable = final_dir / executable.relative_to(out_dir)
        kept = status in (Status.PASS, Status.COMPILE_FAIL)
        if kept and not final_dir.exists():
            try:
                os.rename(out_dir, final_dir)
            except OSError:
                remove_tree(out_dir)
        else:
            remove_tree(out_dir)
        artifacts = {"compile_log": self.workspace.relative(final_dir / "compile.log")}
        if status == Status.PASS:
            artifacts["executable"] = self.workspace.relative(executable)
        result = result_from(
            outcome,
            self.tool,
            started,
            text,
            status=status,
            summary=summary,
            diagnostics=diagnostics,
            artifacts=artifacts,
        )
        if kept:
            self.cache.put(key, result)
        return Build(result, executable if status == Status.PASS else None, key)

    def _cached_build(self, key: CacheKey, started: float) -> Build | None:
        cached = self.cache.get(key, ToolResult)
        if cached is None:
            return None
        executable = (
            self.workspace.root / cached.artifacts["executable"]
            if ("executable" in cached.artifacts)
            else None
        )
        cached.cache_hit = True
        cached.duration_s = time.monotonic() - started
        return Build(cached, executable, key)

    def _build_stopped(
        self, exc: BaseException, started: float, limit_s: float
    ) -> ToolResult | None:
        """The one exit classification of a build stopped before the compiler's verdict: bad
        input, slang's analysis stopped, or the design refused (None: not ours, re-raised)."""
        if isinstance(exc, BuildRefused):
            return exc.result
        if isinstance(exc, InvalidInput):
            return invalid_result(self.tool, exc)
        if isinstance(exc, CallStopped):
            return self._analysis_stopped(started, limit_s, exc)
        return None

    def _stage_design_text(
        self, src: Sources, design_text: DesignText | None, out_dir: Path, started: float
    ) -> tuple[Sources, list[str]]:
        """The sources the compiler gets, with the one design text in place of the design
        files, and the text's names (BuildRefused when the text broke a rule)."""
        if design_text is None:
            return src, []
        if design_text.refused or design_text.errors:
            raise BuildRefused(self._refused(design_text, started))
        # The compiler gets the bytes the checks read, never the design files themselves.
        design_path = out_dir / "design.sv"
        atomic_write(design_path, design_text.text)
        # A testbench package goes ahead of the design text that imports it (a design may
        # not define one the testbench uses: slang_check refuses it).
        first = [p for p in src.bench if declares_package(p)]
        rest = [p for p in src.bench if p not in first]
        compiled = replace(src, files=[*first, design_path, *rest], design=[design_path])
        return compiled, [self.workspace.relative(design_path)]

    def _slang_refusal(self, report: SlangReport, started: float) -> None:
        """A slang error in the design text refuses it even where the simulator accepts the
        code: what slang does not bind, no reach check could have looked at."""
        if not (report.forbidden or report.design_errors):
            return
        what = " and ".join(
            f"{len(found)} {name}"
            for name, found in (
                ("forbidden constructs", report.forbidden),
                ("slang errors", report.design_errors),
            )
            if found
        )
        refused = [*report.forbidden, *report.design_errors]
        raise BuildRefused(self._refusal(what, refused, started))

    def _refusal(self, what: str, diagnostics: list[Diagnostic], started: float) -> ToolResult:
        """COMPILE_FAIL for design sources refused before (or beside) the compiler."""
        first = diagnostics[0]
        return ToolResult(
            status=Status.COMPILE_FAIL,
            summary=f"{what} in design sources; first: {first.file}:{first.line}: {first.message}",
            diagnostics=add_snippets(self.workspace, diagnostics),
            tool=self.name,
            tool_version=self.tool.version,
            duration_s=time.monotonic() - started,
        )

    def _compile_verdict(
        self,
        outcome: ProcessOutcome,
        text: str,
        crashed: bool,
        failed: bool,
        diagnostics: list[Diagnostic],
        limit_s: float,
    ) -> tuple[Status, str, list[Diagnostic]]:
        """The compiler's exit read as a status: stopped at the limit, crashed (not the
        design's fault), the design's errors, or compiled."""
        if outcome.timed_out:
            return (
                Status.TIMEOUT,
                f"{self.name} compile ran past timeout_s={limit_s:g} and was stopped",
                diagnostics,
            )
        if crashed:
            summary = (
                f"{self.name} crashed while compiling (exit {outcome.exit_code}); "
                "not a design error"
            )
            diagnostics = [d for d in diagnostics if d.category == Category.TOOL_CRASH] + [
                d for d in diagnostics if d.category != Category.TOOL_CRASH
            ]
            if not any(d.category == Category.TOOL_CRASH for d in diagnostics):
                diagnostics.insert(
                    0,
                    Diagnostic(
                        severity=Severity.ERROR,
                        category=Category.TOOL_CRASH,
                        message=f"{self.name} ended with exit {outcome.exit_code}",
                        hint="The tool crashed; try the other simulator.",
                        source=self.name,
                    ),
                )
            return Status.TOOL_ERROR, summary, diagnostics
        if failed:
            errors = [d for d in diagnostics if d.severity == Severity.ERROR]
            summary = f"{len(errors)} errors" + (
                f"; first: {errors[0].file}:{errors[0].line}: {errors[0].message}" if errors else ""
            )
            if not errors:
                diagnostics.append(
                    Diagnostic(
                        severity=Severity.ERROR,
                        category=Category.OTHER,
                        message=tail(text, 5)
                        or f"{self.name} failed with exit {outcome.exit_code}",
                        hint="Read the compile log artifact.",
                        source=self.name,
                    )
                )
            return Status.COMPILE_FAIL, summary, diagnostics
        warnings = sum(1 for d in diagnostics if d.severity == Severity.WARNING)
        return Status.PASS, f"compiled; {warnings} warnings", diagnostics

    async def _design_text(self, src: Sources, limit_s: float) -> DesignText | None:
        """The one design text, made in a worker killed at limit_s: a few macros that expand
        each other twice over make a short file preprocess for minutes into gigabytes."""
        if not src.design:
            return None
        predefines = await asyncio.to_thread(self.predefines)
        return await call_bounded(
            preprocess,
            self.workspace,
            src.design,
            predefines=predefines,
            defines=src.defines,
            include_dirs=src.include_dirs,
            data_files=src.data,
            timeout_s=limit_s,
        )

    def _refused(self, text: DesignText, started: float) -> ToolResult:
        """The design text broke a rule, or slang could not read it: no compiler runs."""
        diagnostics = text.refused or text.errors
        what = "forbidden constructs" if text.refused else "errors"
        return self._refusal(f"{len(diagnostics)} {what}", diagnostics, started)

    def compile_cwd(self, out_dir: Path) -> Path:
        """The compiler's working folder; a simulator that looks for includes there first
        gets a folder of its own (see Icarus)."""
        return self.workspace.root

    def _state_inputs(self, paths: Sequence[Path]) -> list[Path]:
        """The given paths that lie in the suite's state folder (a mutant copy, a vector
        set, a build): bound again over the folder that the sandbox shows empty."""
        found = []
        for path in paths:
            real = Path(os.path.realpath(path))
            if real.exists() and self.workspace.is_private(real):
                found.append(real)
        return found

    def _trace_expected(self, trace: trace_judge.TraceSpec | None) -> list[Path]:
        if trace is None or trace.expected is None:
            return []
        return [Path(os.path.realpath(self.workspace.root / trace.expected))]

    def sim_dir(self, label: str) -> Path:
        """A scratch directory whose SIM_CWD subdirectory (the simulation's cwd) shows the
        workspace entries as links, so a testbench's relative $readmemh paths work while
        writes stay in the scratch. The server's own files (log, waves, the runner's private
        directory) sit beside SIM_CWD, so no user entry, whatever its name, is ever written,
        replaced or chowned through a link."""
        scratch = self.workspace.new_scratch(label)
        cwd = scratch / SIM_CWD
        cwd.mkdir()
        for entry in self.workspace.root.iterdir():
            if entry.name != STATE_DIR:
                (cwd / entry.name).symlink_to(entry)
        return scratch

    def runtime_inputs(self, sources: Sequence[Path], plusargs: Sequence[str]) -> list[Path]:
        """Files a simulation may read besides its sources ($readmemh targets, plusarg paths),
        so a changed vector file is never answered from the cache."""
        found: list[Path] = []
        candidates: list[str] = []
        for path in sources:
            candidates += _STRING_LITERAL.findall(path.read_text(errors="replace"))
        candidates += _plusarg_values(plusargs)
        for text in candidates:
            try:
                resolved = self.workspace.resolve(text, must_exist=True, kind="any")
            except InvalidInput:
                continue
            if resolved == self.workspace.root or STATE_DIR in resolved.parts:
                continue
            # A named pipe or device must never be opened here: it would block the server.
            if is_regular_file(resolved) or resolved.is_dir():
                found.append(resolved)
        return sorted(set(found))

    async def execute(
        self,
        executable: Path,
        plusargs: list[str],
        timeout_s: float,
        waves: str,
        progress: Progress,
        trace: trace_judge.TraceSpec | None = None,
    ) -> ToolResult:
        """Run a built simulation and judge it (and its trace, when one is asked for)."""
        started = time.monotonic()
        scratch = self.sim_dir(self.name)
        wave_path = scratch / f"waves.{waves}"
        trace_path = scratch / f"sa-trace-{uuid.uuid4().hex[:12]}.txt"
        # The run's verdict secret: only the testbench's harness reads plusargs (a design may
        # not), so only its lines carry it (see verdict).
        key = secrets.token_hex(16)
        plusargs = [f"{VERDICT_PLUSARG}={key}", *plusargs]
        if trace is not None:
            plusargs = [*plusargs, f"{trace_judge.TRACE_PLUSARG}={trace_path}"]
        argv = self.run_argv(executable, plusargs, waves, wave_path)
        await progress(0.5, f"{self.name}: simulating (limit {timeout_s:.0f} s)")
        given = [executable.parent, *(_plusarg_paths(plusargs))]
        outcome: ProcessOutcome = await run_process(
            argv,
            cwd=scratch / SIM_CWD,
            scratch=scratch,
            readable=[self.workspace.root, *self._state_inputs(given)],
            # The suite's state shows empty but for this run's own parts, and the trace's
            # expected beats never show, whatever uid the run gets.
            hidden=[self.workspace.state_dir, *self._trace_expected(trace)],
            timeout_s=timeout_s,
            env=self.compile_env,
            limits=Limits(cpu_s=int(timeout_s) + 10),
            keep=VERDICT_LINES,
        )
        log = scratch / "sim.log"
        atomic_write(log, outcome.stdout + ("\n" + outcome.stderr if outcome.stderr else ""))
        verdict = judge(self.workspace, outcome, outcome.kept_lines, self.name, key)
        artifacts = {"log": self.workspace.relative(log)}
        # A link the simulation left in place of the dump is not an artifact of this run.
        if waves != "none" and wave_path.is_file() and not wave_path.is_symlink():
            artifacts["waves"] = self.workspace.relative(wave_path)
        await progress(0.95, f"{self.name}: {verdict.status}")
        result = result_from(
            outcome,
            self.tool,
            started,
            outcome.stdout,
            status=verdict.status,
            summary=verdict.summary,
            diagnostics=add_snippets(self.workspace, verdict.diagnostics),
            first_mismatch=verdict.first_mismatch,
            mismatch_count=verdict.mismatch_count,
            samples=verdict.samples,
            artifacts=artifacts,
        )
        if trace is not None:
            trace_judge.judge_run(self.workspace, trace, trace_path, result)
        return result

    async def run_testbench(
        self,
        design: Sequence[str],
        testbench: Sequence[str],
        top: str | None = None,
        defines: Mapping[str, str] | None = None,
        include_dirs: Sequence[str] | None = None,
        plusargs: Sequence[str] | None = None,
        timeout_s: float = 60.0,
        waves: inputs.Waves = "none",
        progress: Progress = no_progress,
        trace: trace_judge.TraceSpec | Mapping[str, object] | None = None,
    ) -> ToolResult:
        """Compile design + testbench, simulate, and judge; design files are checked for
        anything that could forge the verdict. With `trace`, the server also traces the DUT's
        output beats and withholds the verdict when they disagree with the testbench's."""
        started = time.monotonic()
        if not self.tool.available:
            from ..toolchain import missing_tool_message

            return missing_tool_result(self.tool, missing_tool_message(self.tool))
        try:
            given = inputs.source_files(self.workspace, design, "design")
            data = [p for p in given if is_data_file(p)]
            design_files = [p for p in given if not is_data_file(p)]
            for path in data:
                # The state folder holds what the server alone reads (the trace's expected
                # beats, caches): a ROM image, or a link named as one, never comes from there.
                if self.workspace.is_private(path):
                    raise InvalidInput(
                        "design: a ROM image lies in, or links into, the suite's state folder",
                        argument="design",
                        hint="List a ROM image file of your own, outside .silicon-agent/.",
                    )
            if not design_files:
                raise InvalidInput(
                    "design: no SystemVerilog file among the design files", argument="design"
                )
            bench_files = inputs.source_files(self.workspace, testbench, "testbench")
            dirs = inputs.include_dirs(self.workspace, include_dirs)
            src = Sources(
                files=[*design_files, *bench_files],
                design=design_files,
                data=data,
                defines=inputs.defines(defines),
                include_dirs=dirs,
                top=inputs.top_module(top),
                includes=include_closure(self.workspace, [*design_files, *bench_files], dirs),
            )
            args = inputs.plusargs(plusargs)
            limit = inputs.timeout(timeout_s)
            wave_format = inputs.waves(waves)
            spec = trace_judge.check_spec(self.workspace, trace, src.top)
            self.workspace.check_state()
        except InvalidInput as exc:
            return invalid_result(self.tool, exc)
        hidden: list[Path] = []
        if spec is not None and src.top is not None:
            module, root = trace_judge.module_file(
                self.workspace, spec, src.top, self.binds_wave_dump
            )
            src.files.append(module)
            src.roots.append(root)
            if spec.expected is not None:
                hidden.append(self.workspace.resolve(spec.expected, argument="trace.expected"))
        run_key = self.cache.key(
            tool_version=self.tool.version,
            operation="run_testbench",
            options={
                "defines": src.defines,
                "top": src.top,
                "plusargs": args,
                "waves": wave_format,
                "design": [self.workspace.relative(p) for p in src.design],
                "data": [self.workspace.relative(p) for p in src.data],
                "tool_args": list(self.tool.extra_args),
                "trace": spec.model_dump() if spec is not None else None,
            },
            files=[
                *src.inputs,
                *self.runtime_inputs([*src.files, *src.includes], args),
                *hidden,
            ],
        )
        cached = self.cache.get(run_key, ToolResult)
        if cached is not None:
            cached.cache_hit = True
            cached.duration_s = time.monotonic() - started
            return cached
        built = await self.build(src, wave_format, progress, timeout_s=limit)
        if built.executable is None:
            return built.result
        result = await self.execute(
            built.executable, args, limit, wave_format, progress, trace=spec
        )
        compile_warnings = [d for d in built.result.diagnostics if d.severity != Severity.ERROR]
        result.diagnostics = result.diagnostics + compile_warnings
        result.duration_s = time.monotonic() - started
        result.artifacts = {**built.result.artifacts, **result.artifacts}
        if result.status in (Status.PASS, Status.SIM_FAIL):
            settle(self.cache, run_key, result, self.workspace)
        return result
