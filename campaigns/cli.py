"""The executor options every campaign command shares."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from typing import NoReturn

from silicon_agent.campaigns.executors import Executor, PoolExecutor, SerialExecutor
from silicon_agent.campaigns.ray_executor import ADDRESS_ENV, RayExecutor
from silicon_agent.campaigns.tools import CampaignRefused

MAX_RETRIES = 3


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
    g.add_argument(
        "--max-retries", type=int, help=f"Ray retries of a lost task (default {MAX_RETRIES})"
    )
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
    if kind is None:
        ray_only(args, "no executor")
        return None
    return make_executor(kind, args)


def ray_only(args: argparse.Namespace, kind: str) -> None:
    """Refuse the Ray-only options on another executor rather than ignore them."""
    given = [
        option
        for option, value in (
            ("--ray-address", args.ray_address),
            ("--ray-resource", args.ray_resource),
            ("--max-retries", args.max_retries is not None),
        )
        if value
    ]
    if given:
        option_error(
            f"INVALID_INPUT: {', '.join(given)} apply to Ray only, not to {kind}: add --ray"
        )


def make_executor(kind: str, args: argparse.Namespace) -> Executor:
    if args.workers is not None and args.workers < 1:
        option_error(f"INVALID_INPUT: --workers must be at least 1, got {args.workers}")
    if args.ray and kind != "ray":
        option_error(f"INVALID_INPUT: --ray with --executor {kind}: give one of them")
    if kind != "ray":
        ray_only(args, f"--executor {kind}")
    if kind == "serial":
        if args.workers is not None:
            option_error("INVALID_INPUT: --workers does not apply to --executor serial")
        return SerialExecutor()
    if kind == "pool":
        return PoolExecutor(args.workers)
    retries = MAX_RETRIES if args.max_retries is None else args.max_retries
    return RayExecutor(args.ray_address, args.workers, retries, resources_option(args.ray_resource))


def resources_option(items: list[str]) -> dict[str, float]:
    resources = {}
    for item in items:
        name, _, amount = item.partition("=")
        try:
            resources[name] = float(amount or 1)
        except ValueError:
            option_error(f"INVALID_INPUT: --ray-resource {item!r}: expected NAME=N")
        if not name or resources[name] <= 0:
            option_error(f"INVALID_INPUT: --ray-resource {item!r}: expected NAME=N, N > 0")
    return resources


@contextlib.contextmanager
def refusals(prog: str) -> Iterator[None]:
    """A refusal (bad input, an executor that cannot run the tasks) ends the command with one
    line on stderr and exit status 2, never a traceback."""
    try:
        yield
    except (ValueError, CampaignRefused) as exc:
        refuse(prog, str(exc))


class OptionRefused(SystemExit):
    """An executor option refused: exit status 2 (as argparse's errors), the message as text."""

    def __init__(self, message: str) -> None:
        super().__init__(2)
        self.message = message

    def __str__(self) -> str:
        return self.message


def option_error(message: str) -> NoReturn:
    """Refuse an executor option: one line on stderr, exit status 2."""
    print(f"error: {message}", file=sys.stderr)
    raise OptionRefused(message)


def refuse(prog: str, message: str) -> NoReturn:
    """Exit with status 2 and ``message`` as one line on stderr."""
    print(f"{prog}: error: {' '.join(message.split())}", file=sys.stderr)
    raise SystemExit(2)
