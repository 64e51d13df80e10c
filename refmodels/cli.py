"""Command line: ``python -m silicon_agent.refmodels vectors|e2e|ber ...``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from silicon_agent.refmodels.native import NativeBuildError


def _cmd_vectors(args: argparse.Namespace) -> int:
    """Cmd vectors (tooling, no 3GPP clause)."""
    from silicon_agent.refmodels.vectors import generate, parse_params

    paths = generate(
        args.block, Path(args.out), seed=args.seed, params=parse_params(args.params or [])
    )
    for p in paths:
        print(p)
    return 0


def _cmd_e2e(args: argparse.Namespace) -> int:
    """Cmd e2e (TS 36.101 A.3 reference channels)."""
    from silicon_agent.refmodels.e2e import run_e2e

    rep = run_e2e(
        args.rc,
        args.snr,
        args.channel,
        fixed=args.fixed,
        seed=args.seed,
        subframe=args.subframe,
        doppler_hz=args.doppler,
        cfo_hz=args.cfo,
        method=args.equalizer,
        max_iters=args.iters,
    )
    if args.json:
        print(rep.model_dump_json(indent=2))
    else:
        mode = "fixed" if rep.fixed else "float"
        print(
            f"{rep.rc} {rep.channel} SNR {rep.snr_db:g} dB subframe {rep.subframe} ({mode}, "
            f"{args.equalizer}): TBS {rep.tbs}, G {rep.G}, C {rep.code_blocks}"
        )
        print(f"  CRC {'PASS' if rep.crc_ok else 'FAIL'}  code blocks {rep.cb_crc_ok}")
        print(f"  BER before decoding {rep.ber_pre_fec:.3e}  after decoding {rep.ber_post_fec:.3e}")
        print(
            f"  turbo iterations {rep.iterations}  N0 estimate {rep.n0_est:.3e}  "
            f"time {rep.seconds:.3f} s"
        )
    return 0 if rep.crc_ok else 1


def _frange(spec: str) -> list[float]:
    """Frange (tooling, no 3GPP clause)."""
    parts = [float(x) for x in spec.split(":")]
    if len(parts) == 1:
        return parts
    start, step, stop = parts
    n = round((stop - start) / step) + 1
    return [round(start + i * step, 10) for i in range(n)]


def _cmd_ber(args: argparse.Namespace) -> int:
    """Cmd ber (TS 36.212 5.1.3.2)."""
    from silicon_agent.campaigns.cli import executor_from_args
    from silicon_agent.refmodels.ber_cli import run_ber

    run_ber(
        k=args.K,
        ebn0=_frange(args.ebn0),
        iters=args.iters,
        blocks=args.blocks,
        max_errors=args.max_errors,
        fixed=args.fixed,
        seed=args.seed,
        out=Path(args.out),
        executor=executor_from_args(args),
        chunk_blocks=args.chunk,
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argparse tree of all sub-commands (tooling, no 3GPP clause)."""
    from silicon_agent.campaigns.cli import add_executor_options
    from silicon_agent.refmodels.vectors import BLOCKS

    ap = argparse.ArgumentParser(
        prog="python -m silicon_agent.refmodels", description="LTE Cat-1 DL PHY reference models"
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("vectors", help="write golden vectors for one RTL block")
    v.add_argument("block", choices=BLOCKS)
    v.add_argument("--out", required=True)
    v.add_argument("--seed", type=int, default=0)
    v.add_argument(
        "--params", nargs="*", metavar="K=V", help="one custom case instead of the default cases"
    )
    v.set_defaults(func=_cmd_vectors)

    e = sub.add_parser("e2e", help="one subframe TX -> channel -> RX")
    e.add_argument("--rc", default="R.2", choices=["R.2", "R.31-1"])
    e.add_argument("--snr", type=float, default=20.0, help="per-RE SNR in dB")
    e.add_argument("--channel", default="awgn", choices=["awgn", "epa", "eva", "etu"])
    e.add_argument("--fixed", action="store_true", help="bit-true fixed-point receiver")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--subframe", type=int, default=1)
    e.add_argument("--doppler", type=float, default=5.0, help="max Doppler in Hz")
    e.add_argument("--cfo", type=float, default=0.0, help="carrier frequency offset in Hz")
    e.add_argument("--equalizer", default="zf", choices=["zf", "mmse"])
    e.add_argument("--iters", type=int, default=8)
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=_cmd_e2e)

    b = sub.add_parser("ber", help="turbo code BER/FER curve (CSV + PNG)")
    b.add_argument("--K", type=int, default=6144)
    b.add_argument("--ebn0", default="0.4:0.1:1.2", help="start:step:stop in dB")
    b.add_argument("--iters", type=int, default=8)
    b.add_argument("--blocks", type=int, default=200, help="max code blocks per point")
    b.add_argument(
        "--max-errors", type=int, default=50, help="stop a point after this many block errors"
    )
    b.add_argument("--fixed", action="store_true")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--out", default="ber_out")
    b.add_argument("--chunk", type=int, default=32, help="code blocks per task")
    add_executor_options(b)
    b.set_defaults(func=_cmd_ber)
    return ap


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m silicon_agent.refmodels`` (tooling, no 3GPP clause)."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except NativeBuildError as exc:
        # No compiler, or the kernel did not build: one line that says what to install, not a
        # traceback through the decoder.
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
