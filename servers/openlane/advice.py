"""advise: decision rules as data, each recommendation with the figures that triggered it."""

from __future__ import annotations

from typing import Any

from silicon_agent.servers.core.models import Status

from .models import AdviceResult, InputProblem, Recommendation, Rule, RunSummary, SynthResult

RULES: tuple[Rule, ...] = (
    Rule(
        id="setup_wns",
        metric="worst_setup_slack_ns",
        op="<",
        threshold=0.0,
        action="lengthen_clock_or_pipeline",
        send_to="rtl",
        message="Setup slack is negative, the clock is missed: send the block back to RTL to "
        "pipeline the critical path (a register between its start and end point), or lengthen "
        "CLOCK_PERIOD to the suggested value.",
    ),
    Rule(
        id="hold_ws",
        metric="worst_hold_slack_ns",
        op="<",
        threshold=0.0,
        action="raise_hold_margin",
        send_to="config",
        message="Hold violations remain: raise the resizer hold margins so repair inserts delay.",
    ),
    Rule(
        id="utilisation",
        metric="utilization_pct",
        op=">",
        threshold=80.0,
        action="lower_fp_core_util",
        send_to="floorplan",
        message="Core utilisation is high: lower FP_CORE_UTIL (a larger core) so placement and "
        "routing have room.",
    ),
    Rule(
        id="drc",
        metric="drc_violations",
        op=">",
        threshold=100.0,
        action="routing_pdn_changes",
        send_to="routing",
        message="Many DRC violations: relax routing congestion (GRT_ADJUSTMENT, lower density) "
        "or revisit the PDN pitch.",
    ),
    Rule(
        id="antenna",
        metric="antenna_violating_nets",
        op=">",
        threshold=0.0,
        action="diode_insertion",
        send_to="config",
        message="Antenna violations: enable heuristic diode insertion or diodes on ports.",
    ),
    Rule(
        id="lvs",
        metric="lvs_errors",
        op=">",
        threshold=0.0,
        action="inspect_lvs",
        send_to="routing",
        message="LVS mismatches: the layout does not match the netlist; read the Netgen report.",
    ),
    Rule(
        id="area_budget",
        metric="instance_area_um2",
        op=">",
        threshold=None,
        action="resource_sharing",
        send_to="rtl",
        message="Cell area is over the budget: share resources (multiplexed operators, fewer "
        "parallel datapaths) in RTL.",
    ),
)
PERIOD_MARGIN = 1.1


def _value(data: dict[str, Any], metric: str) -> float | None:
    if metric == "drc_violations":
        counts = [
            data.get(k)
            for k in ("route_drc_errors", "magic_drc_errors", "klayout_drc_errors")
            if isinstance(data.get(k), int | float)
        ]
        return float(max(counts)) if counts else None
    if metric == "instance_area_um2" and data.get(metric) is None:
        metric = "area_um2"  # a synthesize result
    if metric == "utilization_pct" and data.get(metric) is None:
        return None
    value = data.get(metric)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def advise(summary: RunSummary | SynthResult, area_budget_um2: float | None = None) -> AdviceResult:
    data = summary.model_dump(mode="json")
    recommendations: list[Recommendation] = []
    not_evaluated: list[str] = []
    rules: list[Rule] = []
    for rule in RULES:
        threshold = rule.threshold
        if rule.id == "area_budget":
            if area_budget_um2 is None:
                not_evaluated.append(f"{rule.id}: no area_budget_um2 given")
                rules.append(rule)
                continue
            threshold = float(area_budget_um2)
            rule = rule.model_copy(update={"threshold": threshold})
        rules.append(rule)
        value = _value(data, rule.metric)
        if value is None or threshold is None:
            not_evaluated.append(f"{rule.id}: {rule.metric} not reported")
            continue
        fired = value < threshold if rule.op == "<" else value > threshold
        if fired:
            recommendations.append(_recommend(rule, value, threshold, data))
    if data.get("flow_status") == "failed":
        recommendations.insert(
            0,
            Recommendation(
                rule="flow_failed",
                action="inspect_failed_step",
                send_to="config",
                message=f"The flow failed at {data.get('failed_step') or 'an unknown step'}: "
                "fix that step's error before reading its figures.",
                evidence={
                    "failed_step": data.get("failed_step"),
                    "flow_errors": (data.get("flow_errors") or [])[:5],
                },
            ),
        )
    summary_line = (
        "; ".join(f"{r.rule}: {r.action}" for r in recommendations)
        if recommendations
        else "no rule fired"
    )
    return AdviceResult(
        status=Status.PASS,
        summary=summary_line,
        recommendations=recommendations,
        rules=rules,
        not_evaluated=not_evaluated,
    )


