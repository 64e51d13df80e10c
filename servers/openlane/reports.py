"""read_reports: one structured summary of whatever OpenLane output it is given.

It detects the layout (layouts.py): an OpenLane 2 / LibreLane run folder or its final/ folder,
an OpenLane 1 run folder, a Caravel signoff/<design>/ folder, or a bare metrics.csv/json. Metrics
files are the primary source; step reports (STA summaries, Magic DRC, Netgen LVS, antenna, IR
drop, XOR) fill in what the metrics lack. A missing or unreadable file becomes a note, never an
exception. Every file is read only when it resolves inside the workspace after links; one that
does not is named (by its own name in the folder, never its target) and left unread.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import InvalidInput, Workspace

from . import report_files, sta
from .layouts import LOOKED_FOR, STEP_DIR, Detection, detect, seen
from .metrics import MetricTable, load_json, load_long_csv, load_wide_csv, split_metric
from .models import CornerTiming, FileNote, InputProblem, RunSummary, StepInfo
from .openlane1 import apply_ol1_status, from_ol1_metrics, read_openlane1
from .report_values import MAX_ERROR_LINES, MAX_METRICS, count_or_none, finite
from .signoff import read_signoff

MAX_REPORT_BYTES = 64 << 20  # Caravel's per-instance IR-drop tables reach a few MB
_TCL_SET = re.compile(r"^\s*set\s+::env\((\w+)\)\s+\"?([^\"\s]+)\"?\s*$", re.MULTILINE)
_CSV_LONG_HEADER = "metric,value"


class RunReader:
    def __init__(self, workspace: Workspace):
        self.workspace = workspace

    def read(self, run_dir: str) -> RunSummary:
        try:
            root = self.workspace.resolve(run_dir, argument="run_dir", kind="any")
        except InvalidInput as exc:
            return _refused(exc)
        found = detect(root)
        if found is None:
            return _refused(_not_recognised(run_dir, root))
        summary = RunSummary(
            status=Status.PASS,
            run_dir=self.workspace.relative(root),
            layout=found.layout,
            detected=found.describe(),
        )
        self._readers(found)(root, summary)
        self._provenance(root if root.is_dir() else root.parent, summary)
        if not summary.files_read:
            return _refused(_not_recognised(run_dir, root, found, summary))
        _totals(summary)
        summary.summary = _one_line(summary)
        return summary

    def _readers(self, found: Detection) -> Callable[[Path, RunSummary], None]:
        return {
            "openlane2_run": self._openlane2,
            "openlane2_final": self._final_folder,
            "openlane1_run": lambda root, out: read_openlane1(self, root, out),
            "caravel_signoff": lambda root, out: read_signoff(self, root, out),
            "metrics_file": self._metrics_file,
        }[found.layout]

    # -- OpenLane 2 ----------------------------------------------------------------------
    def _openlane2(self, root: Path, out: RunSummary) -> None:
        out.flavor = "openlane2"
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
                            file=self.shown(state),
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
            from_ol2_metrics(table, out)
        self._sta_summaries(root, out)
        self._step_reports(root, out)

    def _final_folder(self, root: Path, out: RunSummary) -> None:
        """A final/ folder alone: its metrics, and the run's resolved.json when beside it."""
        out.flavor = "openlane2"
        for name in ("metrics.json", "metrics.csv"):
            if (root / name).is_file() and self.metrics(out, root / name) is not None:
                break
        if root.name == "final":
            self._provenance(root.parent, out)

    def _metrics_file(self, path: Path, out: RunSummary) -> None:
        if self.metrics(out, path) is None:
            out.notes.append(FileNote(file=self.shown(path), message="no metrics could be read"))

    def metrics(self, out: RunSummary, path: Path) -> MetricTable | None:
        """Any metrics file by its content: OpenLane 2's JSON or `Metric,Value` CSV, or
        OpenLane 1's wide CSV; its figures go into `out` and set its flavor."""
        if path.suffix == ".json":
            table = self.try_load(out, path, load_json)
            if table is not None:
                out.flavor = "openlane2"
                from_ol2_metrics(table, out)
            return table
        first = (self.read_text(path, out, record=False) or "").split("\n", 1)[0]
        if first.strip().lower().replace(" ", "") == _CSV_LONG_HEADER:
            table = self.try_load(out, path, load_long_csv)
            if table is not None:
                out.flavor = "openlane2"
                from_ol2_metrics(table, out)
            return table
        loaded = self.try_load(out, path, load_wide_csv)
        if loaded is None:
            return None
        raw, table = loaded
        out.flavor = "openlane1"
        apply_ol1_status(raw, out)
        from_ol1_metrics(table, out)
        return table

    def _provenance(self, root: Path, out: RunSummary) -> None:
        """Flow version and PDK from the files that state them, where the metrics did not."""
        version = root / "OPENLANE_VERSION"
        if out.flow_version is None and version.is_file():
            out.flow_version = (self.read_text(version, out) or "").strip()[:120] or None
        sources = root / "PDK_SOURCES"
        if out.pdk_version is None and sources.is_file():
            out.pdk_version = (self.read_text(sources, out) or "").strip()[:120] or None
        resolved = root / "resolved.json"
        if resolved.is_file():
            self._resolved(resolved, out)
        config_tcl = root / "config.tcl"
        if config_tcl.is_file() and (out.pdk is None or out.clock_period_ns is None):
            values = dict(_TCL_SET.findall(self.read_text(config_tcl, out) or ""))
            out.pdk = out.pdk or values.get("PDK")
            out.std_cell_library = out.std_cell_library or values.get("STD_CELL_LIBRARY")
            if out.clock_period_ns is None:
                out.clock_period_ns = finite(_float(values.get("CLOCK_PERIOD")))
        if out.std_cell_library is None and isinstance(out.metrics.get("STD_CELL_LIBRARY"), str):
            out.std_cell_library = str(out.metrics["STD_CELL_LIBRARY"])

    def _resolved(self, path: Path, out: RunSummary) -> None:
        text = self.read_text(path, out)
        if text is None:
            return
        try:
            config = json.loads(text)
        except ValueError as exc:
            out.notes.append(FileNote(file=self.shown(path), message=str(exc)))
            return
        if not isinstance(config, dict):
            return
        out.clock_period_ns = out.clock_period_ns or finite(_float(config.get("CLOCK_PERIOD")))
        for field, key in (("pdk", "PDK"), ("std_cell_library", "STD_CELL_LIBRARY")):
            if getattr(out, field) is None and isinstance(config.get(key), str):
                setattr(out, field, config[key])
        meta = config.get("meta")
        if out.flow_version is None and isinstance(meta, dict) and meta.get("openlane_version"):
            out.flow_version = f"OpenLane {meta['openlane_version']}"

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
        if reports:
            self.sta_table(reports[-1], out)
            self._critical_path(reports[-1].parent, out)

    def sta_table(self, path: Path, out: RunSummary) -> None:
        rows = report_files.parse_sta_table(self.read_text(path, out) or "")
        if not rows:
            out.notes.append(FileNote(file=self.shown(path), message="no table rows recognised"))
            return
        folders = [p.name for p in path.parent.iterdir() if p.is_dir()]
        for row in rows:
            name = report_files.full_corner(row["corner"], folders)
            if name.lower() == "overall":
                _fill(out, "worst_setup_slack_ns", report_files.cell_number(row.get("setup_ws")))
                _fill(out, "worst_hold_slack_ns", report_files.cell_number(row.get("hold_ws")))
                _fill(out, "setup_tns_ns", report_files.cell_number(row.get("setup_tns")))
                _fill(out, "hold_tns_ns", report_files.cell_number(row.get("hold_tns")))
                _fill(out, "setup_violations", report_files.cell_count(row.get("setup_vio")))
                _fill(out, "hold_violations", report_files.cell_count(row.get("hold_vio")))
                continue
            self.corner(
                out,
                name,
                self.shown(path),
                setup_ws_ns=report_files.cell_number(row.get("setup_ws")),
                setup_tns_ns=report_files.cell_number(row.get("setup_tns")),
                setup_violations=report_files.cell_count(row.get("setup_vio")),
                hold_ws_ns=report_files.cell_number(row.get("hold_ws")),
                hold_tns_ns=report_files.cell_number(row.get("hold_tns")),
                hold_violations=report_files.cell_count(row.get("hold_vio")),
                max_cap_violations=report_files.cell_count(row.get("max_cap_vio")),
                max_slew_violations=report_files.cell_count(row.get("max_slew_vio")),
            )

    @staticmethod
    def corner(out: RunSummary, name: str, source: str, **figures: Any) -> None:
        """Add a corner, or fill the figures an existing entry for it lacks."""
        existing = next((c for c in out.corners if c.corner == name), None)
        if existing is None:
            out.corners.append(CornerTiming(corner=name, source=source, **figures))
            return
        for field, value in figures.items():
            if getattr(existing, field) is None and value is not None:
                setattr(existing, field, value)

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
                parsed = sta.parse(self.read_text(path, out) or "").path
                if parsed is not None:
                    out.critical_path = parsed
                    return

    def _step_reports(self, root: Path, out: RunSummary) -> None:
        if out.magic_drc_errors is None:
            for path in sorted(root.glob("*/reports/drc_violations.magic.rpt")):
                text = self.read_text(path, out)
                if text is not None:
                    out.magic_drc_errors = report_files.magic_drc_count(text)
        if out.lvs_errors is None:
            for path in sorted(root.glob("*/reports/lvs.netgen.rpt")):
                self.lvs(path, out)
        if out.klayout_drc_errors is None:
            for path in sorted(root.glob("*/reports/drc_violations.klayout.xml")):
                text = self.read_text(path, out)
                if text is not None:
                    out.klayout_drc_errors = report_files.lyrdb_items(text)
        if out.power_total_w is None:
            for path in sorted(
                root.glob("*/*/power.rpt"), key=lambda p: _index(p.parent.parent.name)
            ):
                out.power_total_w = report_files.power_total(self.read_text(path, out) or "")
        if out.ir_drop_worst_v is None:
            for path in sorted(root.glob("*/irdrop.rpt")):
                out.ir_drop_worst_v = report_files.ir_drop(self.read_text(path, out) or "")

    def lvs(self, path: Path, out: RunSummary) -> None:
        match = report_files.netgen_lvs(self.read_text(path, out) or "")
        if match is True:
            out.lvs_errors = 0
        elif match is False:
            out.notes.append(
                FileNote(
                    file=self.shown(path), message="netlists do not match (no count in the report)"
                )
            )

    # -- reading files safely ------------------------------------------------------------
    def shown(self, path: Path) -> str:
        """How a file is named in results: its place in the workspace, links not followed."""
        absolute = Path(os.path.abspath(path))
        try:
            return absolute.relative_to(self.workspace.root).as_posix()
        except ValueError:
            return absolute.name

    def inside(self, path: Path, out: RunSummary) -> Path | None:
        """The file's real path when it resolves inside the workspace; else a note, None."""
        try:
            real = self.workspace.resolve(str(path), argument="run_dir", kind="file")
        except InvalidInput:
            out.notes.append(
                FileNote(
                    file=self.shown(path),
                    message="links outside the workspace (or is not a regular file): not read",
                )
            )
            return None
        size = real.stat().st_size
        if size > MAX_REPORT_BYTES:
            out.notes.append(
                FileNote(
                    file=self.shown(path),
                    message=f"{size} bytes, over the {MAX_REPORT_BYTES} byte limit: not read",
                )
            )
            return None
        return real

    def try_load(self, out: RunSummary, path: Path, loader: Callable[[Path], Any]) -> Any:
        real = self.inside(path, out)
        if real is None:
            return None
        try:
            loaded = loader(real)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            out.notes.append(FileNote(file=self.shown(path), message=str(exc)))
            return None
        out.files_read.append(self.shown(path))
        table = loaded[1] if isinstance(loaded, tuple) else loaded
        for name, junk in sorted(table.junk.items()):
            out.notes.append(
                FileNote(
                    file=self.shown(path),
                    message=f"metric {name} has a value that is not a number: {junk}",
                )
            )
        return loaded

    def read_text(self, path: Path, out: RunSummary, *, record: bool = True) -> str | None:
        real = self.inside(path, out)
        if real is None:
            return None
        try:
            text = real.read_text(errors="replace")
        except OSError as exc:
            out.notes.append(FileNote(file=self.shown(path), message=exc.strerror or "unreadable"))
            return None
        if record:
            out.files_read.append(self.shown(path))
        return text

    def _lines(self, path: Path, out: RunSummary) -> list[str]:
        if not path.is_file():
            return []
        text = self.read_text(path, out) or ""
        return [line.strip() for line in text.splitlines() if line.strip()]


