"""Caravel signoff/<design>/ folders: what caravel_user_project keeps of a hardened macro.

metrics.csv (OpenLane 1's wide table, or OpenLane 2's Metric,Value rows), OPENLANE_VERSION,
PDK_SOURCES, config.tcl, manufacturability.rpt, and openlane-signoff/ with the STA summaries
(OpenLane 1 text per corner set, or OpenLane 2's table under timing-reports/), IR drop per
power net, GDS XOR, Netgen LVS, antenna violators, DRC and power reports.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import report_files
from .layouts import STEP_DIR
from .models import RunSummary
from .report_reader import ReportReader

SIGNOFF_DIR = "openlane-signoff"
_TEXT_SUMMARY = re.compile(r"(?:^|-)(?:rcx_sta|multi_corner_sta)\.summary\.rpt$")


def read_signoff(reader: ReportReader, root: Path, out: RunSummary) -> None:
    for name in ("metrics.csv", "metrics.json", "final_summary_report.csv"):
        if (root / name).is_file() and reader.metrics(out, root / name) is not None:
            break
    report = root / "manufacturability.rpt"
    if report.is_file():
        for field, value in report_files.manufacturability(
            reader.read_text(report, out) or ""
        ).items():
            if getattr(out, field) is None:
                setattr(out, field, value)
    signoff = root / SIGNOFF_DIR
    if not signoff.is_dir():
        return
    _timing(reader, signoff, out)
    _checks(reader, signoff, out)
    # Signoff STA gives signed slacks per corner; the CSV's WNS is clamped at zero.
    setups = [c.setup_ws_ns for c in out.corners if c.setup_ws_ns is not None]
    holds = [c.hold_ws_ns for c in out.corners if c.hold_ws_ns is not None]
    if setups:
        out.worst_setup_slack_ns = min(setups)
    if holds:
        out.worst_hold_slack_ns = min(holds)


def _corner_name(path: Path) -> str:
    """'34-sta-rcx_nom/multi_corner_sta.summary.rpt' -> rcx_nom; '33-rcx_sta.summary.rpt' ->
    rcx_sta."""
    if path.parent.name != SIGNOFF_DIR:
        match = STEP_DIR.match(path.parent.name)
        name = match.group(2) if match else path.parent.name
        return name.removeprefix("sta-")
    match = STEP_DIR.match(path.name)
    return (match.group(2) if match else path.name).split(".")[0]


def _timing(reader: ReportReader, signoff: Path, out: RunSummary) -> None:
    timing = signoff / "timing-reports"
    if (timing / "summary.rpt").is_file():
        reader.sta_table(timing / "summary.rpt", out)
    if timing.is_dir():
        for corner_dir in sorted(p for p in timing.iterdir() if p.is_dir()):
            figures = {}
            for name, field in (
                ("ws.max.rpt", "setup_ws_ns"),
                ("ws.min.rpt", "hold_ws_ns"),
                ("tns.max.rpt", "setup_tns_ns"),
            ):
                path = corner_dir / name
                if path.is_file():
                    values = report_files.corner_values(reader.read_text(path, out) or "")
                    figures[field] = values.get(corner_dir.name)
            if any(v is not None for v in figures.values()):
                reader.corner(out, corner_dir.name, reader.shown(corner_dir), **figures)
    for path in sorted(signoff.rglob("*summary.rpt")):
        if not _TEXT_SUMMARY.search(path.name):
            continue
        found = report_files.parse_sta_text(reader.read_text(path, out) or "")
        reader.corner(
            out,
            _corner_name(path),
            reader.shown(path),
            setup_ws_ns=found.worst_setup_ns,
            hold_ws_ns=found.worst_hold_ns,
            setup_tns_ns=found.tns_ns,
        )


def _checks(reader: ReportReader, signoff: Path, out: RunSummary) -> None:
    drops = [
        report_files.ir_drop(reader.read_text(p, out) or "")
        for p in sorted(signoff.glob("*irdrop*.rpt"))
    ]
    measured = [d for d in drops if d is not None]
    if out.ir_drop_worst_v is None and measured:
        out.ir_drop_worst_v = max(measured)
    for path in sorted(signoff.glob("*xor*.xml")):
        out.xor_differences = report_files.lyrdb_items(reader.read_text(path, out) or "")
    if out.lvs_errors is None:
        for path in sorted(signoff.glob("*lvs*.rpt")):
            reader.lvs(path, out)
    if out.antenna_violating_nets is None:
        for path in sorted(signoff.glob("*antenna_violators*.rpt")):
            counted = report_files.antenna_violators(reader.read_text(path, out) or "")
            if counted is not None:
                out.antenna_violating_nets, out.antenna_violating_pins = counted
    if out.magic_drc_errors is None and (signoff / "drc.rpt").is_file():
        out.magic_drc_errors = report_files.magic_drc_count(
            reader.read_text(signoff / "drc.rpt", out) or ""
        )
    if out.klayout_drc_errors is None and (signoff / "drc.klayout.xml").is_file():
        out.klayout_drc_errors = report_files.lyrdb_items(
            reader.read_text(signoff / "drc.klayout.xml", out) or ""
        )
    if out.power_total_w is None:
        totals = [
            report_files.power_total(reader.read_text(p, out) or "")
            for p in sorted(signoff.rglob("*power.rpt"))
        ]
        known = [t for t in totals if t is not None]
        out.power_total_w = max(known) if known else None
