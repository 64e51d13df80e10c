"""generate_config: checked OpenLane 2 config.json; round trip through OpenLane 2's loader."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.openlane.config_gen import ConfigWriter
from silicon_agent.servers.openlane.config_vars import TABLE_PATH, VARIABLES

OPENLANE_PY = Path(__file__).resolve().parents[2] / ".venv-openlane" / "bin" / "python"
GENERATOR = TABLE_PATH.with_name("ol2_variables_gen.py")
needs_openlane = pytest.mark.skipif(
    not OPENLANE_PY.exists(),
    reason=".venv-openlane is absent (python3 -m venv .venv-openlane && "
    '.venv-openlane/bin/pip install openlane "click<8.2")',
)

# Loads a config.json with OpenLane 2's own design-variable processing (unknown keys are
# errors there too); the PDK files are not read, so no PDK is needed.
LOADER = """
import json, sys
from openlane.flows import Flow
from openlane.config.config import Config, Meta
flow = Flow.factory.get("Classic")
if sys.argv[1] == "--names":
    print(json.dumps(sorted(v.name for v in flow.get_all_config_variables(flow))))
    raise SystemExit(0)
raw = json.load(open(sys.argv[1]))
try:
    cfg = Config._Config__load_dict(raw, sys.argv[2], flow.get_all_config_variables(flow),
        meta=Meta(version=2), pdk_root=sys.argv[3], missing_ok=True, _load_pdk_configs=False)
except Exception as exc:
    print(json.dumps({"error": str(exc)}))
    raise SystemExit(0)
