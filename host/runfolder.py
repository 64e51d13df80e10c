"""A run's folder: the SQLite checkpoint plus readable copies of everything the run did:
cost events (JSON lines), every prompt and response, every tool call and result, each
attempt's code and diagnostics. The files are exported from the checkpoint after each step
commit and reconciled on resume, so they hold each committed step exactly once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .state import StateStore


class RunFolder:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.calls = path / "calls"
        self.attempts = path / "attempts"
        for folder in (self.path, self.calls, self.attempts):
            folder.mkdir(parents=True, exist_ok=True)
        self.events_file = path / "events.jsonl"
        self.tools_file = path / "tool_calls.jsonl"
        self.steps_file = path / "steps.jsonl"
        self._exported: dict[str, set[str]] = {}

    @property
    def state_path(self) -> Path:
        return self.path / "state.sqlite"

    def attempt_dir(self, block: str, iteration: int) -> Path:
        folder = self.attempts / block / f"iter{iteration:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def write_attempt_file(self, block: str, iteration: int, name: str, data: str) -> str:
        path = self.attempt_dir(block, iteration) / name
        path.write_text(data)
        return str(path.relative_to(self.path))

    def write_block_file(self, block: str, folder: str, name: str, data: str) -> str:
        """A block's file outside its attempts (the Verification Engineer's testbenches)."""
        path = self.attempts / block / folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data)
        return str(path.relative_to(self.path))

    def _known(self, file: Path, key: str) -> set[str]:
        """Ids already in a JSON-lines file; a line cut by a crash is dropped."""
        if key in self._exported:
            return self._exported[key]
        ids: set[str] = set()
        if file.exists():
            good: list[str] = []
            for line in file.read_text().splitlines():
                try:
                    ids.add(str(json.loads(line)["_id"]))
                    good.append(line)
                except (json.JSONDecodeError, KeyError, TypeError):
                    continue
            file.write_text("".join(f"{g}\n" for g in good))
        self._exported[key] = ids
        return ids

    def _append(self, file: Path, key: str, rows: list[tuple[str, dict[str, Any]]]) -> None:
        known = self._known(file, key)
        fresh = [(i, r) for i, r in rows if i not in known]
        if not fresh:
            return
        with file.open("a") as handle:
            for row_id, row in fresh:
                handle.write(json.dumps({"_id": row_id, **row}) + "\n")
                known.add(row_id)
            handle.flush()

    def export(self, store: StateStore, since_seq: int = 0) -> None:
        steps = [(s, r) for s, r in store.steps() if s > since_seq]
        self._append(
            self.steps_file,
            "steps",
            [(str(seq), {"seq": seq, **record.model_dump()}) for seq, record in steps],
        )
        self._append(
            self.events_file,
            "events",
            [
                (event.event_id, {"step_seq": seq, **event.model_dump()})
                for seq, event in store.events()
                if seq > since_seq
            ],
        )
        counts: dict[int, int] = {}
        tool_rows: list[tuple[str, dict[str, Any]]] = []
        for seq, call in store.tool_calls():
            counts[seq] = counts.get(seq, 0) + 1
            if seq > since_seq:
                tool_rows.append((f"{seq}:{counts[seq]}", {"step_seq": seq, **call}))
        self._append(self.tools_file, "tools", tool_rows)
        for seq, exchange in store.exchanges():
            if seq <= since_seq:
                continue
            path = self.calls / f"{seq:05d}-{exchange.role}-{exchange.event_id[:12]}.json"
            if not path.exists():
                path.write_text(exchange.model_dump_json(indent=1))
