"""read_reports: one structured summary of an OpenLane 2 or OpenLane 1 run folder.

Metrics files are the primary source; step reports (STA summaries, Magic DRC, Netgen LVS,
antenna, IR drop) fill in what the metrics lack. A missing or unreadable file becomes a note,
never an exception.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from servers.core.models import Status
from servers.core.workspace import InvalidInput, Workspace

from . import sta
from .metrics import MetricTable, load_json, load_long_csv, split_metric
from .models import CornerTiming, FileNote, InputProblem, RunSummary, StepInfo
from .openlane1 import read_openlane1
from .report_values import MAX_ERROR_LINES, MAX_METRICS, count_or_none, finite

_STEP_DIR = re.compile(r"^(\d+)-(.+)$")
# Column order of the STA steps' summary.rpt table (OpenLane 2's MultiCornerSTA).
STA_COLUMNS = (
    "corner",
    "hold_ws",
    "hold_r2r_ws",
    "hold_tns",
    "hold_vio",
    "hold_r2r_vio",
    "setup_ws",
    "setup_r2r_ws",
    "setup_tns",
    "setup_vio",
    "setup_r2r_vio",
    "max_cap_vio",
    "max_slew_vio",
)
_IR_WORST = re.compile(r"Worstcase IR drop\s*:\s*([\d.+\-eE]+)\s*V")
_MAGIC_BOX = re.compile(r"^\s*-?[\d.]+um\s+-?[\d.]+um\s+-?[\d.]+um\s+-?[\d.]+um\s*$")
_POWER_TOTAL = re.compile(r"^Total\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)")


class RunReader:
    def __init__(self, workspace: Workspace):
        self.workspace = workspace

    def read(self, run_dir: str) -> RunSummary:
        try:
            root = self.workspace.resolve(run_dir, argument="run_dir", kind="dir")
        except InvalidInput as exc:
            return _refused(exc)
        flavor = detect_flavor(root)
        if flavor == "unknown":
            return _refused(
                InvalidInput(
                    f"run_dir: '{run_dir}' is not an OpenLane run folder",
                    argument="run_dir",
                    hint="Pass runs/<tag> (OpenLane 2: NN-step folders, resolved.json or "
                    "final/metrics.json; OpenLane 1: reports/ with metrics.csv).",
                )
            )
        summary = RunSummary(
            status=Status.PASS, run_dir=self.workspace.relative(root), flavor=flavor
        )
        if flavor == "openlane2":
            self._openlane2(root, summary)
        else:
            read_openlane1(self, root, summary)
        _totals(summary)
        summary.summary = _one_line(summary)
        return summary

    # -- OpenLane 2 ----------------------------------------------------------------------
    def _openlane2(self, root: Path, out: RunSummary) -> None:
        out.steps = step_folders(root)
        table = self._final_metrics(root, out)
        if table is None:
            done = [s for s in out.steps if s.completed]
            if done:
                state = root / done[-1].folder / "state_out.json"
                table = self.try_load(out, state, load_json)
                if table is not None:
                    out.notes.append(
                        FileNote(
                            file=self.workspace.relative(state),
                            message="no final metrics: figures come from the last completed step",
                        )
                    )
        errors = self._lines(root / "error.log", out)
        out.flow_errors = errors[:MAX_ERROR_LINES]
        incomplete = [s for s in out.steps if not s.completed]
        final = (root / "final").is_dir() and table is not None and "final" in table.source
        if out.steps:
            out.last_step = out.steps[-1].name
        if incomplete:
            out.failed_step = incomplete[-1].name if errors else None
            out.flow_status = "failed" if errors else "incomplete"
        elif final:
            out.flow_status = "failed" if errors else "completed"
            if errors and out.steps:
                out.failed_step = out.steps[-1].name
        elif errors:
            out.flow_status = "failed"
            out.failed_step = out.last_step
        else:
            out.flow_status = "incomplete" if out.steps else "unknown"
        if table is not None:
            _from_ol2_metrics(table, out)
        self._resolved(root, out)
        self._sta_summaries(root, out)
        self._step_reports(root, out)

    def _resolved(self, root: Path, out: RunSummary) -> None:
        path = root / "resolved.json"
        if not path.is_file():
            return
        try:
            config = json.loads(path.read_text(errors="replace"))
            period = config.get("CLOCK_PERIOD") if isinstance(config, dict) else None
            out.clock_period_ns = float(period) if period is not None else None
        except (OSError, ValueError, TypeError) as exc:
            out.notes.append(FileNote(file=self.workspace.relative(path), message=str(exc)))
            return
        out.files_read.append(self.workspace.relative(path))

    def _final_metrics(self, root: Path, out: RunSummary) -> MetricTable | None:
        json_path, csv_path = root / "final" / "metrics.json", root / "final" / "metrics.csv"
        table = self.try_load(out, json_path, load_json) if json_path.is_file() else None
        if table is None and csv_path.is_file():
            table = self.try_load(out, csv_path, load_long_csv)
        if table is None and (root / "final").is_dir():
            out.notes.append(FileNote(file="final/", message="no readable metrics.json/csv"))
        return table

    def _sta_summaries(self, root: Path, out: RunSummary) -> None:
        """The last STA step's summary.rpt fills corners the metrics did not give."""
        reports = sorted(root.glob("*/summary.rpt"), key=lambda p: _index(p.parent.name))
        if not reports:
            return
        path = reports[-1]
        rows = _parse_sta_table(path.read_text(errors="replace"))
        if not rows:
            out.notes.append(
                FileNote(file=self.workspace.relative(path), message="no table rows recognised")
            )
            return
        out.files_read.append(self.workspace.relative(path))
        known = {c.corner: c for c in out.corners}
        for row in rows:
            corner = CornerTiming(
                corner=row["corner"],
                setup_ws_ns=_cell(row["setup_ws"]),
                setup_tns_ns=_cell(row["setup_tns"]),
                setup_violations=_int_cell(row["setup_vio"]),
                hold_ws_ns=_cell(row["hold_ws"]),
                hold_tns_ns=_cell(row["hold_tns"]),
                hold_violations=_int_cell(row["hold_vio"]),
                max_cap_violations=_int_cell(row["max_cap_vio"]),
                max_slew_violations=_int_cell(row["max_slew_vio"]),
                source=self.workspace.relative(path),
            )
            if corner.corner.lower() == "overall":
                if out.worst_setup_slack_ns is None:
                    out.worst_setup_slack_ns = corner.setup_ws_ns
                if out.worst_hold_slack_ns is None:
                    out.worst_hold_slack_ns = corner.hold_ws_ns
                if out.setup_tns_ns is None:
                    out.setup_tns_ns = corner.setup_tns_ns
                if out.hold_tns_ns is None:
                    out.hold_tns_ns = corner.hold_tns_ns
                continue
            existing = known.get(corner.corner)
            if existing is None:
                out.corners.append(corner)
                continue
            for name, value in corner.model_dump(exclude={"corner", "source"}).items():
                if getattr(existing, name) is None and value is not None:
                    setattr(existing, name, value)
        self._critical_path(path.parent, out)

    def _critical_path(self, sta_dir: Path, out: RunSummary) -> None:
        worst = min(
            (c for c in out.corners if c.setup_ws_ns is not None),
            key=lambda c: c.setup_ws_ns or 0.0,
            default=None,
        )
        names = [worst.corner] if worst else []
        names += sorted(p.parent.name for p in sta_dir.glob("*/max.rpt"))
        for name in names:
            path = sta_dir / name / "max.rpt"
            if path.is_file():
                text = self.read_text(path, out)
                parsed = sta.parse(text or "").path
                if parsed is not None:
                    out.critical_path = parsed
                    return

    def _step_reports(self, root: Path, out: RunSummary) -> None:
        if out.magic_drc_errors is None:
            for path in sorted(root.glob("*/reports/drc_violations.magic.rpt")):
                text = self.read_text(path, out)
                if text is not None:
                    out.magic_drc_errors = sum(
                        1 for line in text.splitlines() if _MAGIC_BOX.match(line)
                    )
        if out.lvs_errors is None:
            for path in sorted(root.glob("*/reports/lvs.netgen.rpt")):
                text = self.read_text(path, out)
                if text is not None and "Final result" in text:
                    out.lvs_errors = 0 if "match uniquely" in text else None
                    if out.lvs_errors is None:
                        out.notes.append(
                            FileNote(
                                file=self.workspace.relative(path),
                                message="netlists do not match (count not in the report)",
                            )
                        )
        if out.klayout_drc_errors is None:
            for path in sorted(root.glob("*/reports/drc_violations.klayout.xml")):
                text = self.read_text(path, out)
                if text is not None:
                    out.klayout_drc_errors = text.count("<item>")  # one per marker (lyrdb)
        if out.power_total_w is None:
            for path in sorted(
                root.glob("*/*/power.rpt"), key=lambda p: _index(p.parent.parent.name)
            ):
                text = self.read_text(path, out)
                totals = [
                    m for line in (text or "").splitlines() if (m := _POWER_TOTAL.match(line))
                ]
                if totals:
                    try:
                        out.power_total_w = float(totals[-1].group(4))
                    except ValueError:
                        out.notes.append(
                            FileNote(file=self.workspace.relative(path), message="unreadable Total")
                        )
        if out.ir_drop_worst_v is None:
            for path in sorted(root.glob("*/irdrop.rpt")):
                text = self.read_text(path, out)
                if text and (m := _IR_WORST.search(text)):
                    out.ir_drop_worst_v = float(m.group(1))

    # -- helpers -------------------------------------------------------------------------
    def try_load(self, out: RunSummary, path: Path, loader):  # type: ignore[no-untyped-def]
        try:
            loaded = loader(path)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            out.notes.append(FileNote(file=self.workspace.relative(path), message=str(exc)))
            return None
        out.files_read.append(self.workspace.relative(path))
        table = loaded[1] if isinstance(loaded, tuple) else loaded
        for name, junk in sorted(table.junk.items()):
            out.notes.append(
                FileNote(
                    file=self.workspace.relative(path),
                    message=f"metric {name} has a value that is not a number: {junk}",
                )
            )
        return loaded

    def read_text(self, path: Path, out: RunSummary) -> str | None:
        try:
            text = path.read_text(errors="replace")
        except OSError as exc:
            out.notes.append(FileNote(file=self.workspace.relative(path), message=str(exc)))
            return None
        out.files_read.append(self.workspace.relative(path))
        return text

    def _lines(self, path: Path, out: RunSummary) -> list[str]:
        if not path.is_file():
            return []
        text = self.read_text(path, out) or ""
        return [line.strip() for line in text.splitlines() if line.strip()]