def plain(v):
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v if isinstance(v, (bool, type(None), int)) else str(v)
print(json.dumps({k: plain(v) for k, v in cfg.items()}))
"""


def openlane_load(config: Path, design_dir: Path, pdk_root: Path) -> dict:
    done = subprocess.run(
        [str(OPENLANE_PY), "-c", LOADER, str(config), str(design_dir), str(pdk_root)],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def writer(ws: Workspace) -> ConfigWriter:
    return ConfigWriter(ws)


def test_config_written_with_dir_paths(writer: ConfigWriter, ws: Workspace) -> None:
    result = writer.generate(
        design_name="fifo",
        verilog_files=["hdl/fifo/fifo.sv"],
        clock_port="clk",
        clock_period_ns=12.5,
    )
    assert result.status == Status.PASS
    assert result.path == "hdl/fifo/config.json"
    written = json.loads((ws.root / "hdl" / "fifo" / "config.json").read_text())
    assert written == result.config
    assert written["VERILOG_FILES"] == ["dir::fifo.sv"]
    assert written["CLOCK_PERIOD"] == 12.5
    assert written["FP_CORE_UTIL"] == 40
    assert written["PL_TARGET_DENSITY_PCT"] == 55
    assert written["SYNTH_STRATEGY"] == "DELAY 3"


def test_design_dir_elsewhere_gives_relative_dir_paths(writer: ConfigWriter, ws: Workspace) -> None:
    (ws.root / "pnr").mkdir()
    result = writer.generate(
        design_name="counter",
        verilog_files=["hdl/counter/counter.sv"],
        clock_port="clk",
        design_dir="pnr",
    )
    assert result.config["VERILOG_FILES"] == ["dir::../hdl/counter/counter.sv"]
    assert (ws.root / "pnr" / "config.json").is_file()


@pytest.mark.parametrize(
    ("kwargs", "argument", "text"),
    [
        ({"extra": {"FP_COR_UTIL": 30}}, "extra.FP_COR_UTIL", "did you mean FP_CORE_UTIL"),
        ({"extra": {"GRT_ADJUSTMENT": "high"}}, "extra.GRT_ADJUSTMENT", "expected a number"),
        ({"extra": {"RUN_KLAYOUT_DRC": 1}}, "extra.RUN_KLAYOUT_DRC", "true or false"),
        ({"extra": {"DIE_AREA": [0, 0, 100]}}, "extra.DIE_AREA", "x0, y0, x1, y1"),
        ({"extra": {"DRT_OPT_ITERS": 2.5}}, "extra.DRT_OPT_ITERS", "integer"),
        ({"core_util": 140}, "core_util", "outside"),
        ({"clock_period_ns": 0}, "clock_period_ns", "greater than 0"),
        ({"clock_period_ns": "fast"}, "clock_period_ns", "expected a number"),
        ({"target_density": 55}, "target_density", "not in (0, 1]"),
        ({"synth_strategy": "SPEED 1"}, "synth_strategy", "DELAY 3"),
        ({"design_name": "my design"}, "design_name", "not a module name"),
        ({"verilog_files": ["/etc/passwd"]}, "verilog_files", "outside the workspace"),
    ],
)
def test_bad_variables_are_refused_and_nothing_is_written(
    writer: ConfigWriter, ws: Workspace, kwargs: dict, argument: str, text: str
) -> None:
    call = {
        "design_name": "counter",
        "verilog_files": ["hdl/counter/counter.sv"],
        "clock_port": "clk",
    }
    call.update(kwargs)
    result = writer.generate(**call)
    assert result.status == Status.INVALID_INPUT
    problem = next(p for p in result.problems if p.argument == argument)
    assert text in problem.message
    assert not (ws.root / "hdl" / "counter" / "config.json").exists()


@needs_openlane
def test_round_trip_through_openlane2_loader(writer: ConfigWriter, ws: Workspace) -> None:
    result = writer.generate(
        design_name="counter",
        verilog_files=["hdl/counter/counter.sv"],
        clock_port="clk",
        clock_period_ns=8.0,
        core_util=35,
        target_density=0.6,
        synth_strategy="AREA 2",
        extra={
            "GRT_ADJUSTMENT": 0.25,
            "RUN_HEURISTIC_DIODE_INSERTION": True,
            "DIODE_ON_PORTS": "in",
            "FP_SIZING": "absolute",
            "DIE_AREA": [0, 0, 150, 150],
            "VERILOG_DEFINES": ["SYNTHESIS"],
        },
    )
    assert result.status == Status.PASS
    pdk_root = ws.root / "pdk"
    pdk_root.mkdir()
    design_dir = ws.root / "hdl" / "counter"
    loaded = openlane_load(design_dir / "config.json", design_dir, pdk_root)
    assert "error" not in loaded, loaded
    assert loaded["DESIGN_NAME"] == "counter"
    assert loaded["VERILOG_FILES"] == [str(design_dir / "counter.sv")]
    assert float(loaded["CLOCK_PERIOD"]) == 8.0
    assert loaded["CLOCK_PORT"] == "clk"
    assert float(loaded["FP_CORE_UTIL"]) == 35
    assert float(loaded["PL_TARGET_DENSITY_PCT"]) == 60
    assert loaded["SYNTH_STRATEGY"] == "AREA 2"
    assert float(loaded["GRT_ADJUSTMENT"]) == 0.25
    assert loaded["RUN_HEURISTIC_DIODE_INSERTION"] is True
    assert [float(v) for v in loaded["DIE_AREA"]] == [0, 0, 150, 150]
    assert loaded["VERILOG_DEFINES"] == ["SYNTHESIS"]


@needs_openlane
def test_openlane2_loader_rejects_what_we_reject(ws: Workspace) -> None:
    """The same mistakes our checks refuse are errors for OpenLane 2 itself."""
    design_dir = ws.root / "hdl" / "counter"
    bad = design_dir / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "DESIGN_NAME": "counter",
                "VERILOG_FILES": ["dir::counter.sv"],
                "PDK": "sky130A",
                "STD_CELL_LIBRARY": "sky130_fd_sc_hd",
                "FP_COR_UTIL": 30,
                "CLOCK_PERIOD": "fast",
            }
        )
    )
    (ws.root / "pdk").mkdir()
    loaded = openlane_load(bad, design_dir, ws.root / "pdk")
    assert "FP_COR_UTIL" in loaded["error"] and "CLOCK_PERIOD" in loaded["error"]


@needs_openlane
def test_variable_table_matches_the_installed_openlane() -> None:
    """The committed table is exactly what the generator reads from OpenLane 2 today."""
    done = subprocess.run(
        [str(OPENLANE_PY), str(GENERATOR)], capture_output=True, text=True, timeout=300, check=True
    )
    live = json.loads(done.stdout)
    committed = json.loads(TABLE_PATH.read_text())
    assert live["openlane_version"] == committed["openlane_version"]
    added = sorted(set(live["variables"]) - set(committed["variables"]))
    removed = sorted(set(committed["variables"]) - set(live["variables"]))
    assert not added and not removed, f"added {added}, removed {removed}: run {GENERATOR.name}"
    changed = [n for n, v in live["variables"].items() if committed["variables"][n] != v]
    assert not changed, f"type/default/units/owners changed for {changed}"
    assert done.stdout == TABLE_PATH.read_text()


@needs_openlane
def test_every_classic_flow_variable_is_in_the_table() -> None:
    done = subprocess.run(
        [str(OPENLANE_PY), "-c", LOADER, "--names"],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    names = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert len(names) > 300
    assert names <= set(VARIABLES), sorted(names - set(VARIABLES))


def test_table_types_units_defaults_and_owners() -> None:
    assert len(VARIABLES) > 300
    density = VARIABLES["PL_TARGET_DENSITY_PCT"]
    assert density.units == "%" and "PL_TARGET_DENSITY" in density.deprecated_names
    assert "step:OpenROAD.GlobalPlacement" in density.owners
    assert VARIABLES["SYNTH_STRATEGY"].default == "AREA 0"
    assert VARIABLES["DIE_AREA"].units == "µm"
    assert VARIABLES["CLOCK_PORT"].owners == ("common:option",)
    assert VARIABLES["VERILOG_FILES"].type == {"t": "list", "of": {"t": "path"}}


@pytest.mark.parametrize(
    ("kwargs", "argument", "rule"),
    [
        ({"extra": {"RT_MAX_LAYER": "met5[exec id]"}}, "extra.RT_MAX_LAYER", "Tcl brackets"),
        ({"extra": {"VERILOG_DEFINES": ["A=1\nset x 2"]}}, "extra.VERILOG_DEFINES", "newlines"),
        ({"extra": {"VERILOG_DEFINES": ["W=$::env(HOME)"]}}, "extra.VERILOG_DEFINES", "'$'"),
        ({"extra": {"SYNTH_PARAMETERS": ["N=4; rm -rf ~"]}}, "extra.SYNTH_PARAMETERS", "shell"),
        ({"extra": {"PNR_SDC_FILE": "/etc/passwd"}}, "extra.PNR_SDC_FILE", "inside the workspace"),
        (
            {"extra": {"PNR_SDC_FILE": "dir::../../../../../etc/passwd"}},
            "extra.PNR_SDC_FILE",
            "inside the workspace",
        ),
        (
            {"extra": {"MACROS": {"ram": {"gds": ["/etc/passwd"], "lef": []}}}},
            "extra.MACROS",
            "inside the workspace",
        ),
        ({"extra": {"FP_PDN_VPITCH": "[exec id]"}}, "extra.FP_PDN_VPITCH", "type"),
        ({"clock_port": "clk; reboot"}, "clock_port", "port names are identifiers"),
        ({"extra": {"CLOCK_NET": "clk]"}}, "extra.CLOCK_NET", "net names"),
        ({"pdk": "sky130Z"}, "pdk", "known PDKs"),
        ({"std_cell_library": "gf180mcu_fd_sc_mcu7t5v0"}, "std_cell_library", "libraries"),
        ({"design_name": "top$x"}, "design_name", "identifier"),
    ],
)
def test_unsafe_values_are_refused_naming_variable_and_rule(
    writer: ConfigWriter, ws: Workspace, kwargs: dict, argument: str, rule: str
) -> None:
    call = {"design_name": "counter", "verilog_files": ["hdl/counter/counter.sv"]}
    call["clock_port"] = "clk"
    call.update(kwargs)
    result = writer.generate(**call)
    assert result.status == Status.INVALID_INPUT
    problem = next(p for p in result.problems if p.argument == argument)
    assert rule in problem.message, problem.message
    assert not (ws.root / "hdl" / "counter" / "config.json").exists()


def test_link_out_of_the_workspace_is_refused(writer: ConfigWriter, ws: Workspace) -> None:
    (ws.root / "hdl" / "counter" / "pnr.sdc").symlink_to("/etc/passwd")
    result = writer.generate(
        design_name="counter",
        verilog_files=["hdl/counter/counter.sv"],
        clock_port="clk",
        extra={"PNR_SDC_FILE": "hdl/counter/pnr.sdc"},
    )
    assert result.status == Status.INVALID_INPUT
    assert "outside the workspace" in result.problems[0].message


def test_paths_become_dir_paths_and_names_get_neighbours(
    writer: ConfigWriter, ws: Workspace
) -> None:
    (ws.root / "constraints").mkdir()
    (ws.root / "constraints" / "counter.sdc").write_text("create_clock -period 10 clk\n")
    result = writer.generate(
        design_name="counter",
        verilog_files=["hdl/counter/counter.sv"],
        clock_port="clk",
        extra={
            "PNR_SDC_FILE": "constraints/counter.sdc",
            "SIGNOFF_SDC_FILE": "dir::../../constraints/counter.sdc",
            "FP_PDN_MULTILAYER": False,
        },
        write=False,
    )
    assert result.status == Status.PASS, result.summary
    assert result.config["PNR_SDC_FILE"] == "dir::../../constraints/counter.sdc"
    assert result.config["SIGNOFF_SDC_FILE"] == "dir::../../constraints/counter.sdc"
    refused = writer.generate(
        design_name="counter",
        verilog_files=["hdl/counter/counter.sv"],
        clock_port="clk",
        extra={"PL_TARGET_DENSITY": 50, "GRT_ADJUSTMNT": 0.2},
    )
    messages = {p.argument: p.message for p in refused.problems}
    assert "deprecated name of PL_TARGET_DENSITY_PCT" in messages["extra.PL_TARGET_DENSITY"]
    assert "GRT_ADJUSTMENT" in messages["extra.GRT_ADJUSTMNT"]
