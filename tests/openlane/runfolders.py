"""Build OpenLane 2 and OpenLane 1 run folders in their documented layouts for the tests."""

from __future__ import annotations

import io
import json
from pathlib import Path

import rich.console
import rich.table

CORNERS = ("nom_tt_025C_1v80", "nom_ss_100C_1v60", "nom_ff_n40C_1v95", "max_ss_100C_1v60")

# Real OpenSTA report_checks layout (OpenLane 2 writes it as <corner>/max.rpt).
MAX_RPT = """Startpoint: _412_ (rising edge-triggered flip-flop clocked by clk)
Endpoint: _398_ (rising edge-triggered flip-flop clocked by clk)
Path Group: clk
Path Type: max

   Delay     Time   Description
-----------------------------------------------------------
   0.000    0.000   clock clk (rise edge)
   0.000    0.000   clock network delay (ideal)
   0.000    0.000 ^ _412_/CLK (sky130_fd_sc_hd__dfxtp_1)
   0.410    0.410 ^ _412_/Q (sky130_fd_sc_hd__dfxtp_1)
   0.620    1.030 v _301_/Y (sky130_fd_sc_hd__nand2_1)
   0.910    1.940 ^ _302_/X (sky130_fd_sc_hd__xor2_1)
   1.250    3.190 v _303_/X (sky130_fd_sc_hd__maj3_1)
   0.000    3.190 v _398_/D (sky130_fd_sc_hd__dfxtp_1)
            3.190   data arrival time

   2.000    2.000   clock clk (rise edge)
   0.000    2.000   clock network delay (ideal)
   0.000    2.000 ^ _398_/CLK (sky130_fd_sc_hd__dfxtp_1)
  -0.120    1.880   library setup time
            1.880   data required time
-----------------------------------------------------------
            1.880   data required time
           -3.190   data arrival time
-----------------------------------------------------------
           -1.310   slack (VIOLATED)
"""


MAGIC_RPT = """mac
----------------------------------------
Metal1 spacing < 0.14um (met1.2)
----------------------------------------
 12.000um 3.400um 12.140um 3.600um
 20.000um 3.400um 20.140um 3.600um
----------------------------------------
Local interconnect width < 0.17um (li.1)
----------------------------------------
 1.000um 1.000um 1.100um 1.100um
----------------------------------------
[INFO] COUNT: 3
"""

# OpenSTA report_power layout (one per corner folder).
POWER_RPT = """Group                  Internal  Switching    Leakage      Total
                          Power      Power      Power      Power (Watts)
----------------------------------------------------------------
Sequential             4.10e-04   2.00e-05   1.00e-09   4.30e-04  35.0%
Combinational          5.00e-04   3.00e-04   2.00e-09   8.00e-04  65.0%
----------------------------------------------------------------
Total                  9.10e-04   3.20e-04   3.00e-09   1.23e-03 100.0%
                          74.0%      26.0%       0.0%
"""


def ol2_metrics(setup_ws: dict[str, float], drc: int = 0, util: float = 0.45) -> dict:
    metrics: dict[str, float] = {
        "design__instance__count": 1532,
        "design__instance__area": 12000.5,
        "design__die__area": 40000.0,
        "design__core__area": 26666.0,
        "design__instance__utilization": util,
        "route__wirelength": 45210,
        "route__drc_errors__iter:1": 310,
        "route__drc_errors__iter:2": 42,
        "route__drc_errors": drc,
        "magic__drc_error__count": drc,
        "klayout__drc_error__count": 0,
        "design__lvs_error__count": 0,
        "antenna__violating__nets": 2,
        "antenna__violating__pins": 3,
        "power__total": 0.00123,
        "ir__drop__worst": 0.0042,
        "design__instance__count__class:buffer": 88,
    }
    for corner, ws in setup_ws.items():
        metrics[f"timing__setup__ws__corner:{corner}"] = ws
        metrics[f"timing__setup__tns__corner:{corner}"] = min(0.0, ws * 7)
        metrics[f"timing__setup_vio__count__corner:{corner}"] = 7 if ws < 0 else 0
        metrics[f"timing__hold__ws__corner:{corner}"] = 0.21
        metrics[f"timing__hold__tns__corner:{corner}"] = 0
        metrics[f"timing__hold_vio__count__corner:{corner}"] = 0
    worst = min(setup_ws.values())
    metrics["timing__setup__ws"] = worst
    metrics["timing__setup__tns"] = sum(min(0.0, w * 7) for w in setup_ws.values())
    metrics["timing__hold__ws"] = 0.21
    return metrics


