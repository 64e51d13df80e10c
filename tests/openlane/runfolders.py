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


# -- the other layouts read_reports knows -------------------------------------------------------


def _rich(table: rich.table.Table, width: int) -> str:
    buffer = io.StringIO()
    rich.console.Console(file=buffer, width=width).print(table)
    return buffer.getvalue()


def _long_csv(metrics: dict) -> str:
    """OpenLane 2's metrics.csv (State.save_snapshot): a Metric,Value row per metric."""
    return "Metric,Value\n" + "".join(f"{k},{v}\n" for k, v in metrics.items())


def openlane2_final(root: Path) -> Path:
    """runs/<tag>/final/ as OpenLane 2 / LibreLane save it: metrics and one folder per view,
    with the run's resolved.json beside it."""
    run = root / "runs" / "LL_RUN"
    final = run / "final"
    for view in ("def", "gds", "lef", "nl", "odb", "pnl", "sdc", "spef", "vh"):
        (final / view).mkdir(parents=True)
        (final / view / f"mac.{view}").write_text("")
    metrics = ol2_metrics({"nom_tt_025C_1v80": 0.35, "nom_ss_100C_1v60": -1.31}, drc=0)
    metrics["design__xor_difference__count"] = 0
    (final / "metrics.json").write_text(json.dumps(metrics, indent=4))
    (final / "metrics.csv").write_text(_long_csv(metrics))
    resolved = {
        "meta": {"version": 2, "flow": "Classic", "openlane_version": "2.3.10"},
        "DESIGN_NAME": "mac",
        "CLOCK_PERIOD": 2.0,
        "PDK": "sky130A",
        "STD_CELL_LIBRARY": "sky130_fd_sc_hd",
    }
    (run / "resolved.json").write_text(json.dumps(resolved))
    return final


# caravel_user_project's signoff/<design>/metrics.csv: OpenLane 1's wide table.
CARAVEL_OL1_HEADER = (
    "design,design_name,config,flow_status,total_runtime,routed_runtime,(Cell/mm^2)/Core_Util,"
    "DIEAREA_mm^2,CellPer_mm^2,OpenDP_Util,Final_Util,Peak_Memory_Usage_MB,synth_cell_count,"
    "tritonRoute_violations,Short_violations,MetSpc_violations,OffGrid_violations,"
    "MinHole_violations,Other_violations,Magic_violations,pin_antenna_violations,"
    "net_antenna_violations,lvs_total_errors,cvc_total_errors,klayout_violations,wire_length,"
    "vias,wns,pl_wns,optimized_wns,fastroute_wns,spef_wns,tns,pl_tns,optimized_tns,"
    "fastroute_tns,spef_tns,HPWL,CoreArea_um^2,critical_path_ns,suggested_clock_period,"
    "suggested_clock_frequency,CLOCK_PERIOD,FP_CORE_UTIL,PL_TARGET_DENSITY,STD_CELL_LIBRARY,"
    "SYNTH_STRATEGY"
)

STA_TEXT_SUMMARY = """
===========================================================================
report_tns
============================================================================
tns {tns:.2f}

===========================================================================
report_wns
============================================================================
wns {wns:.2f}

===========================================================================
report_worst_slack -max (Setup)
============================================================================
worst slack {setup:.2f}

===========================================================================
report_worst_slack -min (Hold)
============================================================================
worst slack {hold:.2f}
"""

XOR_XML = """<?xml version="1.0" encoding="utf-8"?>
<report-database>
 <description>XOR {design}.gds vs. {design}.klayout.gds</description>
 <top-cell>{design}</top-cell>
 <categories>
  <category>
   <name>68/20</name>
   <description>XOR data for layer 68/20</description>
  </category>
 </categories>
 <items>
{items} </items>
</report-database>
"""


