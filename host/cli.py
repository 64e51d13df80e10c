"""`agent-host`: plan a design from a prompt, approve it, run it, answer paused blocks, show
status, resume a stopped run, write its report, bench."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from silicon_agent.campaigns.cli import add_executor_options, executor_if_asked
from silicon_agent.suite.lifetime import client_lifetime

from .llm.types import ModelUnreachable, ProviderError, StructuredOutputError
from .run_setup import create_run, resolve_run
from .runs import execute_run
from .state import StateStore
from .status import status_text

RUNS_ENV = "AGENT_HOST_RUNS"


def runs_dir(args: argparse.Namespace) -> Path:
    return Path(args.runs_dir or os.environ.get(RUNS_ENV) or "runs")


def print_blocks(run: Path) -> None:
    print(status_text(run))


def execute(run: Path, args: argparse.Namespace) -> None:
    """The run's steps here, or each a task on the executor the options ask for."""
    executor = executor_if_asked(args)
    try:
        asyncio.run(execute_run(run, executor=executor))
    finally:
        if executor is not None:
            executor.close()


def cmd_run(args: argparse.Namespace) -> int:
    run = create_run(
        args.design,
        runs_dir(args),
        config_path=args.config,
        mcp_path=args.mcp_config,
        only=args.block or None,
        run_id=args.run_id,
        memory=args.memory,
    )
    print(f"run {run.name} in {run}", flush=True)
    execute(run, args)
    print_blocks(run)
    return 0


def cmd_resume(args: argparse.Namespace) -> int:
    run = resolve_run(args.run, runs_dir(args))
    if args.redo:
        store = StateStore(run / "state.sqlite")
        try:
            known = store.blocks()
            for name in args.redo:
                if name not in known:
                    raise ValueError(f"no block '{name}' in run {run.name}")
                store.redo(name)
            if store.meta().get("only"):
                store.set_meta(only=sorted({*store.meta()["only"], *args.redo}))
        finally:
            store.close()
    execute(run, args)
    print_blocks(run)
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    if args.run:
        print_blocks(resolve_run(args.run, runs_dir(args)))
        return 0
    base = runs_dir(args)
    runs = (
        sorted(p for p in base.iterdir() if (p / "state.sqlite").exists()) if base.is_dir() else []
    )
    if not runs:
        print(f"no runs in {base}")
    for run in runs:
        print_blocks(run)
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    from .planning.session import plan_design

    out = Path(args.out or "plan")
    design = asyncio.run(plan_design(args.prompt, out, args.answers, args.config))
    print(f"plan written: {design}\nreview and approve it with: agent-host approve {out}")
    return 0


def cmd_approve(args: argparse.Namespace) -> int:
    from .planning.approval import approve, plan_text
    from .planning.picture import render_dag
    from .planning.plan import validate_plan
    from .planning.planner import load_plan

    out = Path(args.dir)
    spec, plan = load_plan(out)
    validate_plan(plan)
    print(plan_text(spec, plan))
    print(f"DAG picture: {render_dag(plan, out / 'dag.png')}")
    if not args.yes:
        reply = input("Approve and freeze this plan? [y/N] ").strip().lower()
        if reply not in ("y", "yes"):
            print("not approved")
            return 1
    record = approve(out, by=args.by)
    print(f"approved: {record['hash']}")
    return 0


def cmd_answer(args: argparse.Namespace) -> int:
    run = resolve_run(args.run, runs_dir(args))
    store = StateStore(run / "state.sqlite")
    try:
        waiting = [n for n, s in store.blocks().items() if s.question]
        if args.block:
            name = args.block
        elif len(waiting) == 1:
            name = waiting[0]
        else:
            raise ValueError(
                f"blocks waiting for an answer: {', '.join(waiting) or 'none'}; "
                "name one with --block"
            )
        store.answer(name, args.text)
    finally:
        store.close()
    if not args.no_resume:
        asyncio.run(execute_run(run))
    print_blocks(run)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .report import write_report

    run = resolve_run(args.run, runs_dir(args))
    path = write_report(run, Path(args.out) if args.out else None)
    print(path)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from silicon_agent.campaigns.cli import executor_from_args

    from .bench import run_suite
    from .modem_bench import is_generated_design, run_modem_bench

    if is_generated_design(Path(args.suite)):
        bench = asyncio.run(
            run_modem_bench(
                Path(args.suite), runs_dir(args), args.config, args.mcp_config, args.block
            )
        )
        print(bench.model_dump_json(indent=1))
        return 0
    summary = asyncio.run(
        run_suite(
            Path(args.suite),
            runs_dir(args),
            config_path=args.config,
            mcp_path=args.mcp_config,
            executor=executor_from_args(args),
        )
    )
    print(json.dumps(summary, indent=1))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """The modem server; over stdio it lives as long as its client and ends its children (the
    tool servers it started, their tool processes) with it."""
    from .modem_server import run_server

    if args.transport != "stdio":
        return int(run_server(args))
    code = 0
    with client_lifetime():
        code = int(run_server(args))
    return code