def sta_summary(rows: dict[str, dict[str, float | int | None]]) -> str:
    """summary.rpt as OpenLane 2's STA steps print it: a rich table, 160 columns wide."""
    table = rich.table.Table()
    table.add_column("Corner/Group", width=20)
    for name in (
        "Hold Worst Slack",
        "Reg to Reg Paths",
        "Hold TNS",
        "Hold Vio Count",
        "of which reg to reg",
        "Setup Worst Slack",
        "Reg to Reg Paths",
        "Setup TNS",
        "Setup Vio Count",
        "of which reg to reg",
        "Max Cap Violations",
        "Max Slew Violations",
    ):
        table.add_column(name)
    for corner, row in rows.items():
        cells = [corner]
        for key in (
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
            "max_cap",
            "max_slew",
        ):
            value = row.get(key)
            if value is None:
                cells.append("[gray]?")
            elif key.endswith(("vio", "cap", "slew")):
                cells.append(f"[red]{int(value)}" if value else f"[green]{int(value)}")
            else:
                cells.append(f"[red]{value:.4f}" if value < 0 else f"[green]{value:.4f}")
        table.add_row(*cells)
    buffer = io.StringIO()
    rich.console.Console(file=buffer, width=160).print(table)
    return buffer.getvalue()


def _step(run: Path, folder: str, done: bool, metrics: dict | None = None) -> Path:
    path = run / folder
    path.mkdir(parents=True)
    (path / "config.json").write_text("{}")
    (path / "state_in.json").write_text("{}")
    if done:
        (path / "state_out.json").write_text(json.dumps({"metrics": metrics or {}}))
        (path / "runtime.txt").write_text("0:00:01.000")
    return path


def openlane2_run(root: Path, *, failed: bool = False, final: bool = True) -> Path:
    run = root / "runs" / "RUN_2026"
    run.mkdir(parents=True)
    (run / "resolved.json").write_text(json.dumps({"DESIGN_NAME": "mac", "CLOCK_PERIOD": 2.0}))
    (run / "flow.log").write_text("[INFO] Starting…\n")
    (run / "warning.log").write_text("")
    setup = {"nom_tt_025C_1v80": 0.35, "nom_ss_100C_1v60": -1.31, "nom_ff_n40C_1v95": 0.9}
    partial = {"design__instance__area": 11800.0, "design__instance__count": 1500}
    _step(run, "01-verilator-lint", True)
    _step(run, "06-yosys-synthesis", True, partial)
    _step(run, "12-openroad-floorplan", True, partial)
    sta = _step(run, "54-openroad-stapostpnr", True, partial)
    rows = {"Overall": {"setup_ws": -1.31, "setup_tns": -9.17, "setup_vio": 7, "hold_ws": 0.21}}
    for corner, ws in setup.items():
        rows[corner] = {
            "setup_ws": ws,
            "setup_tns": min(0.0, ws * 7),
            "setup_vio": 7 if ws < 0 else 0,
            "hold_ws": 0.21,
            "hold_tns": 0.0,
            "hold_vio": 0,
            "max_cap": 0,
            "max_slew": 1,
        }
    (sta / "summary.rpt").write_text(sta_summary(rows))
    for corner in setup:
        (sta / corner).mkdir()
        (sta / corner / "max.rpt").write_text(MAX_RPT if corner == "nom_ss_100C_1v60" else "")
    if failed:
        (sta / "nom_tt_025C_1v80" / "power.rpt").write_text(POWER_RPT)
        ir = _step(run, "56-openroad-irdropreport", True, partial)
        (ir / "irdrop.rpt").write_text("Worstcase voltage: 1.79 V\nWorstcase IR drop: 0.0031 V\n")
        kl = _step(run, "58-klayout-drc", True, partial)
        (kl / "reports").mkdir()
        (kl / "reports" / "drc_violations.klayout.xml").write_text(
            "<report-database><items><item><category>m1.2</category></item>"
            "<item><category>m1.2</category></item></items></report-database>"
        )
        lvs = _step(run, "59-netgen-lvs", True, partial)
        (lvs / "reports").mkdir()
        (lvs / "reports" / "lvs.netgen.rpt").write_text(
            "Circuit 1 contains 1532 devices.\nFinal result: Circuits match uniquely.\n"
        )
        magic = _step(run, "61-magic-drc", False)
        (magic / "reports").mkdir()
        (magic / "reports" / "drc_violations.magic.rpt").write_text(MAGIC_RPT)
        (run / "error.log").write_text(
            "[ERROR] 1524 DRC errors found by Magic.\n[ERROR] Flow failed at step 61.\n"
        )
        return run
    (run / "error.log").write_text("")
    if final:
        (run / "final").mkdir()
        metrics = ol2_metrics(setup, drc=1524, util=0.86)
        (run / "final" / "metrics.json").write_text(json.dumps(metrics, indent=2))
        lines = ["Metric,Value"] + [f"{k},{v}" for k, v in metrics.items()]
        (run / "final" / "metrics.csv").write_text("\n".join(lines) + "\n")
        _step(run, "78-misc-reportmanufacturability", True, metrics)
    return run


