"""read_reports and advise on every layout read_reports knows, built in their real shapes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.openlane.api import OpenLaneApi
from silicon_agent.servers.openlane.metrics import split_metric

sys.path.insert(0, str(Path(__file__).parent))
import runfolders


@pytest.fixture
def api(tmp_path: Path) -> OpenLaneApi:
    return OpenLaneApi(Workspace.open(tmp_path))


def test_metric_names_split_into_base_and_modifiers() -> None:
    assert split_metric("timing__setup__ws__corner:nom_tt_025C_1v80") == (
        "timing__setup__ws",
        {"corner": "nom_tt_025C_1v80"},
    )
    assert split_metric("route__drc_errors__iter:3") == ("route__drc_errors", {"iter": "3"})
    assert split_metric("design__instance__count__class:buffer") == (
        "design__instance__count",
        {"class": "buffer"},
    )
    assert split_metric("a__b__corner:x__iter:2") == ("a__b", {"corner": "x", "iter": "2"})
    assert split_metric("design__die__area") == ("design__die__area", {})


def test_openlane2_completed_run_per_corner(api: OpenLaneApi, tmp_path: Path) -> None:
    runfolders.openlane2_run(tmp_path)
    summary = api.read_reports("runs/RUN_2026")
    assert summary.status == Status.PASS
    assert summary.flavor == "openlane2"
    assert summary.flow_status == "completed"
    assert summary.failed_step is None
    corners = {c.corner: c for c in summary.corners}
    assert set(corners) == {"nom_tt_025C_1v80", "nom_ss_100C_1v60", "nom_ff_n40C_1v95"}
    assert corners["nom_ss_100C_1v60"].setup_ws_ns == pytest.approx(-1.31)
    assert corners["nom_ss_100C_1v60"].setup_violations == 7
    assert corners["nom_tt_025C_1v80"].setup_ws_ns == pytest.approx(0.35)
    # max slew only appears in summary.rpt: it fills in what the metrics lack
    assert corners["nom_tt_025C_1v80"].max_slew_violations == 1
    assert summary.worst_setup_slack_ns == pytest.approx(-1.31)
    assert summary.setup_tns_ns == pytest.approx(-9.17 + 0 + 0)
    assert summary.worst_hold_slack_ns == pytest.approx(0.21)
    assert summary.instance_area_um2 == pytest.approx(12000.5)
    assert summary.die_area_um2 == pytest.approx(40000.0)
    assert summary.core_area_um2 == pytest.approx(26666.0)
    assert summary.utilization_pct == pytest.approx(86.0)
    assert summary.wirelength_um == pytest.approx(45210)
    assert summary.route_drc_errors == 1524
    assert summary.magic_drc_errors == 1524
    assert summary.klayout_drc_errors == 0
    assert summary.lvs_errors == 0
    assert (summary.antenna_violating_nets, summary.antenna_violating_pins) == (2, 3)
    assert summary.power_total_w == pytest.approx(0.00123)
    assert summary.ir_drop_worst_v == pytest.approx(0.0042)
    assert summary.clock_period_ns == pytest.approx(2.0)
    path = summary.critical_path
    assert path is not None and path.slack_ns == pytest.approx(-1.31)
    assert (path.startpoint, path.endpoint, path.logic_depth) == ("_412_", "_398_", 3)
    assert summary.notes == []


def test_openlane2_metrics_csv_when_json_is_missing(api: OpenLaneApi, tmp_path: Path) -> None:
    run = runfolders.openlane2_run(tmp_path)
    (run / "final" / "metrics.json").unlink()
    summary = api.read_reports(str(run.relative_to(tmp_path)))
    assert "runs/RUN_2026/final/metrics.csv" in summary.files_read
    assert summary.worst_setup_slack_ns == pytest.approx(-1.31)
    assert summary.route_drc_errors == 1524


def test_openlane2_failed_run_names_the_step(api: OpenLaneApi, tmp_path: Path) -> None:
    runfolders.openlane2_run(tmp_path, failed=True)
    summary = api.read_reports("runs/RUN_2026")
    assert summary.flow_status == "failed"
    assert summary.failed_step == "magic-drc"
    assert any("1524 DRC errors" in line for line in summary.flow_errors)
    # no final metrics: the STA summary still gives the corners and the worst path
    assert {c.corner for c in summary.corners} >= {"nom_ss_100C_1v60"}
    assert summary.worst_setup_slack_ns == pytest.approx(-1.31)
    assert summary.critical_path is not None
    assert summary.instance_area_um2 == pytest.approx(11800.0)  # last completed step's state
    # signoff reports stand in for the missing final metrics
    assert summary.magic_drc_errors == 3
    assert summary.klayout_drc_errors == 2
    assert summary.lvs_errors == 0
    assert summary.ir_drop_worst_v == pytest.approx(0.0031)
    assert summary.power_total_w == pytest.approx(1.23e-03)


def test_partial_run_is_incomplete_not_an_error(api: OpenLaneApi, tmp_path: Path) -> None:
    run = tmp_path / "runs" / "partial"
    (run / "01-verilator-lint").mkdir(parents=True)
    (run / "01-verilator-lint" / "state_out.json").write_text('{"metrics": {}}')
    (run / "02-yosys-synthesis").mkdir()
    summary = api.read_reports("runs/partial")
    assert summary.status == Status.PASS
    assert summary.flow_status == "incomplete"
    assert summary.last_step == "yosys-synthesis"
    assert [s.completed for s in summary.steps] == [True, False]
    assert summary.worst_setup_slack_ns is None and summary.instance_area_um2 is None


def test_junk_metric_values_are_notes(api: OpenLaneApi, tmp_path: Path) -> None:
    run = runfolders.openlane2_run(tmp_path)
    metrics = json.loads((run / "final" / "metrics.json").read_text())
    metrics["timing__setup__ws"] = "fast enough"
    metrics["design__die__area"] = [1, 2]
    metrics["route__wirelength"] = "NaN"
    (run / "final" / "metrics.json").write_text(json.dumps(metrics))
    summary = api.read_reports("runs/RUN_2026")
    assert summary.status == Status.PASS
    noted = " ".join(n.message for n in summary.notes)
    for name in ("timing__setup__ws", "design__die__area", "route__wirelength"):
        assert name in noted
    assert summary.die_area_um2 is None and summary.wirelength_um is None
    # the worst slack falls back to the per-corner values
    assert summary.worst_setup_slack_ns == pytest.approx(-1.31)


def test_unparseable_metrics_file_is_a_note(api: OpenLaneApi, tmp_path: Path) -> None:
    run = runfolders.openlane2_run(tmp_path)
    (run / "final" / "metrics.json").write_text("{not json")
    (run / "final" / "metrics.csv").write_text("garbage\n")
    summary = api.read_reports("runs/RUN_2026")
    assert summary.status == Status.PASS
    assert {n.file for n in summary.notes} >= {
        "runs/RUN_2026/final/metrics.json",
        "runs/RUN_2026/final/metrics.csv",
    }


def test_openlane1_wide_metrics(api: OpenLaneApi, tmp_path: Path) -> None:
    runfolders.openlane1_run(tmp_path)
    summary = api.read_reports("designs/spm/runs/RUN_OL1")
    assert summary.flavor == "openlane1"
    assert summary.flow_status == "failed"
    assert summary.failed_step == "Detailed Routing"
    assert summary.worst_setup_slack_ns == pytest.approx(-0.81)  # spef_wns: the last stage
    assert summary.setup_tns_ns == pytest.approx(-4.4)
    assert summary.die_area_um2 == pytest.approx(48400.0)
    assert summary.utilization_pct == pytest.approx(83.5)
    assert summary.route_drc_errors == 131
    assert summary.magic_drc_errors == 1450
    assert summary.lvs_errors is None  # -1: the check did not run
    assert (summary.antenna_violating_nets, summary.antenna_violating_pins) == (3, 4)
    assert summary.clock_period_ns == pytest.approx(10.0)
    assert [s.name for s in summary.steps][:2] == [
        "Synthesis",
        "Single-Corner Static Timing Analysis",
    ]


def test_not_a_run_folder_and_outside_workspace(api: OpenLaneApi, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.sv").write_text("module a; endmodule\n")
    refused = api.read_reports("src")
    assert refused.status == Status.INVALID_INPUT
    assert refused.error is not None and refused.error.argument == "run_dir"
    message = refused.error.message
    assert "Looked for:" in message and "Saw: a.sv" in message
    for wanted in ("runs/<tag>", "final/", "Caravel signoff", "metrics.csv or metrics.json"):
        assert wanted in message, wanted
    assert api.read_reports("/etc").status == Status.INVALID_INPUT
    assert api.read_reports("missing/run").status == Status.INVALID_INPUT
    assert api.read_reports("src/a.sv").status == Status.INVALID_INPUT


def test_advise_rules_fire_with_evidence(api: OpenLaneApi, tmp_path: Path) -> None:
    runfolders.openlane2_run(tmp_path)
    advice = api.advise(run_dir="runs/RUN_2026", area_budget_um2=10000)
    fired = {r.rule: r for r in advice.recommendations}
    assert {"setup_wns", "utilisation", "drc", "area_budget"} <= set(fired)
    wns = fired["setup_wns"]
    assert wns.send_to == "rtl" and wns.action == "lengthen_clock_or_pipeline"
    assert wns.evidence["worst_setup_slack_ns"] == pytest.approx(-1.31)
    assert wns.evidence["worst_corner"] == "nom_ss_100C_1v60"
    assert wns.evidence["critical_path"]["endpoint"] == "_398_"
    assert wns.config_changes["CLOCK_PERIOD"] > 2.0 + 1.31
    assert fired["utilisation"].config_changes["FP_CORE_UTIL"] < 80
    assert fired["drc"].evidence["drc_violations"] == 1524
    assert fired["area_budget"].evidence["over_by_pct"] == pytest.approx(20.005, abs=0.01)
    assert "hold_ws" not in fired  # hold slack is positive
    assert {r.id for r in advice.rules} >= {"setup_wns", "utilisation", "drc", "area_budget"}


def test_advise_quiet_run_and_summary_input(api: OpenLaneApi, tmp_path: Path) -> None:
    good = runfolders.ol2_metrics({"nom_tt_025C_1v80": 0.4}, drc=0, util=0.5)
    run = tmp_path / "runs" / "good"
    (run / "final").mkdir(parents=True)
    (run / "final" / "metrics.json").write_text(json.dumps(good))
    summary = api.read_reports("runs/good")
    advice = api.advise(summary=summary.model_dump(mode="json"))
    assert advice.status == Status.PASS
    assert [r.rule for r in advice.recommendations] == ["antenna"]
    assert any(n.startswith("area_budget") for n in advice.not_evaluated)


def test_advise_refuses_bad_input(api: OpenLaneApi, tmp_path: Path) -> None:
    assert api.advise().status == Status.INVALID_INPUT
    assert api.advise(run_dir="nowhere").status == Status.INVALID_INPUT
    bad = api.advise(summary={"status": "PASS", "worst_setup_slack_ns": "very bad"})
    assert bad.status == Status.INVALID_INPUT and bad.error is not None
    assert "worst_setup_slack_ns" in bad.error.message
    runfolders.openlane2_run(tmp_path)
    assert api.advise(run_dir="runs/RUN_2026", area_budget_um2=-5).status == Status.INVALID_INPUT


LAYOUTS = {
    "openlane2_run": lambda root: runfolders.openlane2_run(root),
    "openlane2_final": runfolders.openlane2_final,
    "openlane1_run": lambda root: runfolders.openlane1_run(root, failed=False),
    "caravel_signoff": runfolders.caravel_signoff_ol1,
    "metrics_file": lambda root: runfolders.bare_metrics(root)[0],
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_every_layout_is_detected_and_summarised(
    api: OpenLaneApi, tmp_path: Path, layout: str
) -> None:
    where = LAYOUTS[layout](tmp_path)
    summary = api.read_reports(str(where.relative_to(tmp_path)))
    assert summary.status == Status.PASS, summary.summary
    assert summary.layout == layout
    assert summary.detected and summary.files_read
    assert summary.worst_setup_slack_ns is not None
    assert summary.utilization_pct is not None
    assert summary.route_drc_errors is not None or summary.magic_drc_errors is not None
    assert summary.antenna_violating_nets is not None


def test_caravel_signoff_openlane1(api: OpenLaneApi, tmp_path: Path) -> None:
    runfolders.caravel_signoff_ol1(tmp_path)
    summary = api.read_reports("signoff/user_proj_mac")
    assert summary.layout == "caravel_signoff" and summary.flavor == "openlane1"
    assert summary.flow_status == "completed"
    assert summary.flow_version == "OpenLane 2735f415748673b261afc064003f741e908ea3d1"
    assert summary.pdk == "sky130B" and summary.std_cell_library == "sky130_fd_sc_hd"
    assert summary.pdk_version and summary.pdk_version.startswith("open_pdks 78b7bc3")
    corners = {c.corner: c for c in summary.corners}
    assert set(corners) == {"rcx_min", "rcx_max", "rcx_nom"}
    assert corners["rcx_max"].setup_ws_ns == pytest.approx(6.95)
    assert corners["rcx_min"].hold_ws_ns == pytest.approx(0.31)
    # Signed slacks of the signoff STA, not the CSV's WNS (clamped at 0; -1 for "not run").
    assert summary.worst_setup_slack_ns == pytest.approx(6.95)
    assert summary.worst_hold_slack_ns == pytest.approx(0.31)
    assert summary.magic_drc_errors == 0 and summary.lvs_errors == 0
    assert summary.antenna_violating_nets == 4 and summary.antenna_violating_pins == 5
    assert summary.ir_drop_worst_v == pytest.approx(0.00021)
    assert summary.xor_differences == 0
    assert summary.power_total_w == pytest.approx(1.23e-3)
    assert summary.core_area_um2 == 240000.0 and summary.utilization_pct == 41.5
    assert summary.clock_period_ns == 10


def test_caravel_signoff_openlane2_timing_reports(api: OpenLaneApi, tmp_path: Path) -> None:
    runfolders.caravel_signoff_ol2(tmp_path)
    summary = api.read_reports("signoff/user_proj_fir")
    assert summary.layout == "caravel_signoff" and summary.flavor == "openlane2"
    assert summary.flow_version == "OpenLane 2.0.0rc2"
    corners = {c.corner: c for c in summary.corners}
    # The table cuts corner names short; the corner folders complete them.
    assert set(corners) == {"nom_tt_025C_1v80", "nom_ss_100C_1v60", "nom_ff_n40C_1v95"}
    assert corners["nom_ss_100C_1v60"].max_slew_violations == 88
    assert corners["nom_ss_100C_1v60"].setup_ws_ns == pytest.approx(5.05)
    assert corners["nom_tt_025C_1v80"].hold_ws_ns == pytest.approx(0.21)  # metrics first
    assert summary.worst_setup_slack_ns == pytest.approx(5.05)
    assert summary.utilization_pct == pytest.approx(38.0)
    assert summary.die_area_um2 == pytest.approx(2800.0 * 1760.0)
    assert summary.core_area_um2 == pytest.approx((2794.04 - 5.52) * (1748.96 - 10.88))
    assert not summary.notes  # bounding boxes are values, not junk


def test_signoff_folder_with_nothing_readable_is_refused(api: OpenLaneApi, tmp_path: Path) -> None:
    (tmp_path / "signoff" / "caravel" / "openlane-signoff").mkdir(parents=True)
    (tmp_path / "signoff" / "caravel" / "openlane-signoff" / ".gitignore").write_text("*\n")
    refused = api.read_reports("signoff/caravel")
    assert refused.status == Status.INVALID_INPUT and refused.error is not None
    assert "no report in it could be read" in refused.error.message
    assert (
        "Looked for:" in refused.error.message and "Saw: openlane-signoff/" in refused.error.message
    )


def test_final_folder_and_bare_metrics_files(api: OpenLaneApi, tmp_path: Path) -> None:
    runfolders.openlane2_final(tmp_path)
    final = api.read_reports("runs/LL_RUN/final")
    assert final.layout == "openlane2_final" and final.flavor == "openlane2"
    assert final.worst_setup_slack_ns == pytest.approx(-1.31)
    assert final.instance_area_um2 == pytest.approx(12000.5)
    assert final.route_drc_errors == 0 and final.xor_differences == 0
    assert final.flow_version == "OpenLane 2.3.10" and final.pdk == "sky130A"
    assert final.clock_period_ns == 2.0
    as_json, as_csv = runfolders.bare_metrics(tmp_path)
    one = api.read_reports("shared/metrics.json")
    other = api.read_reports("shared/metrics.csv")
    assert one.layout == other.layout == "metrics_file"
    skip = {"detected": True, "files_read": True, "run_dir": True, "summary": True}
    skip["corners"] = {"__all__": {"source"}}
    assert one.model_dump(exclude=skip) == other.model_dump(exclude=skip)
    assert one.route_drc_errors == 3 and one.utilization_pct == pytest.approx(52.0)


def test_advise_fires_on_caravel_signoff(api: OpenLaneApi, tmp_path: Path) -> None:
    runfolders.caravel_signoff_ol1(tmp_path)
    advice = api.advise(run_dir="signoff/user_proj_mac", area_budget_um2=1000)
    fired = {r.rule: r for r in advice.recommendations}
    assert fired["antenna"].evidence["antenna_violating_nets"] == 4
    assert fired["antenna"].evidence["antenna_violating_pins"] == 5
    assert "area_budget" in fired


def test_links_out_of_the_workspace_are_not_read(api: OpenLaneApi, tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    secret = outside / "metrics.json"
    secret.write_text(json.dumps({"design__instance__area": 4242.0, "secret_key": 1.0}))
    run = runfolders.openlane2_run(tmp_path, final=False)
    (run / "final").mkdir()
    (run / "final" / "metrics.json").symlink_to(secret)
    (run / "error.log").unlink()
    (run / "error.log").symlink_to("/etc/passwd")
    (run / "resolved.json").unlink()
    (run / "resolved.json").symlink_to(secret)
    planted = outside / "99-openroad-stapostpnr"
    planted.mkdir()
    (planted / "summary.rpt").write_text(
        runfolders.sta_summary({"secret_corner": {"setup_ws": -42.0}})
    )
    (run / "99-openroad-stapostpnr").symlink_to(planted)
    summary = api.read_reports("runs/RUN_2026")
    dumped = summary.model_dump_json()
    assert "secret_key" not in dumped and "4242" not in dumped and "secret_corner" not in dumped
    assert "root:" not in dumped and "/etc/passwd" not in dumped and str(outside) not in dumped
    unread = {n.file for n in summary.notes if "outside the workspace" in n.message}
    assert {"runs/RUN_2026/final/metrics.json", "runs/RUN_2026/error.log"} <= unread
    assert summary.flow_errors == []
    # A signoff folder whose report links out is read without it.
    folder = runfolders.caravel_signoff_ol1(tmp_path)
    (folder / "manufacturability.rpt").unlink()
    (folder / "manufacturability.rpt").symlink_to("/etc/passwd")
    signoff = api.read_reports("signoff/user_proj_mac")
    assert signoff.status == Status.PASS
    assert "root:" not in signoff.model_dump_json()
    assert any(n.file.endswith("manufacturability.rpt") for n in signoff.notes)