def _xor(design: str, items: int) -> str:
    one = "  <item>\n   <category>'68/20'</category>\n   <cell>{0}</cell>\n  </item>\n"
    return XOR_XML.format(design=design, items=one.format(design) * items)


def _irdrop_table(nominal: float, worst: float) -> str:
    """OpenROAD's per-instance voltage table (OpenLane 1 signoff irdrop-<net>.rpt)."""
    rows = ["Instance name,  X location,  Y location,  Voltage "]
    for i, volts in enumerate((nominal, nominal - worst / 3, nominal - worst, nominal)):
        rows.append(f"FILLER_0_{i}_100, {10.5 + i}, 20.4, {volts:g}")
    return "\n".join(rows) + "\n"


def caravel_signoff_ol1(root: Path) -> Path:
    """signoff/<design>/ as caravel_user_project keeps an OpenLane 1 hardening."""
    design = "user_proj_mac"
    folder = root / "signoff" / design
    signoff = folder / "openlane-signoff"
    signoff.mkdir(parents=True)
    values = (
        f"/project/openlane/{design},{design},23_10_17_14_33,flow completed,0h7m9s0ms,"
        "0h1m28s0ms,182.2,0.4,72.9,41.5,-1,1208.08,303,0,0,0,0,0,0,0,5,4,0,-1,-1,144927,3376,"
        "0.0,-1,-1,-1,-1,0.0,-1,-1,-1,-1,256357794.0,240000.0,3.4,4.0,250.0,10,40,0.45,"
        "sky130_fd_sc_hd,AREA 0"
    )
    (folder / "metrics.csv").write_text(CARAVEL_OL1_HEADER + "\n" + values + "\n")
    (folder / "OPENLANE_VERSION").write_text("OpenLane 2735f415748673b261afc064003f741e908ea3d1\n")
    (folder / "PDK_SOURCES").write_text("open_pdks 78b7bc32ddb4b6f14f76883c2e2dc5b5de9d1cbc\n")
    (folder / "config.tcl").write_text(
        f'set ::env(DESIGN_NAME) "{design}"\nset ::env(PDK) "sky130B"\n'
        'set ::env(STD_CELL_LIBRARY) "sky130_fd_sc_hd"\nset ::env(CLOCK_PERIOD) "10"\n'
    )
    run = f"/project/openlane/{design}/runs/23_10_17_14_33"
    (folder / "manufacturability.rpt").write_text(
        f"Design Name: {design}\nRun Directory: {run}\n"
        "----------------------------------------\n\nMagic DRC Summary:\n"
        f"Source: {run}/reports/signoff/drc.rpt\nTotal Magic DRC violations is 0\n"
        "----------------------------------------\n\nLVS Summary:\n"
        f"Source: {run}/logs/signoff/42-{design}.lef.lvs.log\n"
        "Number of nets: 618                        |Number of nets: 618\n"
        "Design is LVS clean.\n----------------------------------------\n\n"
        f"Antenna Summary:\nSource: {run}/logs/signoff/44-arc.log\n"
        "Pin violations: 5\nNet violations: 4\n"
    )
    for index, corner, setup, hold in (
        (30, "rcx_min", 8.10, 0.31),
        (32, "rcx_max", 6.95, 0.52),
        (34, "rcx_nom", 7.79, 0.45),
    ):
        step = signoff / f"{index}-sta-{corner}"
        step.mkdir()
        (step / "multi_corner_sta.summary.rpt").write_text(
            STA_TEXT_SUMMARY.format(tns=0.0, wns=0.0, setup=setup, hold=hold)
        )
    (signoff / "35-irdrop-vccd1.rpt").write_text(_irdrop_table(1.8, 0.00021))
    (signoff / "35-irdrop-vssd1.rpt").write_text(_irdrop_table(0.0, -0.00009))
    (signoff / "38-xor.xml").write_text(_xor(design, 0))
    (signoff / "lvs.rpt").write_text(
        "Subcircuit summary:\nCircuit 1: user_proj_mac |Circuit 2: user_proj_mac\n"
        "Number of devices: 2012 |Number of devices: 2012\n"
        "Final result: Circuits match uniquely.\n"
    )
    (signoff / "44-antenna_violators.rpt").write_text(
        "".join(
            f"Partial/Required:  {ratio:.2f}, Required:    400.0, Partial:   {ratio * 400:.2f}, "
            f"Net: {net}, Pin: {pin}, Layer: met3\n"
            for ratio, net, pin in (
                (2.23, "wb_clk_i", "_172_/A1"),
                (1.81, "net142", "_451_/A"),
                (1.81, "net142", "_450_/A"),
                (1.68, "net89", "_261_/A"),
                (1.01, "net77", "_281_/A"),
            )
        )
    )
    (signoff / "26-rcx_sta.power.rpt").write_text(POWER_RPT)
    return folder