def detect_flavor(root: Path) -> str:
    if (root / "final" / "metrics.json").is_file() or (root / "resolved.json").is_file():
        return "openlane2"
    if any(_STEP_DIR.match(p.name) and p.is_dir() for p in root.iterdir()):
        return "openlane2"
    reports = root / "reports"
    if reports.is_dir() and (
        (reports / "metrics.csv").is_file()
        or (reports / "final_summary_report.csv").is_file()
        or (root / "openlane.log").is_file()
    ):
        return "openlane1"
    if (
        (root / "final_summary_report.csv").is_file()
        or (root / "config.tcl").is_file()
        and (root / "results").is_dir()
    ):
        return "openlane1"
    return "unknown"


def _index(name: str) -> int:
    match = _STEP_DIR.match(name)
    return int(match.group(1)) if match else -1


def step_folders(root: Path) -> list[StepInfo]:
    found = []
    for path in root.iterdir():
        match = _STEP_DIR.match(path.name)
        if match and path.is_dir():
            found.append(
                StepInfo(
                    index=int(match.group(1)),
                    name=match.group(2),
                    folder=path.name,
                    completed=(path / "state_out.json").is_file(),
                )
            )
    return sorted(found, key=lambda s: s.index or 0)


def _parse_sta_table(text: str) -> list[dict[str, str]]:
    rows = []
    for line in text.splitlines():
        if not line.startswith("│"):
            continue
        cells = [c.strip() for c in line.strip().strip("│").split("│")]
        if len(cells) == len(STA_COLUMNS) and cells[0]:
            rows.append(dict(zip(STA_COLUMNS, cells, strict=True)))
    return rows


