"""OpenSTA on a mapped netlist: a generated Tcl script in, worst slacks and critical path out."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from silicon_agent.servers.core.config import tool_config

from .liberty_cells import Drive
from .models import CriticalPath, PathStage

MARK = "SA_"
_STAGE = re.compile(
    r"^\s*(?P<delay>-?\d+\.\d+)\s+(?P<time>-?\d+\.\d+)\s+(?P<edge>[v^])\s+(?P<pin>\S+)"
    r"(?:\s+\((?P<cell>[^)]+)\))?\s*$"
)
_SLACK = re.compile(r"^\s*(-?\d+\.\d+)\s+slack \((MET|VIOLATED)\)")
_ARRIVAL = re.compile(r"^\s*(-?\d+\.\d+)\s+data arrival time")
_REQUIRED = re.compile(r"^\s*(-?\d+\.\d+)\s+data required time")
_POINT = re.compile(r"^(Startpoint|Endpoint):\s*(\S+)")
_MARKED = re.compile(rf"^{MARK}(\w+)\s+(\S+)")


@dataclass(frozen=True)
class Sta:
    path: str
    version: str


@cache
def find_sta() -> Sta | None:
    path = tool_config().sta_path or shutil.which("sta")
    if path is None:
        return None
    try:
        done = subprocess.run([path, "-version"], capture_output=True, text=True, timeout=20)
        version = (done.stdout or done.stderr).strip().splitlines()[0]
    except (OSError, subprocess.TimeoutExpired, IndexError):
        version = "unknown"
    return Sta(path=path, version=version)


def tcl_word(text: str) -> str:
    """A Tcl word taken literally (braces), for paths the server chose."""
    if any(c in text for c in "{}\\\n"):
        raise ValueError(f"unsafe character in Tcl word: {text!r}")
    return "{" + text + "}"


def script(
    liberty: Path,
    netlist: Path,
    top: str,
    period_ns: float,
    clock_port: str | None,
    drive: Drive | None = None,
) -> str:
    """Ideal clock, zero I/O delay, no wire load: a synthesis-stage estimate, not signoff.

    With `drive`, input ports are driven by that cell and outputs carry its load, the pair ABC
    buffered against, so a port fanning out to many flops is priced as ABC priced it.
    """
    lines = [
        f"read_liberty {tcl_word(str(liberty))}",
        f"read_verilog {tcl_word(str(netlist))}",
        f"link_design {top}",
    ]
    if clock_port:
        lines += [
            f"create_clock -name clk -period {period_ns:.6f} [get_ports {{{clock_port}}}]",
            "set sa_inputs [delete_from_list [all_inputs] [get_ports {" + clock_port + "}]]",
        ]
    else:
        lines += [
            f"create_clock -name clk -period {period_ns:.6f}",
            "set sa_inputs [all_inputs]",
        ]
    lines += [
        "if {[llength $sa_inputs]} { set_input_delay 0 -clock clk $sa_inputs }",
        "set_output_delay 0 -clock clk [all_outputs]",
    ]
    if drive is not None:
        lines += [
            "if {[llength $sa_inputs]} { set_driving_cell -lib_cell "
            f"{drive.cell} -pin {drive.output_pin} $sa_inputs }}",
            f"set_load {drive.load:.6g} [all_outputs]",
        ]
    lines += [
        "report_checks -path_delay max -digits 4",
        "report_tns -digits 4",
        f'puts "{MARK}WS_MAX [sta::worst_slack_cmd max]"',
        f'puts "{MARK}WS_MIN [sta::worst_slack_cmd min]"',
        f'puts "{MARK}TNS [sta::total_negative_slack_cmd max]"',
        f'puts "{MARK}VIO [llength [find_timing_paths -path_delay max -slack_max 0 '
        '-group_count 1000000 -endpoint_count 1]]"',
        "exit",
    ]
    return "\n".join(lines) + "\n"


@dataclass
class StaFigures:
    worst_setup_ns: float | None = None
    worst_hold_ns: float | None = None
    tns_ns: float | None = None
    violations: int | None = None
    path: CriticalPath | None = None
    errors: list[str] = field(default_factory=list)


def _seconds_to_ns(raw: str) -> float | None:
    try:
        value = float(raw)
    except ValueError:
        return None
    if abs(value) > 1e20:  # INF: nothing constrained
        return None
    return round(value * 1e9, 4)


def parse(text: str) -> StaFigures:
    figures = StaFigures()
    path_lines: list[str] = []
    in_path = False
    for line in text.splitlines():
        if line.startswith("Error") or line.startswith("Warning: ") and "not found" in line:
            figures.errors.append(line.strip())
        marked = _MARKED.match(line)
        if marked:
            key, value = marked.groups()
            if key == "WS_MAX":
                figures.worst_setup_ns = _seconds_to_ns(value)
            elif key == "WS_MIN":
                figures.worst_hold_ns = _seconds_to_ns(value)
            elif key == "TNS":
                figures.tns_ns = _seconds_to_ns(value)
            elif key == "VIO" and value.isdigit():
                figures.violations = int(value)
            continue
        if line.startswith("Startpoint:") and figures.path is None and not path_lines:
            in_path = True
        if in_path:
            path_lines.append(line)
            if _SLACK.match(line):
                in_path = False
    if path_lines:
        figures.path = _critical_path(path_lines)
    return figures


def _critical_path(lines: list[str]) -> CriticalPath:
    points: dict[str, str] = {}
    stages: list[PathStage] = []
    arrival = required = slack = None
    seen_arrival = False
    for line in lines:
        point = _POINT.match(line)
        if point:
            points[point.group(1)] = point.group(2)
            continue
        if (m := _ARRIVAL.match(line)) and arrival is None:
            arrival, seen_arrival = float(m.group(1)), True
            continue
        if (m := _REQUIRED.match(line)) and required is None:
            required = float(m.group(1))
            continue
        if m := _SLACK.match(line):
            slack = float(m.group(1))
            continue
        stage = _STAGE.match(line)
        if stage and not seen_arrival:
            stages.append(
                PathStage(
                    pin=stage["pin"],
                    cell=stage["cell"],
                    edge="rise" if stage["edge"] == "^" else "fall",
                    delay_ns=float(stage["delay"]),
                    time_ns=float(stage["time"]),
                )
            )
    ends = {points.get("Startpoint"), points.get("Endpoint")}
    cells = {s.pin.rsplit("/", 1)[0] for s in stages if s.cell and "/" in s.pin} - ends
    return CriticalPath(
        startpoint=points.get("Startpoint", "?"),
        endpoint=points.get("Endpoint", "?"),
        arrival_ns=arrival,
        required_ns=required,
        slack_ns=slack,
        logic_depth=len(cells),
        stages=stages,
    )
