"""Benchmark: turbo decoder throughput (K = 6144, 8 iterations, one core) and the time of one
full R.2 subframe TX -> channel -> RX, float and bit-true fixed point, printed side by side.

Run: ``PYTHONPATH=. python bench/refmodels_turbo.py [--blocks N] [--baseline REV] [--sionna]``.
Both wall-clock and process CPU time are reported: on a shared machine the CPU-time figure is
the better estimate of one dedicated core (Mbit/s per core).  The decoder as it was at git
revision REV (default ``BASELINE_REV``, the numba decoder the C++ kernel replaced;
``--baseline none`` skips it) is loaded too and both are timed side by side in this one run
(alternating, best of several rounds, since the machine is shared), checking that the outputs
are equal: first 8 iterations without early stopping, then with early stopping on the CRC
(blocks carrying a CRC24B, at an Eb/N0 where most stop after a few iterations).  The baseline's
source is kept under the kernel cache folder so numba's own cache spares its compile (minutes)
from the second run on.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np

from silicon_agent.refmodels import native
from silicon_agent.refmodels.ber import channel_llrs
from silicon_agent.refmodels.crc import crc_attach
from silicon_agent.refmodels.e2e import run_e2e
from silicon_agent.refmodels.fixed_point import LLR, quantise
from silicon_agent.refmodels.turbo_decoder import turbo_decode
from silicon_agent.refmodels.turbo_encoder import turbo_encode

K = 6144
ITERS = 8
# The numba decoder (float32-carried kernels) the C++ kernel replaced.
BASELINE_REV = "f6f5200"
EARLY_STOP_EBN0 = 1.0
ROOT = Path(__file__).resolve().parent.parent


def _time(fn, repeat: int) -> tuple[float, float]:
    fn()  # compile / warm caches
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - w0) / repeat, (time.process_time() - c0) / repeat


def bench_decoder(blocks: int, repeat: int) -> None:
    """Throughput of the batched decoder at several batch sizes."""
    rng = np.random.default_rng(0)
    _, llr = channel_llrs(K, 1.0, blocks, rng)
    raw = quantise(llr, LLR)
    print(f"turbo decoder, K={K}, {ITERS} iterations, no early stop, 1 thread")
    print(f"{'variant':<8}{'batch':>6}{'wall Mbit/s':>13}{'cpu Mbit/s':>12}")
    for batch in (1, 8, 16, 32, 64):
        for name, data, fixed in (("float", llr, False), ("fixed", raw, True)):

            def run(data=data, fixed=fixed, batch=batch) -> None:
                for s in range(0, blocks, batch):
                    turbo_decode(data[s : s + batch], ITERS, fixed=fixed)

            wall, cpu = _time(run, repeat)
            bits = blocks * K
            print(f"{name:<8}{batch:>6}{bits / wall / 1e6:>13.2f}{bits / cpu / 1e6:>12.2f}")


def _load_baseline(rev: str):
    """The decoder module at git revision ``rev``, imported under another name from a file kept
    (unchanged, so numba's cache beside it stays valid) under the kernel cache folder."""
    src = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:refmodels/turbo_decoder.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = native.cache_dir().parent / "bench" / f"turbo_decoder_{rev}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text() != src:
        path.write_text(src)
    spec = importlib.util.spec_from_file_location("turbo_decoder_baseline", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _crc_blocks(n: int, ebn0_db: float, rng: np.random.Generator) -> np.ndarray:
    """Channel LLRs of ``n`` K = 6144 blocks that carry a CRC24B (TS 36.212 5.1.2)."""
    info = np.stack(
        [crc_attach(rng.integers(0, 2, K - 24).astype(np.uint8), "24B") for _ in range(n)]
    )
    d = np.stack([turbo_encode(c) for c in info])
    rate = K / (3 * (K + 4))
    sigma2 = 1.0 / (2.0 * rate * 10 ** (ebn0_db / 10))
    return 2.0 * ((2.0 * d - 1.0) + rng.normal(0.0, np.sqrt(sigma2), d.shape)) / sigma2


def bench_baseline(rev: str, blocks: int, rounds: int) -> None:
    """Old vs new decoder at batch 32, alternating within one run; best CPU time of ``rounds``:
    8 iterations without early stopping, then early stopping on the CRC."""
    rng = np.random.default_rng(0)
    _, llr = channel_llrs(K, 1.0, blocks, rng)
    raw = quantise(llr, LLR)
    crc_llr = _crc_blocks(blocks, EARLY_STOP_EBN0, np.random.default_rng(1))
    crc_raw = quantise(crc_llr, LLR)
    try:
        t0 = time.perf_counter()
        old = _load_baseline(rev)
        old.turbo_decode(llr[:1], 1)
        old.turbo_decode(raw[:1], 1, fixed=True)
        print(f"\nbaseline {rev} loaded and compiled in {time.perf_counter() - t0:.1f} s")
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        print(f"baseline {rev} not available: {exc}")
        return
    print(
        f"\nbaseline {rev} vs now, K={K}, up to {ITERS} iterations, batch {blocks}, 1 thread, "
        f"best of {rounds} (CPU time: Mbit/s per core)"
    )
    print(f"  load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    cases = (
        ("float", llr, False, None),
        ("fixed", raw, True, None),
        ("float, early stop", crc_llr, False, "24B"),
        ("fixed, early stop", crc_raw, True, "24B"),
    )
    for name, data, fixed, crc in cases:
        fns = {
            "old": lambda data=data, fixed=fixed, crc=crc: old.turbo_decode(
                data, ITERS, crc=crc, fixed=fixed
            ),
            "new": lambda data=data, fixed=fixed, crc=crc: turbo_decode(
                data, ITERS, crc=crc, fixed=fixed
            ),
        }
        outs = {key: fn() for key, fn in fns.items()}
        same = all(
            np.array_equal(getattr(outs["old"], f), getattr(outs["new"], f))
            for f in ("bits", "llr", "iterations", "crc_ok")
        )
        best = {key: np.inf for key in fns}
        for _ in range(rounds):
            for key, fn in fns.items():
                c0 = time.process_time()
                fn()
                best[key] = min(best[key], time.process_time() - c0)
        bits = blocks * K
        mean_it = float(np.mean(outs["new"].iterations))
        print(
            f"  {name:<18} old {bits / best['old'] / 1e6:6.2f}   new "
            f"{bits / best['new'] / 1e6:6.2f} Mbit/s   x{best['old'] / best['new']:.2f}"
            f"   outputs equal {same}   mean iterations {mean_it:.2f}"
        )
    print(f"  load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")


def bench_sionna(k: int = 512, n: int = 4) -> None:
    """sionna-no-rt's max-log turbo decoder (one torch thread) for scale; a smaller K because it
    runs at well under 1 kbit/s."""
    import torch
    from sionna.phy.fec.turbo import TurboDecoder, TurboEncoder

    torch.set_num_threads(1)
    enc = TurboEncoder(constraint_length=4, rate=1 / 3, terminate=True, interleaver_type="3GPP")
    dec = TurboDecoder(enc, num_iter=ITERS, algorithm="maxlog", hard_out=True)
    rng = np.random.default_rng(1)
    _, llr = channel_llrs(k, 1.0, n, rng)
    # sionna takes the transmitted order (K+4, 3) flattened, positive LLR = bit 1.
    x = torch.tensor(np.transpose(llr, (0, 2, 1)).reshape(n, -1).astype(np.float32))
    wall, cpu = _time(lambda: dec(x), 1)
    ours_wall, ours_cpu = _time(lambda: turbo_decode(llr, ITERS), 3)
    print(
        f"\nK={k}, {n} blocks: sionna {n * k / cpu / 1e3:.3f} kbit/s cpu   "
        f"refmodels float {n * k / ours_cpu / 1e6:.2f} Mbit/s cpu"
    )


def bench_e2e(repeat: int) -> None:
    """One R.2 subframe TX -> AWGN -> RX."""
    print("\nfull R.2 subframe TX -> AWGN 20 dB -> RX (random TB, 1 code block)")
    for fixed in (False, True):
        wall, cpu = _time(lambda fixed=fixed: run_e2e("R.2", 20.0, "awgn", fixed=fixed), repeat)
        print(
            f"  {'fixed' if fixed else 'float':<6} wall {wall * 1e3:8.1f} ms   cpu "
            f"{cpu * 1e3:8.1f} ms"
        )


def main() -> None:
    """Run all benchmarks."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sionna", action="store_true", help="also time sionna's decoder")
    ap.add_argument(
        "--baseline",
        default=BASELINE_REV,
        metavar="REV",
        help=f"time the decoder of git revision REV side by side (default {BASELINE_REV}; "
        "'none' skips it)",
    )
    ap.add_argument("--no-sweep", action="store_true", help="skip the batch-size sweep")
    ap.add_argument("--no-e2e", action="store_true", help="skip the R.2 subframe timing")
    ap.add_argument("--rounds", type=int, default=7, help="rounds of the baseline comparison")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    if not args.no_sweep:
        bench_decoder(args.blocks, args.repeat)
    if args.baseline != "none":
        bench_baseline(args.baseline, 32, args.rounds)
    if args.sionna:
        bench_sionna()
    if not args.no_e2e:
        bench_e2e(args.repeat)


if __name__ == "__main__":
    main()
