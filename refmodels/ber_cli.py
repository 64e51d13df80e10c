"""``python -m refmodels ber``: BER/FER vs Eb/N0 of the turbo decoder, as CSV and PNG."""

from __future__ import annotations

import csv
from pathlib import Path

from tqdm import tqdm

from refmodels.ber import BerPoint, simulate_point

BATCH = 32


def run_ber(
    k: int,
    ebn0: list[float],
    iters: int,
    blocks: int,
    max_errors: int,
    fixed: bool,
    seed: int,
    out: Path,
) -> list[BerPoint]:
    """Simulate each Eb/N0 point in batches until ``blocks`` or ``max_errors`` block errors (TS
    36.212 5.1.3.2 turbo code)."""
    out.mkdir(parents=True, exist_ok=True)
    points = []
    total = len(ebn0) * blocks
    with tqdm(total=total, unit="blk", desc=f"K={k} {'fixed' if fixed else 'float'}") as bar:
        for e in ebn0:
            acc = BerPoint(
                ebn0_db=e, blocks=0, bit_errors=0, block_errors=0, bits=0, mean_iterations=0.0
            )
            it_sum = 0.0
            batch_idx = 0
            while acc.blocks < blocks and acc.block_errors < max_errors:
                nb = min(BATCH, blocks - acc.blocks)
                pt = simulate_point(k, e, nb, iters, fixed, seed=seed * 100003 + batch_idx)
                batch_idx += 1
                it_sum += pt.mean_iterations * nb
                acc = BerPoint(
                    ebn0_db=e,
                    blocks=acc.blocks + nb,
                    bit_errors=acc.bit_errors + pt.bit_errors,
                    block_errors=acc.block_errors + pt.block_errors,
                    bits=acc.bits + pt.bits,
                    mean_iterations=0.0,
                )
                bar.update(nb)
            bar.update(blocks - acc.blocks)
            acc.mean_iterations = it_sum / max(acc.blocks, 1)
            points.append(acc)
            bar.set_postfix(ebn0=e, ber=f"{acc.ber:.2e}", fer=f"{acc.fer:.2e}")
    stem = f"ber_K{k}_{'fixed' if fixed else 'float'}_{iters}it"
    with (out / f"{stem}.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["ebn0_db", "blocks", "bit_errors", "bits", "ber", "block_errors", "fer"])
        for p in points:
            w.writerow(
                [
                    p.ebn0_db,
                    p.blocks,
                    p.bit_errors,
                    p.bits,
                    f"{p.ber:.6e}",
                    p.block_errors,
                    f"{p.fer:.6e}",
                ]
            )
    _plot(
        points,
        out / f"{stem}.png",
        f"LTE turbo K={k}, {iters} it, max-log-MAP x0.75{' (fixed)' if fixed else ''}",
    )
    return points


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
