"""Red team, class 9 of issue 16: values that would reach files the OpenLane flow executes
(Tcl, shell, newlines, paths out, look-alike characters). Each must be refused naming the
argument, and nothing written."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.openlane.api import OpenLaneApi as OpenLane

COUNTER = "module counter(input logic clk); endmodule\n"


@pytest.fixture
def openlane(tmp_path: Path) -> OpenLane:
    (tmp_path / "rtl").mkdir()
    (tmp_path / "rtl" / "counter.sv").write_text(COUNTER)
    return OpenLane(Workspace.open(tmp_path))


REFUSED = {
    "period_not_a_number": ({"clock_period_ns": math.nan}, "clock_period_ns"),
    "period_infinite": ({"clock_period_ns": math.inf}, "clock_period_ns"),
    "period_boolean": ({"clock_period_ns": True}, "clock_period_ns"),
    "port_cyrillic_es": ({"clock_port": "\u0441lk"}, "clock_port"),
    "port_fullwidth_semicolon": ({"clock_port": "clk\uff1bid"}, "clock_port"),
    "name_cyrillic_o": ({"design_name": "c\u043eunter"}, "design_name"),
    "strategy_closes_bracket": ({"synth_strategy": "DELAY 2]; exec id; ["}, "synth_strategy"),
    "pdk_walks_up": ({"pdk": "sky130A/../../../etc"}, "pdk"),
    "library_zero_width_space": ({"std_cell_library": "sky130_fd_sc_hd\u200b"}, "std_cell_library"),
    "extra_key_with_newline": ({"extra": {"RUN_CTS\nset x": True}}, "extra"),
    "extra_overrides_sources": ({"extra": {"VERILOG_FILES": ["/etc/shadow"]}}, "extra"),
    "pdk_dir_escape": ({"extra": {"PNR_SDC_FILE": "pdk_dir::../../../../../etc/hosts"}}, "extra"),
    "line_separator_in_define": ({"extra": {"VERILOG_DEFINES": ["A=1\u2028exec id"]}}, "extra"),
    "no_break_space_in_define": ({"extra": {"VERILOG_DEFINES": ["A=1\u00a0B"]}}, "extra"),
    "env_reference_in_path": ({"extra": {"PNR_SDC_FILE": "refg::$HOME/x.sdc"}}, "extra"),
}


def call(openlane: OpenLane, **kwargs: object):
    args = {"design_name": "counter", "verilog_files": ["rtl/counter.sv"], "clock_port": "clk"}
    return openlane.generate_config(**{**args, **kwargs})


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_unsafe_config_value_is_refused(name: str, openlane: OpenLane) -> None:
    kwargs, argument = REFUSED[name]
    result = call(openlane, **kwargs)
    assert result.status == Status.INVALID_INPUT, (name, result.summary)
    assert any((p.argument or "").startswith(argument) for p in result.problems), result.problems
    assert not (openlane.workspace.root / "rtl" / "config.json").exists()


# A workspace file whose *name* carries Tcl or a newline: the path resolves inside the
# workspace, but the name itself reaches VERILOG_FILES unchecked.
HOSTILE_NAMES = ["c[exec id].sv", "c\nset ::env(X) 1.sv", "c;id.sv", "c$(id).sv", "c{x}.sv"]


@pytest.mark.parametrize("filename", HOSTILE_NAMES)
def test_source_file_name_carrying_tcl_is_refused(filename: str, openlane: OpenLane) -> None:
    (openlane.workspace.root / "rtl" / filename).write_text(COUNTER)
    result = call(openlane, verilog_files=[f"rtl/{filename}"])
    assert result.status == Status.INVALID_INPUT, result.config
    assert not (openlane.workspace.root / "rtl" / "config.json").exists()
