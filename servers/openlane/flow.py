"""run_flow: OpenLane 2 as a long job; progress from the step folders as they appear."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.progress import Progress, no_progress
from silicon_agent.servers.core.runner import Limits, run_process
from silicon_agent.servers.core.workspace import InvalidInput, Workspace

from .environment import check_environment, openlane_executable, pdk_root
from .models import FlowResult, InputProblem
from .reports import RunReader, step_folders

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,99}$")
CLASSIC_STEPS = 78  # steps of the Classic flow: the denominator of progress
POLL_S = 2.0
MAX_FLOW_S = 7 * 24 * 3600.0


def _refused(exc: InvalidInput) -> FlowResult:
    return FlowResult(
        status=Status.INVALID_INPUT,
        summary=str(exc),
        error=InputProblem(message=str(exc), argument=exc.argument, hint=exc.hint),
    )


def _name(value: str | None, argument: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not _NAME.match(value):
        raise InvalidInput(
            f"{argument}: '{value}' is not a step id or tag (letters, digits, . _ -)",
            argument=argument,
        )
    return value


async def watch_steps(
    run_dir: Path, progress: Progress, seen: list[str], poll_s: float = POLL_S
) -> None:
    """Report each new `NN-step` folder OpenLane creates; runs until cancelled."""
    while True:
        await asyncio.sleep(poll_s)
        if not run_dir.is_dir():
            continue
        steps = [s.folder for s in step_folders(run_dir)]
        if steps and steps != seen:
            seen[:] = steps
            await progress(min(0.99, len(steps) / CLASSIC_STEPS), f"OpenLane step {steps[-1]}")


class FlowRunner:
    def __init__(self, workspace: Workspace):
        self.workspace = workspace

    async def run_flow(
        self,
        design_dir: str,
        config: str = "config.json",
        to_step: str | None = None,
        from_step: str | None = None,
        tag: str | None = None,
        timeout_s: float = 24 * 3600.0,
        progress: Progress = no_progress,
    ) -> FlowResult:
        started = time.monotonic()
        try:
            design = self.workspace.resolve(design_dir, argument="design_dir", kind="dir")
            config_path = self.workspace.resolve(
                config if Path(config).is_absolute() else str(design / config),
                argument="config",
            )
            to_id = _name(to_step, "to_step")
            from_id = _name(from_step, "from_step")
            run_tag = _name(tag, "tag") or time.strftime("sa-%Y%m%d-%H%M%S")
            if not isinstance(timeout_s, int | float) or not 0 < timeout_s <= MAX_FLOW_S:
                raise InvalidInput(
                    f"timeout_s: {timeout_s} is not in (0, 7 days]", argument="timeout_s"
                )
        except InvalidInput as exc:
            return _refused(exc)
        environment = await check_environment(self.workspace)
        openlane = openlane_executable()
        root = pdk_root()
        if not environment.openlane_ready or openlane is None or root is None:
            return FlowResult(
                status=Status.TOOL_ERROR,
                summary=environment.summary,
                error=InputProblem(
                    message="OpenLane cannot run here: missing "
                    + ", ".join(environment.missing_for_openlane),
                    hint="Install what `environment.tools[*].install` names, or use "
                    "synthesize for area and timing estimates without OpenLane.",
                ),
                environment=environment,
                duration_s=time.monotonic() - started,
            )
        runs = design / "runs"
        runs.mkdir(exist_ok=True)
        run_dir = runs / run_tag
        argv = [str(openlane), "--run-tag", run_tag, "--pdk-root", str(root), "--manual-pdk"]
        if to_id:
            argv += ["--to", to_id]
        if from_id:
            argv += ["--from", from_id]
        argv.append(str(config_path))
        seen: list[str] = []

        watcher = asyncio.get_running_loop().create_task(watch_steps(run_dir, progress, seen))
        try:
            outcome = await run_process(
                argv,
                cwd=design,
                scratch=runs,
                readable=[self.workspace.root, root],
                timeout_s=float(timeout_s),
                limits=Limits(cpu_s=int(timeout_s) * 4 + 60, memory_bytes=32 << 30),
            )
        finally:
            watcher.cancel()
        report = RunReader(self.workspace).read(str(run_dir)) if run_dir.is_dir() else None
        ok = outcome.exit_code == 0 and not outcome.timed_out
        status = Status.PASS if ok else (Status.TIMEOUT if outcome.timed_out else Status.TOOL_ERROR)
        return FlowResult(
            status=status,
            summary=(report.summary if report else "OpenLane left no run folder")
            + ("" if ok else f" (openlane exit {outcome.exit_code})"),
            run_dir=self.workspace.relative(run_dir),
            tag=run_tag,
            exit_code=outcome.exit_code,
            timed_out=outcome.timed_out,
            duration_s=time.monotonic() - started,
            steps_seen=[s.folder for s in report.steps] if report else seen,
            report=report,
            log_tail="\n".join((outcome.stdout + outcome.stderr).splitlines()[-40:]),
            sandbox=outcome.sandbox,
        )
