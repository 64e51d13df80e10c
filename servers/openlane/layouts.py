"""What read_reports was given: the layouts it knows, told apart by the files each one holds.

Only names are looked at here (no file is opened); a layout's reader then says what it read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .models import Layout

STEP_DIR = re.compile(r"^(\d+)-(.+)$")
# The view folders OpenLane 2 / LibreLane write beside metrics.* in final/ (DesignFormat ids).
FINAL_VIEWS = frozenset(
    {"def", "gds", "json_h", "klayout_gds", "lef", "lib", "mag", "mag_gds", "nl", "odb", "pnl"}
    | {"sdc", "sdf", "spef", "spice", "vh"}
)
CARAVEL_MARKERS = ("OPENLANE_VERSION", "PDK_SOURCES", "manufacturability.rpt", "openlane-signoff")
METRIC_FILES = ("metrics.json", "metrics.csv")
MAX_SEEN = 25

LOOKED_FOR = (
    "an OpenLane 2 / LibreLane run folder (runs/<tag>: NN-<step>/ folders, resolved.json, "
    "final/metrics.json)",
    "an OpenLane 2 / LibreLane final/ folder (metrics.json or metrics.csv beside view folders "
    "such as gds/, def/, nl/)",
    "an OpenLane 1 run folder (runs/<tag>: reports/metrics.csv, openlane.log, or config.tcl "
    "with results/)",
    "a Caravel signoff/<design>/ folder (metrics.csv with OPENLANE_VERSION, PDK_SOURCES, "
    "manufacturability.rpt or openlane-signoff/)",
    "a metrics.csv or metrics.json file",
)


@dataclass(frozen=True)
class Detection:
    layout: Layout
    evidence: tuple[str, ...]

    def describe(self) -> str:
        names = {
            "openlane2_run": "OpenLane 2 / LibreLane run folder",
            "openlane2_final": "OpenLane 2 / LibreLane final/ folder",
            "openlane1_run": "OpenLane 1 run folder",
            "caravel_signoff": "Caravel signoff folder",
            "metrics_file": "metrics file",
        }
        return f"{names[self.layout]} (found {', '.join(self.evidence)})"


def _present(root: Path, names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(n + ("/" if (root / n).is_dir() else "") for n in names if (root / n).exists())


def detect(root: Path) -> Detection | None:
    """The layout of a file or folder, or None when it is none of LOOKED_FOR."""
    if root.is_file():
        if root.name.endswith((".csv", ".json")) and "metrics" in root.name.lower():
            return Detection("metrics_file", (root.name,))
        return None
    if not root.is_dir():
        return None
    metrics = _present(root, (*METRIC_FILES, "final_summary_report.csv"))
    caravel = _present(root, CARAVEL_MARKERS)
    if caravel and (metrics or "openlane-signoff/" in caravel):
        return Detection("caravel_signoff", (*metrics, *caravel))
    steps = sorted(p.name + "/" for p in root.iterdir() if STEP_DIR.match(p.name) and p.is_dir())
    ol2 = _present(root, ("resolved.json", "final/metrics.json", "final/metrics.csv"))
    if ol2 or steps:
        return Detection("openlane2_run", (*ol2, *steps[:3]))
    views = tuple(sorted(v + "/" for v in FINAL_VIEWS if (root / v).is_dir()))
    if any(m in METRIC_FILES for m in metrics) and (views or root.name == "final"):
        return Detection("openlane2_final", (*metrics, *views[:4]))
    ol1 = _present(
        root, ("reports/metrics.csv", "reports/final_summary_report.csv", "openlane.log")
    )
    if ol1 and (root / "reports").is_dir() or "final_summary_report.csv" in metrics:
        return Detection("openlane1_run", ol1 or metrics)
    if (root / "config.tcl").is_file() and (root / "results").is_dir():
        return Detection("openlane1_run", ("config.tcl", "results/"))
    return None


def seen(root: Path) -> list[str]:
    """What a refused path holds, for the refusal message."""
    if not root.is_dir():
        return [root.name]
    entries = sorted(p.name + ("/" if p.is_dir() else "") for p in root.iterdir())
    more = len(entries) - MAX_SEEN
    return entries[:MAX_SEEN] + ([f"... {more} more"] if more > 0 else [])
