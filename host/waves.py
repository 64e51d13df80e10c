"""A picture of each failing attempt: the mismatched signal around the first mismatch, drawn
from the simulation's VCD, for the run report."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from .runfolder import RunFolder

WINDOW = 20  # value changes either side of the mismatch


def _signal_key(signals: list[str], wanted: str) -> str | None:
    leaf = wanted.split(".")[-1]
    matches = [s for s in signals if s.split(".")[-1].split("[")[0] == leaf]
    # The design's copy (under the DUT) rather than the testbench's net of the same name.
    matches.sort(key=lambda s: (s.count("."), s))
    return matches[-1] if matches else None


def render_mismatch(
    workspace: Path,
    waves: str | None,
    mismatch: dict[str, Any] | None,
    folder: RunFolder,
    block: str,
    iteration: int,
) -> str | None:
    if not waves or not mismatch or not mismatch.get("signal"):
        return None
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from vcdvcd import VCDVCD

        vcd = VCDVCD(str(workspace / waves), store_tvs=True)
        key = _signal_key(list(vcd.signals), str(mismatch["signal"]))
        if key is None:
            return None
        at = int(str(mismatch.get("time") or 0).split()[0])
        changes = [(t, v) for t, v in vcd[key].tv]
        index = max((i for i, (t, _) in enumerate(changes) if t <= at), default=0)
        window = changes[max(0, index - WINDOW) : index + WINDOW]

        def number(value: str) -> float:
            try:
                return float(int(value, 2))
            except ValueError:
                return float("nan")

        times = [t for t, _ in window]
        values = [number(v) for _, v in window]
        figure, axes = plt.subplots(figsize=(8, 2.2))
        axes.step(times, values, where="post")
        axes.axvline(at, color="red", linestyle="--", label=f"first mismatch @ {at}")
        axes.set_title(f"{block} attempt {iteration}: {key}")
        axes.legend(loc="upper left", fontsize=7)
        figure.tight_layout()
        path = folder.attempt_dir(block, iteration) / "mismatch.png"
        figure.savefig(path, dpi=80)
        plt.close(figure)
        return str(path.relative_to(folder.path))
    except Exception:  # a missing picture must not fail the step
        logging.getLogger(__name__).debug("wave picture failed", exc_info=True)
        return None
