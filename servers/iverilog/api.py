"""Icarus Verilog (-g2012) as a plain Python API: compile, simulate, run_testbench."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from silicon_agent.servers.core import toolchain
from silicon_agent.servers.core.models import Diagnostic, Status, ToolResult
from silicon_agent.servers.core.progress import Progress, no_progress
from silicon_agent.servers.core.sv import inputs
from silicon_agent.servers.core.sv.flow import (
    WAVE_DUMP_MODULE,
    WAVE_PLUSARG,
    SimulatorFlow,
    Sources,
    invalid_result,
    missing_tool_result,
)
from silicon_agent.servers.core.sv.tool_messages import parse_iverilog
from silicon_agent.servers.core.toolchain import Tool
from silicon_agent.servers.core.workspace import InvalidInput


class Icarus(SimulatorFlow):
    name = "iverilog"

    @property
    def tool(self) -> Tool:
        return toolchain.iverilog()

    def predefines(self) -> dict[str, str]:
        # ivlpp defines only this one (the others are for synthesis and Verilog-AMS modes).
        return {"__ICARUS__": "1"}

    def compile_argv(self, src: Sources, out_dir: Path, waves: str) -> tuple[list[str], Path]:
        image = out_dir / "sim.vvp"
        dump = self.wave_dump_file(out_dir, src.top)
        # An `include is looked for beside the file that includes it first, as the one-text
        # checks resolve it; the compiler's cwd (searched next) is a folder of its own.
        argv = [self.tool.path or "iverilog", "-g2012", "-grelative-include", "-o", str(image)]
        if src.top:
            argv += ["-s", src.top, "-s", WAVE_DUMP_MODULE]
        for root in src.roots:
            argv += ["-s", root]
        for name, value in src.defines.items():
            argv.append(f"-D{name}={value}" if value != "" else f"-D{name}")
        for directory in src.include_dirs:
            argv.append(f"-I{directory}")
        argv += [str(p) for p in src.files] + [str(dump)]
        return argv, image

    def compile_cwd(self, out_dir: Path) -> Path:
        # Icarus looks for an `include in its cwd before the -I folders: an empty folder, so
        # a file planted at the workspace root cannot stand in for a testbench's include.
        cwd = out_dir / "cwd"
        cwd.mkdir(exist_ok=True)
        return cwd

    def parse_compile(self, text: str) -> list[Diagnostic]:
        return parse_iverilog(self.workspace, text)

    def run_argv(
        self, executable: Path, plusargs: list[str], waves: str, wave_path: Path
    ) -> list[str]:
        # -fst is one of vvp's extended arguments: it must follow the image.
        argv = [toolchain.vvp().path or "vvp", "-N", str(executable)]
        if waves == "fst":
            argv.append("-fst")
        argv += [f"+{arg}" for arg in plusargs]
        if waves != "none":
            argv.append(f"+{WAVE_PLUSARG}={wave_path}")
        return argv

    async def compile(
        self,
        sources: Sequence[str],
        top: str | None = None,
        defines: Mapping[str, str] | None = None,
        include_dirs: Sequence[str] | None = None,
        progress: Progress = no_progress,
    ) -> ToolResult:
        """Compile to a vvp image; artifacts['image'] is what simulate takes."""
        if not self.tool.available:
            return missing_tool_result(self.tool, toolchain.missing_tool_message(self.tool))
        try:
            src = self.check_sources(sources, defines, include_dirs, top)
        except InvalidInput as exc:
            return invalid_result(self.tool, exc)
        built = await self.build(src, "none", progress)
        result = built.result.model_copy(deep=True)
        if "executable" in result.artifacts:
            result.artifacts["image"] = result.artifacts["executable"]
        return result

    async def simulate(
        self,
        image: str,
        plusargs: Sequence[str] | None = None,
        timeout_s: float = 60.0,
        waves: inputs.Waves = "none",
        progress: Progress = no_progress,
    ) -> ToolResult:
        """Run a compiled image and judge its output (use run_testbench for a verdict that
        also checks the design sources)."""
        started = time.monotonic()
        if not toolchain.vvp().available:
            return missing_tool_result(toolchain.vvp(), toolchain.missing_tool_message(self.tool))
        try:
            path = self.workspace.resolve(image, argument="image")
            with path.open("rb") as handle:
                first = handle.readline(256)
            if not (first.startswith(b"#!") and b"vvp" in first):
                raise InvalidInput(
                    f"image: '{image}' is not a vvp image",
                    argument="image",
                    hint="Pass artifacts.image from a compile result.",
                )
            args = inputs.plusargs(plusargs)
            limit = inputs.timeout(timeout_s)
            wave_format = inputs.waves(waves)
        except InvalidInput as exc:
            return invalid_result(self.tool, exc)
        result = await self.execute(path, args, limit, wave_format, progress)
        result.duration_s = time.monotonic() - started
        if result.status == Status.PASS:
            result.summary += (
                " (image judged on its output only; run_testbench also checks the design)"
            )
        return result