def _cell(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None  # "?" (not measured) and "N/A" (unconstrained)
    return finite(value)


def _int_cell(text: str) -> int | None:
    value = _cell(text)
    return int(value) if value is not None else None


def _from_ol2_metrics(table: MetricTable, out: RunSummary) -> None:
    out.metrics = dict(list(table.values.items())[:MAX_METRICS])
    g = table.get
    out.worst_setup_slack_ns = finite(g("timing__setup__ws"))
    out.worst_hold_slack_ns = finite(g("timing__hold__ws"))
    out.setup_tns_ns = finite(g("timing__setup__tns"))
    out.hold_tns_ns = finite(g("timing__hold__tns"))
    out.setup_violations = count_or_none(g("timing__setup_vio__count"))
    out.hold_violations = count_or_none(g("timing__hold_vio__count"))
    corners: dict[str, CornerTiming] = {}
    fields = {
        "timing__setup__ws": "setup_ws_ns",
        "timing__setup__tns": "setup_tns_ns",
        "timing__setup_vio__count": "setup_violations",
        "timing__hold__ws": "hold_ws_ns",
        "timing__hold__tns": "hold_tns_ns",
        "timing__hold_vio__count": "hold_violations",
        "design__max_slew_violation__count": "max_slew_violations",
        "design__max_cap_violation__count": "max_cap_violations",
    }
    for metric, attr in fields.items():
        for corner, value in table.by_modifier(metric, "corner").items():
            entry = corners.setdefault(
                corner, CornerTiming(corner=corner, source=Path(table.source).name)
            )
            number = finite(value)
            setattr(
                entry,
                attr,
                int(number) if attr.endswith("violations") and number is not None else number,
            )
    out.corners = sorted(corners.values(), key=lambda c: c.corner)
    out.instance_area_um2 = finite(g("design__instance__area"))
    out.die_area_um2 = finite(g("design__die__area"))
    out.core_area_um2 = finite(g("design__core__area"))
    util = finite(g("design__instance__utilization"))
    out.utilization_pct = round(util * 100, 3) if util is not None and util <= 1.5 else util
    out.wirelength_um = finite(g("route__wirelength"))
    out.instance_count = count_or_none(g("design__instance__count"))
    route_drc = g("route__drc_errors")
    out.route_drc_errors = count_or_none(
        route_drc if route_drc is not None else table.last_iteration("route__drc_errors")
    )
    out.magic_drc_errors = count_or_none(g("magic__drc_error__count"))
    out.klayout_drc_errors = count_or_none(g("klayout__drc_error__count"))
    out.lvs_errors = count_or_none(g("design__lvs_error__count"))
    out.antenna_violating_nets = count_or_none(g("antenna__violating__nets"))
    out.antenna_violating_pins = count_or_none(g("antenna__violating__pins"))
    if out.antenna_violating_nets is None:
        out.antenna_violating_nets = count_or_none(g("route__antenna_violation__count"))
    out.power_total_w = finite(g("power__total"))
    out.ir_drop_worst_v = finite(g("ir__drop__worst"))


def _totals(out: RunSummary) -> None:
    """Worst figures over corners where the flow gave no aggregate."""
    if out.corners:
        setups = [c.setup_ws_ns for c in out.corners if c.setup_ws_ns is not None]
        holds = [c.hold_ws_ns for c in out.corners if c.hold_ws_ns is not None]
        if out.worst_setup_slack_ns is None and setups:
            out.worst_setup_slack_ns = min(setups)
        if out.worst_hold_slack_ns is None and holds:
            out.worst_hold_slack_ns = min(holds)
        if out.setup_tns_ns is None:
            tns = [c.setup_tns_ns for c in out.corners if c.setup_tns_ns is not None]
            out.setup_tns_ns = min(tns) if tns else None
        if out.setup_violations is None:
            vios = [c.setup_violations for c in out.corners if c.setup_violations is not None]
            out.setup_violations = max(vios) if vios else None
    if out.utilization_pct is None and out.instance_area_um2 and out.core_area_um2:
        out.utilization_pct = round(100.0 * out.instance_area_um2 / out.core_area_um2, 3)


def _one_line(out: RunSummary) -> str:
    parts = [f"{out.flavor} run {out.flow_status}"]
    if out.failed_step:
        parts.append(f"failed at {out.failed_step}")
    if out.worst_setup_slack_ns is not None:
        parts.append(f"worst setup slack {out.worst_setup_slack_ns} ns")
    if out.worst_hold_slack_ns is not None:
        parts.append(f"worst hold slack {out.worst_hold_slack_ns} ns")
    drc = [v for v in (out.route_drc_errors, out.magic_drc_errors, out.klayout_drc_errors) if v]
    if drc:
        parts.append(f"DRC violations {max(drc)}")
    if out.utilization_pct is not None:
        parts.append(f"utilisation {out.utilization_pct}%")
    if out.notes:
        parts.append(f"{len(out.notes)} notes")
    return ", ".join(parts)


def _refused(exc: InvalidInput) -> RunSummary:
    return RunSummary(
        status=Status.INVALID_INPUT,
        summary=str(exc),
        error=InputProblem(message=str(exc), argument=exc.argument, hint=exc.hint),
    )


def summary_from_json(data: object) -> RunSummary:
    return RunSummary.model_validate(json.loads(data) if isinstance(data, str) else data)


__all__ = ["RunReader", "detect_flavor", "split_metric"]
