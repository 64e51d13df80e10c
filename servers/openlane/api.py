"""The openlane server as a plain Python API: environment, config, flow, reports, advice,
synthesis."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from silicon_agent.servers.core.workspace import Workspace

from . import advice
from .config_gen import ConfigWriter
from .environment import check_environment
from .flow import FlowRunner
from .models import (
    AdviceResult,
    EnvironmentReport,
    RunSummary,
    SynthResult,
)
from .reports import RunReader
from .synth import Synthesizer


class OpenLaneApi:
    def __init__(self, workspace: Workspace):
        self.workspace = workspace
        self.configs = ConfigWriter(workspace)
        self.flows = FlowRunner(workspace)
        self.reader = RunReader(workspace)
        self.synth = Synthesizer(workspace)
        # The tools whose parameters live in their own module are that module's methods.
        self.generate_config = self.configs.generate
        self.run_flow = self.flows.run_flow
        self.synthesize = self.synth.synthesize

    async def check_environment(self) -> EnvironmentReport:
        return await check_environment(self.workspace)

    def read_reports(self, run_dir: str) -> RunSummary:
        return self.reader.read(run_dir)

    def advise(
        self,
        run_dir: str | None = None,
        summary: Mapping[str, Any] | None = None,
        area_budget_um2: float | None = None,
    ) -> AdviceResult:
        if area_budget_um2 is not None and (
            isinstance(area_budget_um2, bool)
            or not isinstance(area_budget_um2, int | float)
            or area_budget_um2 <= 0
        ):
            return advice.refused(
                f"area_budget_um2: {area_budget_um2!r} is not a positive number",
                "area_budget_um2",
            )
        if (run_dir is None) == (summary is None):
            return advice.refused(
                "pass exactly one of run_dir or summary",
                "run_dir",
                "run_dir: an OpenLane run folder; summary: a read_reports or synthesize result.",
            )
        if run_dir is not None:
            read = self.reader.read(run_dir)
            if read.error is not None:
                return advice.refused(read.error.message, "run_dir", read.error.hint)
            return advice.advise(read, area_budget_um2)
        data = dict(summary or {})
        model: type[RunSummary] | type[SynthResult] = (
            SynthResult if "cell_types" in data or "fmax_mhz" in data else RunSummary
        )
        try:
            parsed = model.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            return advice.refused(
                f"summary: not a {model.__name__}: {where}: {first['msg']}",
                "summary",
                "Pass the result of read_reports or synthesize unchanged.",
            )
        return advice.advise(parsed, area_budget_um2)
