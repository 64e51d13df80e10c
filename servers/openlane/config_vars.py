"""Every OpenLane 2 configuration variable, as OpenLane 2 itself declares it.

`ol2_variables.json` is generated from the installed OpenLane's metadata by
`ol2_variables_gen.py` (see its docstring); a test regenerates it and fails on any drift. Here it
is read once, and the few facts OpenLane does not declare are added: the PDKs and standard-cell
libraries it supports, the ranges this server refuses beyond the types, and which variables
name ports or nets.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

TABLE_PATH = Path(__file__).with_name("ol2_variables.json")

# The PDK families OpenLane 2.3 ships configurations for, and their standard-cell libraries.
PDK_LIBRARIES: dict[str, tuple[str, ...]] = {
    "sky130A": ("sky130_fd_sc_hd", "sky130_fd_sc_hdll", "sky130_fd_sc_hs", "sky130_fd_sc_ms",
                "sky130_fd_sc_ls", "sky130_fd_sc_hvl"),
    "sky130B": ("sky130_fd_sc_hd", "sky130_fd_sc_hdll", "sky130_fd_sc_hs", "sky130_fd_sc_ms",
                "sky130_fd_sc_ls", "sky130_fd_sc_hvl"),
    **{
        f"gf180mcu{v}": ("gf180mcu_fd_sc_mcu7t5v0", "gf180mcu_fd_sc_mcu9t5v0")
        for v in "ABCD"
    },
}  # fmt: skip

# Variables whose strings are port names (identifiers) or net names (identifiers joined by
# '/' or '.' for hierarchy).
PORT_VARIABLES = frozenset({"CLOCK_PORT"})
NET_VARIABLES = frozenset({"CLOCK_NET", "VDD_NETS", "GND_NETS"})

# Ranges refused beyond the declared types: values OpenLane would accept but no run can use.
RANGES: dict[str, tuple[float | None, float | None]] = {
    "CLOCK_PERIOD": (0.0, None),
    "CLOCK_UNCERTAINTY_CONSTRAINT": (0.0, None),
    "IO_DELAY_CONSTRAINT": (0.0, 100.0),
    "OUTPUT_CAP_LOAD": (0.0, None),
    "MAX_FANOUT_CONSTRAINT": (1.0, None),
    "FP_CORE_UTIL": (1.0, 99.0),
    "FP_ASPECT_RATIO": (0.05, 20.0),
    "FP_PDN_VPITCH": (0.0, None),
    "FP_PDN_HPITCH": (0.0, None),
    "PL_TARGET_DENSITY_PCT": (1.0, 100.0),
    "GPL_CELL_PADDING": (0.0, None),
    "DPL_CELL_PADDING": (0.0, None),
    "GRT_ADJUSTMENT": (0.0, 1.0),
    "DRT_OPT_ITERS": (0.0, 64.0),
}


@dataclass(frozen=True)
class Var:
    name: str
    type: dict[str, Any]
    description: str
    default: Any = None
    units: str | None = None
    owners: tuple[str, ...] = ()
    deprecated_names: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None

    @property
    def choices(self) -> tuple[str, ...]:
        inner = self.type["of"] if self.type["t"] == "optional" else self.type
        return tuple(inner.get("values", ())) if inner["t"] in ("choice", "enum") else ()


@cache
def table() -> dict[str, Any]:
    return json.loads(TABLE_PATH.read_text(encoding="utf-8"))


def _load() -> dict[str, Var]:
    found: dict[str, Var] = {}
    for name, entry in table()["variables"].items():
        low, high = RANGES.get(name, (None, None))
        found[name] = Var(
            name=name,
            type=entry["type"],
            description=entry["description"],
            default=entry["default"],
            units=entry["units"],
            owners=tuple(entry["owners"]),
            deprecated_names=tuple(entry["deprecated_names"]),
            low=low,
            high=high,
        )
    return found


VARIABLES: dict[str, Var] = _load()
DEPRECATED: dict[str, str] = {old: v.name for v in VARIABLES.values() for old in v.deprecated_names}
SYNTH_STRATEGIES: tuple[str, ...] = VARIABLES["SYNTH_STRATEGY"].choices
OPENLANE_VERSION: str = table()["openlane_version"]
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NET = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:[/.][A-Za-z_][A-Za-z0-9_]*)*$")


def name_rule(name: str) -> tuple[re.Pattern[str], str] | None:
    """The pattern a variable's strings must match, and the rule's name, if it has one."""
    if name in PORT_VARIABLES:
        return IDENTIFIER, "port names are identifiers"
    if name in NET_VARIABLES:
        return _NET, "net names are identifiers, '/' or '.' between hierarchy levels"
    return None
