"""What the per-layout readers (OpenLane 1 runs, Caravel signoff folders) need from the run
reader: confined file reads that leave a note instead of raising, and the shared table
parsers. A protocol, so `reports.py` imports the layout readers and none of them imports it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from .metrics import MetricTable
from .models import RunSummary


class ReportReader(Protocol):
    def shown(self, path: Path) -> str: ...

    def read_text(self, path: Path, out: RunSummary, *, record: bool = True) -> str | None: ...

    def try_load(self, out: RunSummary, path: Path, loader: Callable[[Path], Any]) -> Any: ...

    def metrics(self, out: RunSummary, path: Path) -> MetricTable | None: ...

    def sta_table(self, path: Path, out: RunSummary) -> None: ...

    def lvs(self, path: Path, out: RunSummary) -> None: ...

    def corner(self, out: RunSummary, name: str, source: str, **figures: Any) -> None: ...