def _float(value: object) -> float | None:
    try:
        return float(value) if value is not None else None  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _fill(out: RunSummary, field: str, value: object) -> None:
    if getattr(out, field) is None and value is not None:
        setattr(out, field, value)


def _not_recognised(
    run_dir: str,
    root: Path,
    found: Detection | None = None,
    tried: RunSummary | None = None,
) -> InvalidInput:
    listing = ", ".join(seen(root)) or "nothing"
    what = "is not an OpenLane output read_reports knows"
    if found is not None:
        what = f"looks like a {found.describe()} but no report in it could be read"
        if tried is not None and tried.notes:
            what += " (" + "; ".join(f"{n.file}: {n.message}" for n in tried.notes[:5]) + ")"
    return InvalidInput(
        f"run_dir: '{run_dir}' {what}. Looked for: " + "; ".join(LOOKED_FOR) + f". Saw: {listing}",
        argument="run_dir",
        hint="Pass runs/<tag>, its final/ folder, a Caravel signoff/<design>/ folder, or a "
        "metrics.csv / metrics.json file.",
    )


def _index(name: str) -> int:
    match = STEP_DIR.match(name)
    return int(match.group(1)) if match else -1


def step_folders(root: Path) -> list[StepInfo]:
    found = []
    for path in root.iterdir():
        match = STEP_DIR.match(path.name)
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


def from_ol2_metrics(table: MetricTable, out: RunSummary) -> None:
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
    out.die_area_um2 = finite(g("design__die__area")) or table.box_area("design__die__bbox")
    out.core_area_um2 = finite(g("design__core__area")) or table.box_area("design__core__bbox")
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
    out.xor_differences = count_or_none(g("design__xor_difference__count"))
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


_LAYOUT_WORDS = {
    "openlane2_run": "run",
    "openlane1_run": "run",
    "openlane2_final": "final/ folder",
    "caravel_signoff": "Caravel signoff folder",
    "metrics_file": "metrics file",
}


def _one_line(out: RunSummary) -> str:
    what = _LAYOUT_WORDS.get(out.layout or "", "run")
    parts = [f"{out.flavor} {what}, flow {out.flow_status}"]
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


__all__ = ["RunReader", "split_metric"]