def cmd_memory(args: argparse.Namespace) -> int:
    from .memory.cli import cmd_memory as memory_command

    return memory_command(args, runs_dir(args))


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="agent-host", description=__doc__)
    main.add_argument("--runs-dir", help=f"where runs live (default ${RUNS_ENV} or ./runs)")
    commands = main.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="build a design's blocks until they pass or escalate")
    run.add_argument("design")
    run.add_argument("--block", action="append", help="only this block (and what it uses)")
    run.add_argument("--config", help="host config YAML, or a preset: local, local-exl2, cloud")
    run.add_argument("--mcp-config", help="mcp.json (default: the repository's)")
    run.add_argument("--run-id")
    run.add_argument(
        "--memory",
        choices=["off", "run", "project"],
        help="task memory: none, the run's own store, or also the workspace's project store "
        "shared by its runs (default: the configuration's memory section)",
    )
    add_executor_options(run, "the steps run in this process")
    run.set_defaults(func=cmd_run)

    status = commands.add_parser("status", help="blocks and budget of one run or all runs")
    status.add_argument("run", nargs="?")
    status.set_defaults(func=cmd_status)

    resume = commands.add_parser("resume", help="continue a stopped or killed run")
    resume.add_argument("run")
    resume.add_argument(
        "--redo",
        action="append",
        help="write this block again (its spec or interface changed); passing blocks that "
        "use it are re-verified if its module header changes",
    )
    add_executor_options(resume, "the steps run in this process")
    resume.set_defaults(func=cmd_resume)

    plan = commands.add_parser(
        "plan", help="clarify a prompt into a frozen specification and a block plan"
    )
    plan.add_argument("prompt")
    plan.add_argument("--answers", help="YAML/JSON: question id -> answer (else asked here)")
    plan.add_argument("--out", help="the plan folder (default ./plan)")
    plan.add_argument("--config", help="host config YAML, or a preset: local, local-exl2, cloud")
    plan.set_defaults(func=cmd_plan)

    approve = commands.add_parser("approve", help="show a plan and its DAG, and freeze it")
    approve.add_argument("dir")
    approve.add_argument("--yes", action="store_true", help="approve without asking")
    approve.add_argument("--by", default=os.environ.get("USER", "engineer"))
    approve.set_defaults(func=cmd_approve)

    answer = commands.add_parser("answer", help="answer a paused block's question and resume")
    answer.add_argument("run")
    answer.add_argument("text")
    answer.add_argument("--block", help="which block (needed when several are waiting)")
    answer.add_argument("--no-resume", action="store_true", help="record the answer only")
    answer.set_defaults(func=cmd_answer)

    report = commands.add_parser("report", help="write the run's HTML report")
    report.add_argument("run")
    report.add_argument("--out")
    report.set_defaults(func=cmd_report)

    from .modem_server import add_serve_arguments

    serve = commands.add_parser(
        "serve", help="the modem design loop as an MCP server (stdio or streamable HTTP)"
    )
    add_serve_arguments(serve)
    serve.set_defaults(func=cmd_serve)

    from .memory.cli import add_memory_parser

    add_memory_parser(commands).set_defaults(func=cmd_memory)

    bench = commands.add_parser("bench", help="pass rate, iterations, tokens, cost of a suite")
    bench.add_argument("suite", help="a suite file, or a design with generated vectors")
    bench.add_argument("--block", action="append", help="only this block of such a design")
    bench.add_argument("--config")
    bench.add_argument("--mcp-config")
    add_executor_options(bench)
    bench.set_defaults(func=cmd_bench)
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (
        FileNotFoundError,
        ValueError,
        RuntimeError,
        ProviderError,
        StructuredOutputError,
        ModelUnreachable,
    ) as exc:
        print(f"agent-host: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
