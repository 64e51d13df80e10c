"""The run report: one HTML page with the block DAG coloured by status, a Gantt-like timeline
of each block's steps (tool and model time), the block table with each escalation's reason,
tokens and cost per role and per block, and per attempt its first diagnostic or first
mismatch inline with the waveform picture of a failing one."""

from __future__ import annotations

import html
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from .report_svg import dag_svg, gantt_svg
from .state import StateStore

VERDICT_FILES = ("compile.json", "lint.json", "smoke.json", "simulate.json", "synthesize.json")

STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:3px 8px;
font-size:13px;text-align:left}th{background:#eee}.PASSED,.PNR_DONE{background:#d8f5d0}
.ESCALATED{background:#f8d0d0}.FAILING{background:#fbeec8}img{max-width:640px;display:block}
"""


def _e(value: Any) -> str:
    return html.escape(str(value))


def _link(run: Path, relative: str, label: str) -> str:
    return f'<a href="{_e(relative)}">{_e(label)}</a>' if (run / relative).exists() else ""


def first_failure(attempt: Path) -> str:
    """The attempt's first mismatch, or else its first error diagnostic, in one line."""
    for name in VERDICT_FILES:
        path = attempt / name
        if not path.is_file():
            continue
        try:
            result = json.loads(path.read_text())
        except json.JSONDecodeError:
            continue
        mismatch = result.get("first_mismatch")
        if isinstance(mismatch, dict) and result.get("status") != "PASS":
            return (
                f"{name.removesuffix('.json')}: first mismatch {mismatch.get('signal')} at "
                f"t={mismatch.get('time')} (cycle {mismatch.get('cycle')}): expected "
                f"{mismatch.get('expected')}, got {mismatch.get('actual')}"
            )
        for d in result.get("diagnostics") or []:
            if d.get("severity") == "error":
                where = f"{d.get('file')}:{d.get('line')}" if d.get("file") else ""
                return (
                    f"{name.removesuffix('.json')}: {where} [{d.get('category')}] "
                    f"{str(d.get('message', ''))[:300]}"
                )
    return ""


def attempts_html(run: Path, block: str) -> str:
    folder = run / "attempts" / block
    if not folder.is_dir():
        return ""
    rows = []
    for attempt in sorted(folder.iterdir()):
        links = [
            _link(run, str(f.relative_to(run)), f.name)
            for f in sorted(attempt.iterdir())
            if f.suffix in (".sv", ".v", ".json")
        ]
        pictures = [
            f'<img alt="{_e(block)} {_e(attempt.name)} waveform" '
            f'src="{_e(str(f.relative_to(run)))}">'
            for f in sorted(attempt.glob("*.png"))
        ]
        failure = first_failure(attempt) if attempt.name.startswith("iter") else ""
        rows.append(
            f"<tr><td>{_e(attempt.name)}</td><td>{' '.join(links)}</td>"
            f'<td class="first-failure">{_e(failure)}</td>'
            f"<td>{''.join(pictures)}</td></tr>"
        )
    return (
        f'<h3>{_e(block)}</h3><table class="attempts" data-block="{_e(block)}">'
        "<tr><th>attempt</th><th>code and diagnostics</th>"
        "<th>first diagnostic or mismatch</th><th>waveform</th></tr>" + "".join(rows) + "</table>"
    )


SYNTH_KEYS = ("status", "cells", "area_um2", "worst_setup_slack_ns", "fmax_mhz")


def synth_text(synth: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in synth.items() if k in SYNTH_KEYS)


def design_edges(meta: dict[str, Any], names: list[str]) -> dict[str, list[str]]:
    """Each block's dependencies, from the run's design file (none if it cannot be read)."""
    from silicon_agent.suite.design import Design
    from silicon_agent.suite.yaml_file import read_yaml

    try:
        design = Design.model_validate(read_yaml(Path(str(meta.get("design")))))
    except Exception:  # the picture is a courtesy: a moved design file still gets a report
        return {name: [] for name in names}
    deps = {b.name: b.depends_on for b in design.blocks}
    return {name: deps.get(name, []) for name in names}


def escalation_text(escalation: dict[str, Any]) -> str:
    reason = str(escalation.get("reason") or "")
    summary = str(escalation.get("summary") or "")
    return f"{reason}: {summary}" if reason and summary else reason or summary


def render_report(run: Path) -> str:
    store = StateStore(run / "state.sqlite")
    try:
        meta = store.meta()
        blocks = store.blocks()
        steps = store.steps()
        events = store.events()
        escalations = store.escalations()
        synthesis = store.synthesis()
    finally:
        store.close()
    step_block = {seq: record.block for seq, record in steps}
    per_block_tokens: dict[str, int] = defaultdict(int)
    per_block_cost: dict[str, float] = defaultdict(float)
    per_role: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0, 0, 0.0])
    per_block_role: dict[tuple[str, str], float] = defaultdict(float)
    for seq, event in events:
        block = step_block.get(seq, "?")
        per_block_tokens[block] += event.input_tokens + event.output_tokens
        per_block_cost[block] += event.cost_usd
        per_block_role[(block, event.component)] += event.cost_usd
        row = per_role[(event.component, event.model)]
        row[0] += 1
        row[1] += event.input_tokens
        row[2] += event.output_tokens
        row[3] += event.cost_usd
    block_rows = []
    for name, state in blocks.items():
        synth = synthesis.get(name) or {}
        escalation = escalations.get(name) or {}
        block_rows.append(
            f'<tr class="{_e(state.status)}"><td>{_e(name)}</td><td>{_e(state.status)}</td>'
            f"<td>{state.iteration}</td><td>{state.step_no}</td>"
            f"<td>{per_block_tokens.get(name, 0)}</td><td>{per_block_cost.get(name, 0.0):.4f}</td>"
            f"<td>{_e(synth_text(synth))}</td>"
            f'<td class="escalation">{_e(escalation_text(escalation))}'
            f"{_e(' QUESTION: ' + state.question) if state.question else ''}</td>"
            f"<td>{_e(state.artifact.value)}</td></tr>"
        )
    timeline = []
    for seq, record in steps:
        links = []
        for key in ("code", "picture"):
            if isinstance(record.detail.get(key), str):
                links.append(_link(run, record.detail[key], key))
        timeline.append(
            f"<tr><td>{seq}</td><td>{_e(record.started_at)}</td><td>{_e(record.block)}</td>"
            f"<td>{_e(record.kind)}</td><td>{record.iteration}</td><td>{_e(record.outcome)}</td>"
            f"<td>{' '.join(links)}</td></tr>"
        )
    cost_rows = [
        f"<tr><td>{_e(role)}</td><td>{_e(model)}</td><td>{int(r[0])}</td><td>{int(r[1])}</td>"
        f"<td>{int(r[2])}</td><td>{r[3]:.4f}</td></tr>"
        for (role, model), r in sorted(per_role.items())
    ]
    roles = sorted({role for _, role in per_block_role})
    block_cost_rows = [
        f"<tr><td>{_e(name)}</td>"
        + "".join(f"<td>{per_block_role.get((name, role), 0.0):.4f}</td>" for role in roles)
        + f"<td>{per_block_cost.get(name, 0.0):.4f}</td></tr>"
        for name in blocks
    ]
    names = list(blocks)
    dag = dag_svg(design_edges(meta, names), blocks)
    gantt = gantt_svg(names, steps)
    total_cost = sum(r[3] for r in per_role.values())
    total_tokens = sum(int(r[1] + r[2]) for r in per_role.values())
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>agent-host run {_e(run.name)}</title>
<style>{STYLE}</style></head><body>
<h1>Run {_e(run.name)}</h1>
<p>Design: {_e(meta.get("design"))} · phase: {_e(meta.get("phase"))} ·
tokens: <span id="total-tokens">{total_tokens}</span> ·
cost: $<span id="total-cost">{total_cost:.4f}</span> ·
servers: {_e(", ".join(meta.get("servers") or []))}</p>
<h2>Block DAG</h2>
{dag}
<h2>Steps over time (blue: tools and host, purple: model)</h2>
{gantt}
<h2>Blocks</h2>
<table id="blocks"><thead><tr><th>block</th><th>status</th><th>iterations</th><th>steps</th>
<th>tokens</th><th>cost (USD)</th><th>synthesis</th><th>escalation / question</th>
<th>artifact</th></tr></thead>
<tbody>{"".join(block_rows)}</tbody></table>
<h2>Tokens and cost per role and model</h2>
<table id="cost"><thead><tr><th>role</th><th>model</th><th>calls</th><th>input tokens</th>
<th>output tokens</th><th>cost (USD)</th></tr></thead><tbody>{"".join(cost_rows)}</tbody></table>
<h2>Cost per block and role (USD)</h2>
<table id="cost-blocks"><thead><tr><th>block</th>{"".join(f"<th>{_e(r)}</th>" for r in roles)}
<th>total</th></tr></thead><tbody>{"".join(block_cost_rows)}</tbody></table>
<h2>Timeline</h2>
<table id="timeline"><thead><tr><th>#</th><th>started</th><th>block</th><th>step</th>
<th>iteration</th><th>outcome</th><th>links</th></tr></thead><tbody>{"".join(timeline)}</tbody></table>
<h2>Attempts</h2>
{"".join(attempts_html(run, name) for name in blocks)}
<p>Every prompt and response: <a href="calls/">calls/</a> · cost events:
<a href="events.jsonl">events.jsonl</a> · tool calls:
<a href="tool_calls.jsonl">tool_calls.jsonl</a></p>
</body></html>
"""


def write_report(run: Path, out: Path | None = None) -> Path:
    target = out or (run / "report.html")
    target.write_text(render_report(run))
    return target
