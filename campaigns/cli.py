"""The executor options every campaign command shares."""

from __future__ import annotations

import argparse
import os

from silicon_agent.campaigns.executors import Executor, PoolExecutor, SerialExecutor
from silicon_agent.campaigns.ray_executor import ADDRESS_ENV, RayExecutor


def add_executor_options(
    ap: argparse.ArgumentParser, default: str = "a local process pool"
) -> None:
    g = ap.add_argument_group(f"executor (default: {default}; Ray if $RAY_ADDRESS)")
    g.add_argument("--executor", choices=["serial", "pool", "ray"])
    g.add_argument("--ray", action="store_true", help="run the tasks on Ray (--executor ray)")
    g.add_argument(
        "--ray-address", help="auto, HOST:PORT or ray://HOST:10001 (default: $RAY_ADDRESS)"
    )
    g.add_argument("--workers", type=int, help="pool processes / CPUs of a local Ray")
    g.add_argument("--max-retries", type=int, default=3, help="Ray retries of a lost task")
    g.add_argument(
        "--ray-resource",
        action="append",
        default=[],
        metavar="NAME=N",
        help="ask every task for this Ray custom resource too (only nodes offering it run them)",
    )


def executor_from_args(args: argparse.Namespace) -> Executor:
    """The executor asked for, else a local process pool."""
    executor = executor_if_asked(args)
    return executor if executor is not None else make_executor("pool", args)


def executor_if_asked(args: argparse.Namespace) -> Executor | None:
    """The executor the options (or $RAY_ADDRESS) ask for; None when nothing asks for one."""
    kind = args.executor
    if kind is None and (args.ray or args.ray_address or os.environ.get(ADDRESS_ENV)):
        kind = "ray"
    return None if kind is None else make_executor(kind, args)


def make_executor(kind: str, args: argparse.Namespace) -> Executor:
    if args.workers is not None and args.workers < 1:
        raise SystemExit(f"INVALID_INPUT: --workers must be at least 1, got {args.workers}")
    if kind == "serial":
        return SerialExecutor()
    if kind == "pool":
        return PoolExecutor(args.workers)
    return RayExecutor(
        args.ray_address, args.workers, args.max_retries, resources_option(args.ray_resource)
    )


def resources_option(items: list[str]) -> dict[str, float]:
    resources = {}
    for item in items:
        name, _, amount = item.partition("=")
        try:
            resources[name] = float(amount or 1)
        except ValueError:
            raise SystemExit(f"INVALID_INPUT: --ray-resource {item!r}: expected NAME=N") from None
        if not name or resources[name] <= 0:
            raise SystemExit(f"INVALID_INPUT: --ray-resource {item!r}: expected NAME=N, N > 0")
    return resources