def _recommend(rule: Rule, value: float, threshold: float, data: dict[str, Any]) -> Recommendation:
    evidence: dict[str, Any] = {rule.metric: value, "threshold": threshold}
    changes: dict[str, Any] = {}
    if rule.id == "setup_wns":
        corners = [c for c in data.get("corners") or [] if c.get("setup_ws_ns") is not None]
        if corners:
            worst = min(corners, key=lambda c: c["setup_ws_ns"])
            evidence["worst_corner"] = worst["corner"]
        if data.get("setup_tns_ns") is not None:
            evidence["setup_tns_ns"] = data["setup_tns_ns"]
        path = data.get("critical_path")
        if path:
            evidence["critical_path"] = {
                "startpoint": path.get("startpoint"),
                "endpoint": path.get("endpoint"),
                "logic_depth": path.get("logic_depth"),
                "arrival_ns": path.get("arrival_ns"),
            }
        period = data.get("clock_period_ns")
        if isinstance(period, int | float):
            evidence["clock_period_ns"] = period
            changes["CLOCK_PERIOD"] = round((period - value) * PERIOD_MARGIN, 2)
    elif rule.id == "hold_ws":
        changes = {"PL_RESIZER_HOLD_SLACK_MARGIN": 0.2, "GRT_RESIZER_HOLD_SLACK_MARGIN": 0.1}
        if data.get("hold_violations") is not None:
            evidence["hold_violations"] = data["hold_violations"]
    elif rule.id == "utilisation":
        changes["FP_CORE_UTIL"] = max(10, int(value * 0.6))
        for key in ("instance_area_um2", "core_area_um2"):
            if data.get(key) is not None:
                evidence[key] = data[key]
    elif rule.id == "drc":
        for key in ("route_drc_errors", "magic_drc_errors", "klayout_drc_errors"):
            if data.get(key) is not None:
                evidence[key] = data[key]
        changes = {"GRT_ADJUSTMENT": 0.4, "PL_TARGET_DENSITY_PCT": 45}
    elif rule.id == "antenna":
        changes = {"RUN_HEURISTIC_DIODE_INSERTION": True, "DIODE_ON_PORTS": "in"}
        if data.get("antenna_violating_pins") is not None:
            evidence["antenna_violating_pins"] = data["antenna_violating_pins"]
    elif rule.id == "area_budget":
        evidence["over_by_pct"] = round(100.0 * (value - threshold) / threshold, 2)
        if data.get("cell_types"):
            top = sorted(data["cell_types"].items(), key=lambda kv: -kv[1])[:5]
            evidence["largest_cell_counts"] = dict(top)
    return Recommendation(
        rule=rule.id,
        action=rule.action,
        send_to=rule.send_to,
        message=rule.message,
        evidence=evidence,
        config_changes=changes,
    )


def refused(message: str, argument: str, hint: str | None = None) -> AdviceResult:
    return AdviceResult(
        status=Status.INVALID_INPUT,
        summary=message,
        error=InputProblem(message=message, argument=argument, hint=hint),
        rules=list(RULES),
    )
