"""read_reports and advise on OpenLane 2 / OpenLane 1 run folders in the documented layouts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from servers.core.models import Status
from servers.core.workspace import Workspace
from servers.openlane.api import OpenLaneApi
from servers.openlane.metrics import split_metric

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
    assert "not an OpenLane run folder" in refused.error.message
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
