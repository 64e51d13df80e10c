"""The OpenLane 2 configuration variables generate_config writes or accepts, with their types.

A subset of the documented Classic-flow variables: the ones an agent tunes between runs.
Kinds: str, int, number, bool, path, paths, strs, str_or_strs, choice, box (4 numbers, um).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Var:
    kind: str
    description: str
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None


SYNTH_STRATEGIES = tuple(f"AREA {i}" for i in range(4)) + tuple(f"DELAY {i}" for i in range(5))

VARIABLES: dict[str, Var] = {
    # design
    "DESIGN_NAME": Var("str", "top-level module name"),
    "VERILOG_FILES": Var("paths", "design sources (dir:: relative to the design directory)"),
    "VERILOG_INCLUDE_DIRS": Var("paths", "include directories for the sources"),
    "VERILOG_DEFINES": Var("strs", "preprocessor defines, NAME or NAME=value"),
    "SYNTH_PARAMETERS": Var("strs", "top-level parameter overrides, NAME=value"),
    "PDK": Var("str", "process design kit, e.g. sky130A or gf180mcuD"),
    "STD_CELL_LIBRARY": Var("str", "standard-cell library, e.g. sky130_fd_sc_hd"),
    # clock and constraints
    "CLOCK_PORT": Var("str_or_strs", "clock port name(s)"),
    "CLOCK_NET": Var("str_or_strs", "net driving the root clock buffer"),
    "CLOCK_PERIOD": Var("number", "clock period, ns", low=0.0),
    "PNR_SDC_FILE": Var("path", "SDC used during place and route"),
    "SIGNOFF_SDC_FILE": Var("path", "SDC used for signoff STA"),
    "CLOCK_UNCERTAINTY_CONSTRAINT": Var("number", "clock uncertainty, ns", low=0.0),
    "IO_DELAY_CONSTRAINT": Var("number", "I/O delay, % of the clock period", low=0.0, high=100.0),
    "OUTPUT_CAP_LOAD": Var("number", "output load, fF", low=0.0),
    "MAX_FANOUT_CONSTRAINT": Var("int", "maximum fanout", low=1),
    # synthesis
    "SYNTH_STRATEGY": Var("choice", "ABC strategy", SYNTH_STRATEGIES),
    "SYNTH_HIERARCHY_MODE": Var("choice", "hierarchy", ("flatten", "deferred_flatten", "keep")),
    "SYNTH_SIZING": Var("bool", "ABC gate sizing"),
    "SYNTH_ABC_BUFFERING": Var("bool", "ABC buffering"),
    "SYNTH_ELABORATE_ONLY": Var("bool", "elaborate without mapping"),
    "RUN_LINTER": Var("bool", "Verilator lint step"),
    # floorplan
    "FP_SIZING": Var("choice", "die sizing", ("absolute", "relative")),
    "FP_CORE_UTIL": Var("number", "core utilisation, %", low=1.0, high=99.0),
    "FP_ASPECT_RATIO": Var("number", "core height / width", low=0.05, high=20.0),
    "DIE_AREA": Var("box", "die box x0 y0 x1 y1, um (FP_SIZING absolute)"),
    "CORE_AREA": Var("box", "core box x0 y0 x1 y1, um"),
    "FP_PDN_VPITCH": Var("number", "PDN vertical strap pitch, um", low=0.0),
    "FP_PDN_HPITCH": Var("number", "PDN horizontal strap pitch, um", low=0.0),
    "FP_PDN_MULTILAYER": Var("bool", "PDN on two layers"),
    # placement
    "PL_TARGET_DENSITY_PCT": Var("number", "global placement density, %", low=1.0, high=100.0),
    "GPL_CELL_PADDING": Var("number", "global placement padding, sites", low=0.0),
    "DPL_CELL_PADDING": Var("number", "detailed placement padding, sites", low=0.0),
    "PL_RESIZER_HOLD_SLACK_MARGIN": Var("number", "hold repair margin after placement, ns"),
    "DESIGN_REPAIR_MAX_WIRE_LENGTH": Var("number", "max wire length before buffering, um"),
    # routing
    "GRT_ADJUSTMENT": Var("number", "global routing capacity reduction", low=0.0, high=1.0),
    "GRT_ALLOW_CONGESTION": Var("bool", "let global routing finish congested"),
    "GRT_RESIZER_HOLD_SLACK_MARGIN": Var("number", "hold repair margin after routing, ns"),
    "DRT_OPT_ITERS": Var("int", "detailed routing optimisation iterations", low=0, high=64),
    "RT_MAX_LAYER": Var("str", "top routing layer"),
    "RUN_HEURISTIC_DIODE_INSERTION": Var("bool", "antenna diodes by heuristic"),
    "DIODE_ON_PORTS": Var("choice", "antenna diodes on ports", ("none", "in", "out", "both")),
    # signoff
    "RUN_MAGIC_DRC": Var("bool", "Magic DRC"),
    "RUN_KLAYOUT_DRC": Var("bool", "KLayout DRC"),
    "RUN_IRDROP_REPORT": Var("bool", "IR drop report"),
    "MAGIC_DRC_USE_GDS": Var("bool", "Magic DRC on the GDS"),
    "ERROR_ON_MAGIC_DRC": Var("bool", "fail the flow on Magic DRC errors"),
    "ERROR_ON_LVS_ERROR": Var("bool", "fail the flow on LVS errors"),
}
