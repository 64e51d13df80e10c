"""`agent-host memory list|show|search|forget`: a run's store (`--run`) or the workspace's
project store (`--project`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .embedding import PackagedMiniLM
from .memory import PROJECT_DIR, RUN_DIR
from .search import search
from .store import MemoryStore


def folder_of(args: argparse.Namespace, runs: Path) -> Path:
    if args.run:
        run = Path(args.run)
        folder = (run if (run / RUN_DIR).exists() else runs / args.run) / RUN_DIR
    else:
        folder = Path(args.project or ".").resolve() / PROJECT_DIR
    if not (folder / "notes.sqlite").exists():
        raise FileNotFoundError(f"no memory store in {folder}")
    return folder


def cmd_memory(args: argparse.Namespace, runs: Path) -> int:
    folder = folder_of(args, runs)
    if args.action == "search":
        for item in search([folder], " ".join(args.text), args.k):
            print(f"{item.score:.3f} {item.text}")
        return 0
    store = MemoryStore(folder, PackagedMiniLM())
    try:
        if args.action == "list":
            for note in store.notes(args.block):
                print(
                    f"{note.id} {note.block} iter {note.iteration} {note.outcome.value:<10} "
                    f"{note.signature.text()} :: {note.fix_summary[:80]}"
                )
        elif args.action == "show":
            note = store.get(args.id)
            if note is None:
                raise ValueError(f"no note '{args.id}' in {folder}")
            print(json.dumps(note.model_dump(mode="json"), indent=1))
        elif args.action == "forget":
            if not store.forget(args.id):
                raise ValueError(f"no note '{args.id}' in {folder}")
            print(f"forgot {args.id}")
    finally:
        store.close()
    return 0


def add_memory_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    memory = commands.add_parser("memory", help="task memory: list, show, search, forget notes")
    where = memory.add_mutually_exclusive_group()
    where.add_argument("--run", help="a run (id or folder): its own store")
    where.add_argument("--project", help="a workspace: its project store (default: .)")
    actions = memory.add_subparsers(dest="action", required=True)
    listed = actions.add_parser("list", help="the notes, oldest first")
    listed.add_argument("--block")
    show = actions.add_parser("show", help="one note, links included")
    show.add_argument("id")
    found = actions.add_parser("search", help="the notes nearest a failure's text")
    found.add_argument("text", nargs="+")
    found.add_argument("-k", type=int, default=3)
    forget = actions.add_parser("forget", help="remove a note and its embedding")
    forget.add_argument("id")
    return memory
