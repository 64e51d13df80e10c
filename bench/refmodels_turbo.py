"""Benchmark: turbo decoder throughput (K = 6144, 8 iterations, one core) and the time of one
full R.2 subframe TX -> channel -> RX, float and bit-true fixed point, printed side by side.

Run: ``PYTHONPATH=. python bench/refmodels_turbo.py [--blocks N] [--baseline REV] [--sionna]``.
Both wall-clock and process CPU time are reported: on a shared machine the CPU-time figure is
the better estimate of one dedicated core.  ``--baseline REV`` also loads the decoder as it was
at git revision REV and times both side by side in this one run (alternating, best of several
rounds, since the machine is shared), checking that the outputs agree.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np

from silicon_agent.refmodels.ber import channel_llrs
from silicon_agent.refmodels.e2e import run_e2e
from silicon_agent.refmodels.fixed_point import LLR, quantise
from silicon_agent.refmodels.turbo_decoder import turbo_decode

K = 6144
ITERS = 8
# refmodels as first committed: the decoder before the fused kernels.
BASELINE_REV = "2230832"
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


def _load_baseline(rev: str, tmp: Path):
    """The decoder module at git revision ``rev``, imported under another name."""
    src = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:refmodels/turbo_decoder.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = tmp / "turbo_decoder_baseline.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("turbo_decoder_baseline", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def bench_baseline(rev: str, blocks: int, rounds: int) -> None:
    """Old vs new decoder at batch 32, alternating within one run; best CPU time of ``rounds``."""
    rng = np.random.default_rng(0)
    _, llr = channel_llrs(K, 1.0, blocks, rng)
    raw = quantise(llr, LLR)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            old = _load_baseline(rev, Path(tmp))
        except (subprocess.CalledProcessError, FileNotFoundError) as exc:
            print(f"baseline {rev} not available: {exc}")
            return
        print(
            f"\nbaseline {rev} vs now, K={K}, {ITERS} iterations, batch 32, 1 thread, best of "
            f"{rounds} (CPU time)"
        )
        print(f"  load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
        for name, data, fixed in (("float", llr, False), ("fixed", raw, True)):
            fns = {
                "old": lambda data=data, fixed=fixed: old.turbo_decode(data, ITERS, fixed=fixed),
                "new": lambda data=data, fixed=fixed: turbo_decode(data, ITERS, fixed=fixed),
            }
            outs = {key: fn() for key, fn in fns.items()}
            same_bits = np.array_equal(outs["old"].bits, outs["new"].bits)
            diff = np.abs(outs["old"].llr.astype(np.float64) - outs["new"].llr).max()
            best = {key: np.inf for key in fns}
            for _ in range(rounds):
                for key, fn in fns.items():
                    c0 = time.process_time()
                    fn()
                    best[key] = min(best[key], time.process_time() - c0)
            bits = blocks * K
            print(
                f"  {name:<6} old {bits / best['old'] / 1e6:6.2f} Mbit/s   new "
                f"{bits / best['new'] / 1e6:6.2f} Mbit/s   speed-up {best['old'] / best['new']:.2f}"
                f"   bits equal {same_bits}   max |LLR diff| {diff:.3g}"
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
        nargs="?",
        const=BASELINE_REV,
        default=None,
        metavar="REV",
        help=f"also time the decoder of git revision REV side by side (default {BASELINE_REV})",
    )
    ap.add_argument("--rounds", type=int, default=7, help="rounds of the baseline comparison")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    bench_decoder(args.blocks, args.repeat)
    if args.baseline:
        bench_baseline(args.baseline, 32, args.rounds)
    if args.sionna:
        bench_sionna()
    bench_e2e(args.repeat)


if __name__ == "__main__":
    main()
