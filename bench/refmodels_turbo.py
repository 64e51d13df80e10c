"""Benchmark: turbo decoder throughput (K = 6144, 8 iterations, one core) and the time of one
full R.2 subframe TX -> channel -> RX, float and bit-true fixed point, printed side by side.

Run: ``PYTHONPATH=. python bench/refmodels_turbo.py [--blocks N] [--sionna]``.
Both wall-clock and process CPU time are reported: on a shared machine the CPU-time figure is
the better estimate of one dedicated core.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np

from refmodels.ber import channel_llrs
from refmodels.e2e import run_e2e
from refmodels.fixed_point import LLR, quantise
from refmodels.turbo_decoder import turbo_decode

K = 6144
ITERS = 8


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
    args = ap.parse_args()
    bench_decoder(args.blocks, args.repeat)
    if args.sionna:
        bench_sionna()
    bench_e2e(args.repeat)


if __name__ == "__main__":
    main()
