"""A run's state as text: what `agent-host status` prints and the modem server's
`design_status` returns, from the same checkpoint."""

from __future__ import annotations

from pathlib import Path

from .state import StateStore


def status_text(run: Path) -> str:
    store = StateStore(run / "state.sqlite")
    try:
        meta = store.meta()
        lines = [
            f"run {run.name}: phase={meta.get('phase')} tokens={meta.get('tokens_spent')} "
            f"cost=${float(meta.get('cost_spent') or 0):.4f}"
        ]
        staging = meta.get("staging") or {}
        provided = set(staging.get("provided") or [])
        if staging:
            lines.append(
                f"  vector seed {staging.get('seed')}; verified dependencies from the design's "
                f"files: {', '.join(sorted(provided)) or 'none'}"
            )
        for name, state in store.blocks().items():
            if name in provided:
                # Not designed here: its artifact is the design's own RTL, verified already.
                lines.append(
                    f"  {name:24s} {state.status:12s} provided (reference RTL; a verified "
                    "dependency, not designed in this run)"
                )
                continue
            extra = ""
            if state.escalation and state.status == "ESCALATED":
                extra = f"  ({state.escalation.get('reason')})"
            if state.question:
                extra = f"  QUESTION: {state.question}"
            lines.append(
                f"  {name:24s} {state.status:12s} iterations={state.iteration:<3d} "
                f"phase={state.phase} artifact={state.artifact.value}{extra}"
            )
        return "\n".join(lines)
    finally:
        store.close()