def caravel_signoff_ol2(root: Path) -> Path:
    """signoff/<design>/ of a Caravel project hardened with OpenLane 2: Metric,Value CSV and
    timing-reports/ with the (older, 7-column) summary table and per-corner figures."""
    design = "user_proj_fir"
    folder = root / "signoff" / design
    timing = folder / "openlane-signoff" / "timing-reports"
    timing.mkdir(parents=True)
    setup = {"nom_tt_025C_1v80": 5.92, "nom_ss_100C_1v60": 5.05, "nom_ff_n40C_1v95": 6.40}
    metrics = ol2_metrics(setup, drc=0, util=0.38)
    # Early OpenLane 2 gave the die and core as bounding boxes, not areas.
    del metrics["design__die__area"], metrics["design__core__area"]
    metrics["design__die__bbox"] = "0.0 0.0 2800.0 1760.0"
    metrics["design__core__bbox"] = "5.52 10.88 2794.04 1748.96"
    (folder / "metrics.csv").write_text(_long_csv(metrics))
    (folder / "OPENLANE_VERSION").write_text("OpenLane 2.0.0rc2\n")
    (folder / "PDK_SOURCES").write_text("open_pdks bdc9412b3e468c102d01b7cf6337be06ec6e9c9a\n")
    table = rich.table.Table()
    table.add_column("Corner/Group", max_width=15, no_wrap=True, overflow="ellipsis")
    for name in (
        "Hold Violations",
        "of which reg-to-reg",
        "Setup Violations",
        "of which reg-to-reg",
        "Max Cap Violations",
        "Max Slew Violations",
    ):
        table.add_column(name, width=15)
    table.add_row("Overall", "0", "0", "0", "0", "0", "88")
    for corner in setup:
        table.add_row(corner, "0", "0", "0", "0", "0", "88" if "ss" in corner else "0")
        (timing / corner).mkdir()
        (timing / corner / "ws.max.rpt").write_text(
            "\n"
            + "=" * 75
            + "\nWorst Slack (Setup)\n"
            + "=" * 76
            + f"\n{corner}: {setup[corner]:.6f}\n"
        )
        (timing / corner / "ws.min.rpt").write_text(
            "\n" + "=" * 75 + "\nWorst Slack (Hold)\n" + "=" * 76 + f"\n{corner}: 0.251200\n"
        )
        (timing / corner / "power.rpt").write_text(POWER_RPT)
    (timing / "summary.rpt").write_text(_rich(table, 130))
    return folder


def bare_metrics(root: Path) -> tuple[Path, Path]:
    """A metrics.json and a metrics.csv handed over on their own."""
    folder = root / "shared"
    folder.mkdir()
    metrics = ol2_metrics({"nom_tt_025C_1v80": 0.12}, drc=3, util=0.52)
    (folder / "metrics.json").write_text(json.dumps(metrics))
    (folder / "metrics.csv").write_text(_long_csv(metrics))
    return folder / "metrics.json", folder / "metrics.csv"
