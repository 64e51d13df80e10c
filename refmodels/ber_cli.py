"""``python -m silicon_agent.refmodels ber``: BER/FER vs Eb/N0 of the turbo decoder (CSV, PNG).

The sweep is a campaign: each task is one chunk of code blocks at one Eb/N0 with its own seed,
so any executor (in-process, a process pool, Ray) gives the same counts. A point stops at the
first chunk, in chunk order, where it reaches its block-error target; chunks run ahead of that
in parallel are discarded, never counted."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

from silicon_agent.campaigns.executors import Executor, SerialExecutor
from silicon_agent.campaigns.runner import CampaignRun
from silicon_agent.campaigns.summary import Summary, table
from silicon_agent.campaigns.task import Outcome, Task, TaskResult
from silicon_agent.campaigns.tools import PYTHON_PROBES
from silicon_agent.refmodels.ber import BerPoint, simulate_point

BATCH = 32
SEED_STRIDE = 100003  # chunk j of run seed s is simulated with seed s * SEED_STRIDE + j


def chunk_task(
    k: int, ebn0_db: float, chunk: int, blocks: int, iters: int, fixed: bool, seed: int
) -> Outcome:
    """``blocks`` code blocks at one Eb/N0, seeded by the run seed and the chunk index."""
    pt = simulate_point(k, ebn0_db, blocks, iters, fixed, seed=seed * SEED_STRIDE + chunk)
    return Outcome(
        ok=True,
        data={
            "ebn0_db": ebn0_db,
            "chunk": chunk,
            "blocks": blocks,
            "bit_errors": pt.bit_errors,
            "block_errors": pt.block_errors,
            "bits": pt.bits,
            "iterations": round(pt.mean_iterations * blocks),
        },
    )


@dataclass
class _Point:
    """One Eb/N0 point's counted chunks, in chunk order."""

    ebn0_db: float
    next_chunk: int = 0
    done: bool = False
    counted: list[TaskResult] = field(default_factory=list)

    def blocks(self) -> int:
        return sum(r.data["blocks"] for r in self.counted)

    def block_errors(self) -> int:
        return sum(r.data["block_errors"] for r in self.counted)

    def point(self) -> BerPoint:
        n = self.blocks()
        return BerPoint(
            ebn0_db=self.ebn0_db,
            blocks=n,
            bit_errors=sum(r.data["bit_errors"] for r in self.counted),
            block_errors=self.block_errors(),
            bits=sum(r.data["bits"] for r in self.counted),
            mean_iterations=sum(r.data["iterations"] for r in self.counted) / max(n, 1),
        )


def run_ber(
    k: int,
    ebn0: list[float],
    iters: int,
    blocks: int,
    max_errors: int,
    fixed: bool,
    seed: int,
    out: Path,
    executor: Executor | None = None,
    chunk_blocks: int = BATCH,
) -> list[BerPoint]:
    """Simulate each Eb/N0 point in chunks of ``chunk_blocks`` until ``blocks`` or
    ``max_errors`` block errors (TS 36.212 5.1.3.2 turbo code); write CSV, PNG and the
    campaign summary under ``out``."""
    if chunk_blocks < 1 or blocks < 1:
        raise ValueError(f"INVALID_INPUT: --chunk and --blocks must be at least 1 ({chunk_blocks})")
    executor = executor or SerialExecutor()
    mode = "fixed" if fixed else "float"
    n_chunks = math.ceil(blocks / chunk_blocks)
    points = [_Point(e) for e in ebn0]
    run = CampaignRun(f"ber-K{k}-{mode}", executor, PYTHON_PROBES)
    try:
        while open_points := [p for p in points if not p.done]:
            # One wave: enough chunks to keep every worker busy, spread over the open points.
            per_point = max(1, math.ceil(executor.parallelism / len(open_points)))
            wave: list[tuple[_Point, Task]] = []
            for p in open_points:
                for j in range(p.next_chunk, min(p.next_chunk + per_point, n_chunks)):
                    nb = min(chunk_blocks, blocks - j * chunk_blocks)
                    args = {"k": k, "ebn0_db": p.ebn0_db, "chunk": j, "blocks": nb}
                    args |= {"iters": iters, "fixed": fixed, "seed": seed}
                    task_id = f"ber/K{k}/{mode}/ebn0{p.ebn0_db:+.3f}/chunk{j:05d}"
                    wave.append(
                        (
                            p,
                            Task(
                                id=task_id,
                                fn="silicon_agent.refmodels.ber_cli:chunk_task",
                                args=args,
                            ),
                        )
                    )
                p.next_chunk = min(p.next_chunk + per_point, n_chunks)
            results = run.run([t for _, t in wave])
            for (p, _), result in zip(wave, results, strict=True):
                # The serial rule: take the next chunk while under both limits.
                if not p.done and p.blocks() < blocks and p.block_errors() < max_errors:
                    p.counted.append(result)
            for p in open_points:
                p.done = (
                    p.blocks() >= blocks
                    or p.block_errors() >= max_errors
                    or p.next_chunk >= n_chunks
                )
    finally:
        executor.close()
    curve = [p.point() for p in points]
    parameters = {
        "K": k,
        "ebn0_db": list(ebn0),
        "iters": iters,
        "blocks": blocks,
        "max_errors": max_errors,
        "fixed": fixed,
        "seed": seed,
        "chunk_blocks": chunk_blocks,
    }
    summary = run.summary(parameters, [r for p in points for r in p.counted])
    summary.totals = {"points": [pt.model_dump() for pt in curve]}
    out.mkdir(parents=True, exist_ok=True)
    run.finish(summary, curve_table(summary), out / "campaign")
    stem = f"ber_K{k}_{mode}_{iters}it"
    with (out / f"{stem}.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["ebn0_db", "blocks", "bit_errors", "bits", "ber", "block_errors", "fer"])
        for pt in curve:
            w.writerow(
                [
                    pt.ebn0_db,
                    pt.blocks,
                    pt.bit_errors,
                    pt.bits,
                    f"{pt.ber:.6e}",
                    pt.block_errors,
                    f"{pt.fer:.6e}",
                ]
            )
    _plot(
        curve,
        out / f"{stem}.png",
        f"LTE turbo K={k}, {iters} it, max-log-MAP x0.75{' (fixed)' if fixed else ''}",
    )
    return curve


def curve_table(summary: Summary) -> str:
    rows = [
        [
            f"{p['ebn0_db']:.3f}",
            str(p["blocks"]),
            str(p["bit_errors"]),
            f"{p['bit_errors'] / max(p['bits'], 1):.3e}",
            str(p["block_errors"]),
            f"{p['block_errors'] / max(p['blocks'], 1):.3e}",
        ]
        for p in summary.totals["points"]
    ]
    return table(rows, ["Eb/N0 dB", "blocks", "bit errors", "BER", "block errors", "FER"])


def _plot(points: list[BerPoint], path: Path, title: str) -> None:
    """Plot (tooling, no 3GPP clause)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    x = [p.ebn0_db for p in points]
    # Points without errors are left out rather than drawn at an arbitrary floor.
    ax.semilogy(x, [p.ber if p.bit_errors else float("nan") for p in points], "o-", label="BER")
    ax.semilogy(x, [p.fer if p.block_errors else float("nan") for p in points], "s--", label="FER")
    ax.set_xlabel("Eb/N0 [dB]")
    ax.set_ylabel("error rate")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
