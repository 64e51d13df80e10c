"""OpenLane 1 run folders: the wide metrics.csv / final_summary_report.csv and openlane.log."""

from __future__ import annotations

import re
from pathlib import Path

from .metrics import MetricTable, load_wide_csv
from .models import RunSummary, StepInfo
from .report_reader import ReportReader
from .report_values import MAX_ERROR_LINES, MAX_METRICS, count_or_none

_ANT_NETS = re.compile(r"Found\s+(\d+)\s+net violations|Number of nets violated:?\s*(\d+)")
_ANT_PINS = re.compile(r"(?:Found\s+(\d+)\s+pin violations|Number of pins violated:?\s*(\d+))")
_OL1_STEP = re.compile(r"\[STEP (\d+)\]")
_OL1_RUNNING = re.compile(r"Running (.+?)\s*(?:\(log:.*)?(?:\.\.\.|…)?\s*$")


def read_openlane1(reader: ReportReader, root: Path, out: RunSummary) -> None:
    """The wide metrics CSV, the [STEP n] lines of openlane.log, the antenna reports."""
    candidates = [
        root / "reports" / "metrics.csv",
        root / "reports" / "final_summary_report.csv",
        root / "final_summary_report.csv",
        root / "metrics.csv",
    ]
    raw: dict[str, str] | None = None
    table: MetricTable | None = None
    for path in candidates:
        if path.is_file():
            loaded = reader.try_load(out, path, load_wide_csv)
            if loaded is not None:
                raw, table = loaded
                break
    log = root / "openlane.log"
    log_text = reader.read_text(log, out) if log.is_file() else None
    if log_text:
        out.steps = ol1_steps(log_text)
        out.last_step = out.steps[-1].name if out.steps else None
        out.flow_errors = [line.strip() for line in log_text.splitlines() if "[ERROR]" in line][
            :MAX_ERROR_LINES
        ]
    out.flavor = "openlane1"
    apply_ol1_status(raw or {}, out)
    if out.flow_status == "unknown" and (out.steps or table):
        out.flow_status = "incomplete"
    if table is not None:
        from_ol1_metrics(table, out)
    for path in sorted((root / "reports").glob("**/*antenna*.rpt")):
        text = reader.read_text(path, out)
        if text is None:
            continue
        if out.antenna_violating_nets is None and (m := _ANT_NETS.search(text)):
            out.antenna_violating_nets = int(m.group(1) or m.group(2))
        if out.antenna_violating_pins is None and (m := _ANT_PINS.search(text)):
            out.antenna_violating_pins = int(m.group(1) or m.group(2))


def apply_ol1_status(raw: dict[str, str], out: RunSummary) -> None:
    """The wide CSV's flow_status column ('flow completed', 'flow failed'), with the log's
    errors taking precedence."""
    status = raw.get("flow_status", "").lower()
    if "fail" in status or out.flow_errors:
        out.flow_status = "failed"
        out.failed_step = out.last_step
    elif "completed" in status:
        out.flow_status = "completed"


def ol1_steps(log: str) -> list[StepInfo]:
    steps: list[StepInfo] = []
    lines = log.splitlines()
    for i, line in enumerate(lines):
        match = _OL1_STEP.search(line)
        if not match:
            continue
        name = f"step {match.group(1)}"
        for following in lines[i + 1 : i + 4]:
            running = _OL1_RUNNING.search(following)
            if running:
                name = running.group(1).strip()
                break
        steps.append(StepInfo(index=int(match.group(1)), name=name, folder="", completed=True))
    if steps:
        steps[-1].completed = False  # the log does not say the last one finished
    return steps


# OpenLane 1's wide columns, latest flow stage first.
OL1_SETUP_WNS = ("spef_wns", "fastroute_wns", "optimized_wns", "pl_wns", "wns")
OL1_SETUP_TNS = ("spef_tns", "fastroute_tns", "optimized_tns", "pl_tns", "tns")


def from_ol1_metrics(table: MetricTable, out: RunSummary) -> None:
    values = {k: v for k, v in table.values.items() if isinstance(v, float)}
    out.metrics = dict(list(table.values.items())[:MAX_METRICS])

    def first(*names: str) -> float | None:
        # -1 is OpenLane 1's "this stage did not run" in every column, slacks included
        return next((values[n] for n in names if n in values and values[n] != -1), None)

    def count(name: str) -> int | None:
        return count_or_none(values.get(name))  # OpenLane 1 writes -1 for a check that did not run

    out.worst_setup_slack_ns = first(*OL1_SETUP_WNS)
    out.setup_tns_ns = first(*OL1_SETUP_TNS)
    die_mm2 = first("DIEAREA_mm^2")
    out.die_area_um2 = die_mm2 * 1e6 if die_mm2 is not None else None
    out.core_area_um2 = first("CoreArea_um^2")
    util = first("OpenDP_Util")
    out.utilization_pct = util
    out.wirelength_um = first("wire_length")
    out.instance_count = (
        count("cell_count") if "cell_count" in values else count("synth_cell_count")
    )
    out.route_drc_errors = count("tritonRoute_violations")
    out.magic_drc_errors = count("Magic_violations")
    out.klayout_drc_errors = count("klayout_violations")
    out.lvs_errors = count("lvs_total_errors")
    out.antenna_violating_nets = count("net_antenna_violations")
    out.antenna_violating_pins = count("pin_antenna_violations")
    out.clock_period_ns = first("CLOCK_PERIOD")
    if out.core_area_um2 and util is not None:
        out.instance_area_um2 = round(out.core_area_um2 * util / 100.0, 3)
