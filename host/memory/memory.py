"""Task memory of a run: its own store plus, when the user turns it on, the workspace's
project store; notes written (guarded against answer-key text), retrieved by one embedding
per attempt, their outcomes updated; the design context of blocks already passed."""

from __future__ import annotations

import difflib
import hashlib
import uuid
from pathlib import Path

import numpy as np

from silicon_agent.suite.design import Design, LoadedDesign, hidden_paths

from ..config import MemoryConfig
from ..llm.gateway import CostEvent, Ledger, now_iso
from ..modem import Staging
from .embedding import Counted, Embedder, PackagedMiniLM
from .guard import AnswerKeyGuard, Refused
from .notes import Link, Note, NoteDraft, Outcome, Signature
from .store import MemoryStore, nearest_of

PROJECT_DIR = Path(".silicon-agent") / "memory"
RUN_DIR = "memory"
LINKS = 2  # similar notes linked to a new one


def fix_diff(before: str, after: str, limit: int = 1500) -> str:
    """The fix's changed lines, without context."""
    lines = [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    return "\n".join(lines)[:limit]


class TaskMemory:
    def __init__(
        self,
        run: str,
        run_folder: Path,
        project_folder: Path | None,
        guard: AnswerKeyGuard,
        top_k: int = 3,
        embedder: Embedder | None = None,
    ) -> None:
        self.run = run
        self.embedder = Counted(embedder or PackagedMiniLM())
        self.own = MemoryStore(run_folder, self.embedder)
        self.project = MemoryStore(project_folder, self.embedder) if project_folder else None
        self.guard = guard
        self.top_k = top_k

    @property
    def stores(self) -> list[MemoryStore]:
        return [self.own] + ([self.project] if self.project else [])

    def close(self) -> None:
        for store in self.stores:
            store.close()

    # --- cost ---------------------------------------------------------------------------------
    def _embed(self, texts: list[str], ledger: Ledger | None, correlation: str) -> np.ndarray:
        started, tokens, seconds = now_iso(), self.embedder.tokens, self.embedder.seconds
        vectors = self.embedder.embed(texts)
        if ledger is not None:
            ledger.events.append(
                CostEvent(
                    event_id=uuid.uuid4().hex,
                    kind="memory_embed",
                    started_at=started,
                    finished_at=now_iso(),
                    correlation_id=correlation,
                    component="memory",
                    provider="local",
                    model=self.embedder.name,
                    input_tokens=self.embedder.tokens - tokens,
                    latency_s=round(self.embedder.seconds - seconds, 4),
                )
            )
        return vectors

    # --- retrieval -------------------------------------------------------------------------
    def recall(
        self,
        query: str,
        signature: Signature | None,
        ledger: Ledger | None = None,
        correlation: str = "",
        k: int | None = None,
    ) -> list[tuple[float, Note]]:
        """The nearest closed notes of every store, one embedding."""
        vector = self._embed([query], ledger, correlation)[0]
        return self._nearest(vector, signature, k or self.top_k, frozenset())

    def _nearest(
        self, vector: np.ndarray, signature: Signature | None, k: int, exclude: frozenset[str]
    ) -> list[tuple[float, Note]]:
        return nearest_of(self.stores, vector, signature, k, exclude)

    # --- writing -------------------------------------------------------------------------------
    def write(
        self,
        block: str,
        iteration: int,
        signature: Signature,
        draft: NoteDraft,
        outcome: Outcome,
        diff: str = "",
        follows: str | None = None,
        ledger: Ledger | None = None,
        correlation: str = "",
    ) -> Note | None:
        """A note into the run's store (and the project's); None when the guard refused it,
        the refusal logged in the run's store. Its id comes from the run, block, attempt and
        failure, so a step repeated after a crash rewrites the same note."""
        key = f"{self.run}/{block}/{iteration}/{signature.model_dump_json()}"
        note = Note(
            id="n-" + hashlib.sha1(key.encode()).hexdigest()[:10],
            run=self.run,
            block=block,
            iteration=iteration,
            signature=signature,
            hypothesis=draft.hypothesis,
            fix_summary=draft.fix_summary,
            fix_diff=diff,
            outcome=outcome,
            keywords=draft.keywords,
        )
        try:
            self.guard.check(note.model_dump_json())
        except Refused as exc:
            self.own.refuse(self.run, block, exc.reasons)
            return None
        vector = self._embed([note.search_text()], ledger, correlation)[0]
        note.links = [
            Link(target=n.id, kind="similar")
            for _, n in self._nearest(vector, None, LINKS, frozenset())
        ]
        if follows:
            note.links.append(Link(target=follows, kind="follows"))
        for store in self.stores:
            store.add(note.model_copy(deep=True), vector)
        return note

    def credit(self, offered: list[str], helped: bool, by: str) -> None:
        """A later outcome proves the notes offered to an attempt right or wrong."""
        for store in self.stores:
            for note_id in offered:
                note = store.get(note_id)
                if note is None:
                    continue
                if helped:
                    store.update(note_id, confirmed=note.confirmed + 1)
                else:
                    store.update(note_id, contradicted=note.contradicted + 1)
                store.link(note_id, by, "offered_to")

    # --- lookup and forgetting -------------------------------------------------------------
    def find(self, note_id: str) -> Note | None:
        for store in self.stores:
            note = store.get(note_id)
            if note is not None:
                return note
        return None

    def forget(self, note_id: str) -> bool:
        return any([store.forget(note_id) for store in self.stores])

    # --- design context ---------------------------------------------------------------------
    def passed(self, block: str, interface: str | None, conventions: str) -> bool:
        body = {"interface": interface or "", "conventions": conventions}
        try:
            self.guard.check(str(body))
        except Refused as exc:
            self.own.refuse(self.run, block, exc.reasons)
            return False
        self.own.put_context(self.run, block, body)
        return True

    def design_context(self, exclude: str) -> str:
        rows = [(b, c) for b, c in self.own.context(self.run).items() if b != exclude]
        if not rows:
            return ""
        lines = ["Design context (interface decisions and conventions of blocks already passed):"]
        for block, body in rows:
            line = f"- {block}: {body.get('interface') or '(no header)'}"
            if body.get("conventions"):
                line += f"\n  conventions: {body['conventions']}"
            lines.append(line)
        return "\n".join(lines)


def offered_section(notes: list[tuple[float, Note]]) -> str:
    head = f"Task memory: {len(notes)} note(s) offered (nearest earlier failures, with outcomes)."
    if not notes:
        return head
    return "\n".join([head, *(n.prompt_text() for _, n in notes)])


def open_for_run(
    config: MemoryConfig,
    run_folder: Path,
    loaded: LoadedDesign,
    source: Path,
    staging: Staging | None,
    embedder: Embedder | None = None,
) -> TaskMemory | None:
    """The run's memory as configured (None when off), guarded by the run's hidden assets:
    its testbenches and vectors, and for a generated design the reference RTL of the blocks
    being designed."""
    if not config.enabled:
        return None
    design = loaded.design
    names = set(hidden_paths(design)) | set(staging.hidden if staging else [])
    files = [
        (loaded.workspace / p, "vectors" if p in vectors_of(design) else "testbench")
        for p in sorted(names)
        if not Path(p).is_absolute()
    ]
    files += [(Path(p), "testbench") for p in sorted(names) if Path(p).is_absolute()]
    if design.generated:
        designed = staging.designed if staging else [b.name for b in design.blocks]
        files += [
            (source / design.block(n).rtl_file, "reference RTL")
            for n in designed
            if design.block(n).rtl_file
        ]
    visible = "\n".join(f"{b.spec}\n{b.interface}" for b in design.blocks)
    guard = AnswerKeyGuard(files, names, visible)
    project = source / PROJECT_DIR if config.project else None
    return TaskMemory(run_folder.name, run_folder / RUN_DIR, project, guard, config.top_k, embedder)


def vectors_of(design: Design) -> set[str]:
    return {p for b in design.blocks if b.verification for p in b.verification.vectors}
