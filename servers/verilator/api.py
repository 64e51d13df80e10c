"""Verilator as a plain Python API: lint and run_testbench (--binary --timing --assert)."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

from silicon_agent.servers.core import toolchain
from silicon_agent.servers.core.bounded import CallTimedOut
from silicon_agent.servers.core.models import Diagnostic, Severity, Status, ToolResult
from silicon_agent.servers.core.progress import Progress, no_progress
from silicon_agent.servers.core.runner import Limits, run_process
from silicon_agent.servers.core.sv.enrich import add_snippets, merge
from silicon_agent.servers.core.sv.flow import (
    WAVE_PLUSARG,
    SimulatorFlow,
    Sources,
    invalid_result,
    missing_tool_result,
    result_from,
    settle,
)
from silicon_agent.servers.core.sv.tool_messages import parse_verilator
from silicon_agent.servers.core.toolchain import Tool
from silicon_agent.servers.core.workspace import InvalidInput

BUILD_JOBS = "2"
# Options that change what Verilator predefines (--timing adds VERILATOR_TIMING).
PREDEFINE_OPTIONS = ("--timing", "--assert")
_DEFINE_LINE = re.compile(r"^`define\s+([A-Za-z_]\w*)(?:\s+(.*))?$")


@cache
def dumped_defines(binary: str, env: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """What this Verilator predefines, as it says itself (`verilator -E --dump-defines`)."""
    with tempfile.TemporaryDirectory() as scratch:
        empty = Path(scratch) / "empty.v"
        empty.write_text("")
        done = subprocess.run(
            [binary, "-E", "--dump-defines", *PREDEFINE_OPTIONS, str(empty)],
            capture_output=True,
            text=True,
            env={**os.environ, **dict(env)},
            timeout=60,
            check=False,
        )
    found = {}
    for line in done.stdout.splitlines():
        match = _DEFINE_LINE.match(line.strip())
        if match:
            found[match[1]] = (match[2] or "").strip()
    if done.returncode != 0 or "VERILATOR" not in found:
        raise RuntimeError(f"verilator --dump-defines failed: {done.stderr.strip()[:200]}")
    return found


LINT_TIMEOUT_S = 120.0


class Verilator(SimulatorFlow):
    name = "verilator"
    binds_wave_dump = True
    compile_timeout_s = 600.0

    @property
    def tool(self) -> Tool:
        return toolchain.verilator()

    @property
    def compile_env(self) -> Mapping[str, str]:  # type: ignore[override]
        return self.tool.env

    def predefines(self) -> dict[str, str]:
        tool = self.tool
        return dumped_defines(tool.path or "verilator", tuple(sorted(tool.env.items())))

    def _common(self, src: Sources) -> list[str]:
        argv: list[str] = []
        if src.top:
            argv += ["--top-module", src.top]
        for name, value in src.defines.items():
            argv.append(f"-D{name}={value}" if value != "" else f"-D{name}")
        for directory in src.include_dirs:
            argv.append(f"-I{directory}")
        return argv

    def compile_argv(self, src: Sources, out_dir: Path, waves: str) -> tuple[list[str], Path]:
        obj = out_dir / "obj"
        argv = [
            self.tool.path or "verilator",
            "--binary",
            *PREDEFINE_OPTIONS,
            "-Wno-fatal",
            "-Wno-MULTITOP",
            "-j",
            BUILD_JOBS,
            "--Mdir",
            str(obj),
            "-o",
            "sim",
            *self.tool.extra_args,
        ]
        if waves == "fst":
            argv.append("--trace-fst")
        elif waves == "vcd":
            argv.append("--trace")
        argv += self._common(src)
        argv += [str(p) for p in src.files]
        if waves != "none":
            argv.append(str(self.wave_dump_file(out_dir, src.top)))
        return argv, obj / "sim"

    def parse_compile(self, text: str) -> list[Diagnostic]:
        return parse_verilator(self.workspace, text)

    def run_argv(
        self, executable: Path, plusargs: list[str], waves: str, wave_path: Path
    ) -> list[str]:
        argv = [str(executable), *[f"+{arg}" for arg in plusargs]]
        if waves != "none":
            argv.append(f"+{WAVE_PLUSARG}={wave_path}")
        return argv

    async def lint(
        self,
        sources: Sequence[str],
        top: str | None = None,
        defines: Mapping[str, str] | None = None,
        include_dirs: Sequence[str] | None = None,
        progress: Progress = no_progress,
    ) -> ToolResult:
        """verilator --lint-only -Wall: every warning with its Verilator code and category."""
        started = time.monotonic()
        if not self.tool.available:
            return missing_tool_result(self.tool, toolchain.missing_tool_message(self.tool))
        try:
            src = self.check_sources(sources, defines, include_dirs, top)
        except InvalidInput as exc:
            return invalid_result(self.tool, exc)
        key = self.cache.key(
            tool_version=self.tool.version,
            operation="lint",
            options={"defines": src.defines, "top": src.top},
            files=src.inputs,
        )
        cached = self.cache.get(key, ToolResult)
        if cached is not None:
            cached.cache_hit = True
            cached.duration_s = time.monotonic() - started
            return cached
        await progress(0.1, "verilator: lint")
        scratch = self.workspace.new_scratch("lint")
        argv = [self.tool.path or "verilator", "--lint-only", "-Wall", *PREDEFINE_OPTIONS]
        argv += self._common(src) + [str(p) for p in src.files]
        outcome = await run_process(
            argv,
            cwd=self.workspace.root,
            scratch=scratch,
            readable=[self.workspace.root],
            timeout_s=LINT_TIMEOUT_S,
            env=self.tool.env,
            limits=Limits(cpu_s=int(LINT_TIMEOUT_S) + 10),
        )
        text = outcome.stdout + "\n" + outcome.stderr
        own = parse_verilator(self.workspace, text)
        failed = any(d.severity == Severity.ERROR for d in own) or outcome.timed_out
        try:
            report = await self.slang_report(src, LINT_TIMEOUT_S)
        except CallTimedOut:
            return self._compile_timeout(started, LINT_TIMEOUT_S)
        diagnostics = add_snippets(self.workspace, merge(own, report.diagnostics, failed))
        errors = [d for d in diagnostics if d.severity == Severity.ERROR]
        warnings = [d for d in diagnostics if d.severity == Severity.WARNING]
        status = (
            Status.TIMEOUT
            if outcome.timed_out
            else (Status.COMPILE_FAIL if failed else Status.PASS)
        )
        result = result_from(
            outcome,
            self.tool,
            started,
            text,
            status=status,
            summary=f"{len(errors)} errors, {len(warnings)} warnings",
            diagnostics=diagnostics,
        )
        if status in (Status.PASS, Status.COMPILE_FAIL):
            settle(self.cache, key, result, self.workspace)
        return result
