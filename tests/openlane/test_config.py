"""generate_config: checked OpenLane 2 config.json; round trip through OpenLane 2's loader."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from servers.core.models import Status
from servers.core.workspace import Workspace
from servers.openlane.config_gen import ConfigWriter
from servers.openlane.config_vars import VARIABLES

OPENLANE_PY = Path(__file__).resolve().parents[2] / ".venv-openlane" / "bin" / "python"
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
def test_every_variable_we_accept_exists_in_openlane2() -> None:
    done = subprocess.run(
        [str(OPENLANE_PY), "-c", LOADER, "--names"],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    names = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert set(VARIABLES) <= names, sorted(set(VARIABLES) - names)
