"""Approval: the engineer reads the plan (text and a DAG picture) and freezes it. The
approval holds a content hash of every planned file; `run` refuses a plan that has none or
whose files changed since."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import yaml

from .plan import Plan, interface_of
from .spec import Specification

APPROVAL = "approval.json"


def planned_files(out: Path) -> list[str]:
    design = yaml.safe_load((out / "design.yaml").read_text())
    files = {"design.yaml", "plan.json", "spec.json"}
    for block in design.get("blocks", []):
        verification = block.get("verification") or {}
        files.update(verification.get("testbench", []))
        files.update(verification.get("vectors", []))
        if block.get("spec_file"):
            files.add(block["spec_file"])
    return sorted(files)


def digests(out: Path) -> dict[str, str]:
    result = {}
    for name in planned_files(out):
        path = out / name
        result[name] = hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "-"
    return result


def overall(files: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()


def approve(out: Path, by: str = "engineer") -> dict[str, object]:
    files = digests(out)
    record = {
        "hash": overall(files),
        "files": files,
        "approved_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "approved_by": by,
    }
    (out / APPROVAL).write_text(json.dumps(record, indent=1) + "\n")
    return record


def check_approved(out: Path) -> str:
    """The approved hash, or a ValueError saying why the plan may not run."""
    record_path = out / APPROVAL
    if not record_path.exists():
        raise ValueError(
            f"the plan in {out} is not approved: review it with `agent-host approve {out}`"
        )
    record = json.loads(record_path.read_text())
    files = digests(out)
    if overall(files) != record.get("hash"):
        approved = record.get("files", {})
        changed = sorted(n for n in set(files) | set(approved) if files.get(n) != approved.get(n))
        raise ValueError(
            f"the plan in {out} changed since it was approved ({', '.join(changed)}): "
            f"review and approve it again with `agent-host approve {out}`"
        )
    return str(record["hash"])


def plan_text(spec: Specification, plan: Plan) -> str:
    lines = [f"Plan {plan.name} (top {plan.top})", f"Prompt: {spec.prompt}", ""]
    lines += [f"L1 {spec.L1.summary}"] + [f"   - {b}" for b in spec.L1.behavior]
    reset = spec.L2.reset
    lines.append(
        f"L2 clock={spec.L2.clock} reset="
        + (f"{reset.name} active-{reset.active} {reset.kind} value {reset.value}" if reset else "-")
        + f"; timing: {spec.L2.timing}"
    )
    lines.append(f"L3 oracle: {spec.L3.oracle}; coverage: {', '.join(spec.L3.coverage_goals)}")
    lines.append(f"L4 {spec.L4.approach}")
    lines.append(
        f"L5 clock_period_ns={spec.L5.clock_period_ns} area={spec.L5.area} power={spec.L5.power}"
    )
    lines.append("")

    def show(name: str, depth: int) -> None:
        node = plan.node(name)
        pad = "  " * depth
        lines.append(f"{pad}{node.name} [{node.kind}] {interface_of(node)}")
        for c in node.connections:
            lines.append(f"{pad}    {c.source} -> {c.target}")
        lines.append(
            f"{pad}    verify: {len(node.verification.scenarios)} scenarios, oracle: "
            f"{node.verification.oracle}; testbench {node.testbench}"
        )
        for child in node.children:
            show(child, depth + 1)

    show(plan.top, 0)
    return "\n".join(lines)