OL1_HEADER = (
    "design,design_name,config,flow_status,total_runtime,routed_runtime,DIEAREA_mm^2,"
    "CellPer_mm^2,OpenDP_Util,Peak_Memory_Usage_MB,cell_count,tritonRoute_violations,"
    "Short_violations,MetSpc_violations,OffGrid_violations,MinHole_violations,Other_violations,"
    "Magic_violations,pin_antenna_violations,net_antenna_violations,lvs_total_errors,"
    "cvc_total_errors,klayout_violations,wire_length,vias,wns,pl_wns,optimized_wns,"
    "fastroute_wns,spef_wns,tns,pl_tns,optimized_tns,fastroute_tns,spef_tns,HPWL,"
    "CoreArea_um^2,critical_path_ns,suggested_clock_period,CLOCK_PERIOD,SYNTH_STRATEGY,"
    "FP_CORE_UTIL,PL_TARGET_DENSITY"
)


def openlane1_run(root: Path, *, failed: bool = True) -> Path:
    run = root / "designs" / "spm" / "runs" / "RUN_OL1"
    (run / "reports" / "signoff").mkdir(parents=True)
    (run / "results").mkdir()
    (run / "logs").mkdir()
    status = "flow failed" if failed else "flow completed"
    values = (
        f"/openlane/designs/spm,spm,RUN_OL1,{status},0h12m3s0ms,0h9m1s0ms,0.0484,"
        "41239,83.5,512.3,1996,131,12,100,0,0,19,1450,4,3,-1,-1,-1,"
        "61234,9876,-0.62,-0.4,-0.55,-0.7,-0.81,-3.2,-1.1,-2.0,-2.9,-4.4,51234.0,"
        "28000.5,10.81,10.81,10,DELAY 0,50,0.55"
    )
    (run / "reports" / "metrics.csv").write_text(OL1_HEADER + "\n" + values + "\n")
    (run / "openlane.log").write_text(
        "[STEP 1]\n[INFO]: Running Synthesis (log: ...)...\n"
        "[STEP 2]\n[INFO]: Running Single-Corner Static Timing Analysis...\n"
        "[STEP 17]\n[INFO]: Running Detailed Routing...\n"
        + (
            "[ERROR]: There are violations in the design after detailed routing.\n"
            if failed
            else ""
        )
    )
    (run / "reports" / "signoff" / "27-antenna_violators.rpt").write_text(
        "Number of pins violated: 4\nNumber of nets violated: 3\n"
    )
    return run
