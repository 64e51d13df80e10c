"""Task memory's retrieval and cost, on the receiver's real mutants (`hdl/mutations.py`).

Each mutant is a labelled failure: its failure mode (handshake, off-by-one, sequence/bit
pattern, sign/arithmetic, wiring/combining) from its label. Leave-one-out: the other mutants'
notes (signature, hypothesis, the fix's diff) are in the store; the query is what the loop has
when the mutant fails (its signature and the failing line); precision@3 counts the offered
notes of the same failure mode. Then the time and tokens memory adds to one attempt: the
retrieval (one embedding, one query) and the note written after it, and the prompt text it
adds. Run: `python bench/memory_bench.py`."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from silicon_agent.hdl.mutations import MUTATIONS  # noqa: E402
from silicon_agent.host.memory.embedding import PackagedMiniLM  # noqa: E402
from silicon_agent.host.memory.guard import AnswerKeyGuard  # noqa: E402
from silicon_agent.host.memory.hooks import note_prompt  # noqa: E402
from silicon_agent.host.memory.memory import TaskMemory, fix_diff, offered_section  # noqa: E402
from silicon_agent.host.memory.notes import Failure, NoteDraft, Outcome, Signature  # noqa: E402
from silicon_agent.suite.design import load_design  # noqa: E402

MODES = [  # first match wins
    ("handshake", ("back-pressure", "dropped at", "never see", "advances under")),
    (
        "off_by_one",
        ("off-by-one", "off by one", "one sample long", "short", "one re ahead", "k0 column"),
    ),
    (
        "wiring_combining",
        (
            "harq",
            "combine",
            "wired",
            "buffer",
            "fixed modulation",
            "codeword 1",
            "wrong v",
            "handed over",
        ),
    ),
    (
        "sign_arithmetic",
        (
            "conjugated",
            "sign",
            "swapped",
            "truncated",
            "scaled",
            "floored",
            "strictly",
            "level",
            "n0",
            "axis bit",
            "wrong crs",
        ),
    ),
    (
        "bit_pattern",
        (
            "polynomial",
            "tap",
            "permutation",
            "c_init",
            "crs",
            "interleaver",
            "shift",
            "filler",
            "cell-id",
        ),
    ),
]


def mode_of(label: str) -> str:
    lowered = label.lower()
    for mode, words in MODES:
        if any(w in lowered for w in words):
            return mode
    raise ValueError(f"no failure mode for mutant '{label}'")


def main() -> int:
    design = load_design(ROOT / "hdl" / "blocks.yaml").design
    cases = []
    for block, label, _file, original, mutated in MUTATIONS:
        b = design.block(block)
        outputs = [p.name for p in b.ports if p.direction == "output" and "tdata" in p.name]
        signature = Signature(
            category="SIM_MISMATCH",
            tool_code="simulation",
            signal=(outputs or ["m_axis_tdata_o"])[0],
            block_kind=b.kind,
            clause=", ".join(b.refs_3gpp),
        )
        cases.append((block, label, mode_of(label), signature, original, mutated))
    print(f"labelled failures: {len(cases)} mutants of {len({c[0] for c in cases})} blocks")
    print("by mode:", {m: sum(c[2] == m for c in cases) for m, _ in MODES})
    embedder = PackagedMiniLM()
    embedder.embed(["warm-up"])
    precision: dict[bool, float] = {}
    embed_s: list[float] = []
    query_s: list[float] = []
    write_s: list[float] = []
    added_tokens, embed_tokens = [], []
    with tempfile.TemporaryDirectory() as tmp:
        memory = TaskMemory("bench", Path(tmp) / "run", None, AnswerKeyGuard([]), 3, embedder)
        ids = []
        for index, (block, label, _mode, signature, original, mutated) in enumerate(cases):
            clock = time.monotonic()
            note = memory.write(
                block,
                index + 1,  # one mutant per attempt: each its own note
                signature,
                NoteDraft(hypothesis=label, fix_summary=f"restored: {original}"[:400]),
                Outcome.FIXED,
                fix_diff(mutated, original),
            )
            write_s.append(time.monotonic() - clock)
            assert note is not None
            ids.append(note.id)
        for with_hypothesis in (False, True):
            hits = 0
            for index, (block, label, mode, signature, original, mutated) in enumerate(cases):
                query = f"{signature.text()}\nfailing line: {mutated}"
                if with_hypothesis:
                    query += f"\nhypothesis: {label}"
                before = memory.embedder.tokens
                clock = time.monotonic()
                vector = memory.embedder.embed([query])[0]
                embedded = time.monotonic()
                found = memory._nearest(vector, signature, 3, frozenset({ids[index]}))
                embed_s.append(embedded - clock)
                query_s.append(time.monotonic() - embedded)
                embed_tokens.append(memory.embedder.tokens - before)
                hits += sum(cases[ids.index(n.id)][2] == mode for _, n in found)
                failure = Failure(
                    iteration=1, signature=signature, summary="SIM_FAIL", code=mutated
                )
                added = offered_section(found) + note_prompt(
                    block, failure, fix_diff(mutated, original), Outcome.FIXED
                )
                added_tokens.append(len(added) // 4)
            precision[with_hypothesis] = hits / (3 * len(cases))
        memory.close()
    chance = sum(
        (sum(c[2] == m for c in cases) - 1) / (len(cases) - 1) for _, _, m, *_ in cases
    ) / len(cases)
    print(
        f"precision@3: {precision[False]:.3f} (query: signature + failing line, as at "
        f"retrieval), {precision[True]:.3f} (+ a hypothesis naming the failure mode), "
        f"chance {chance:.3f}"
    )
    print(
        f"per attempt: retrieval = embedding {statistics.median(embed_s) * 1000:.1f} ms + "
        f"store query {statistics.median(query_s) * 1000:.1f} ms (medians); note write "
        f"{statistics.median(write_s) * 1000:.1f} ms (embedding + SQLite + Chroma), store of "
        f"{len(cases)} notes"
    )
    print(
        f"per attempt: {statistics.median(embed_tokens):.0f} embedding tokens (one embedding), "
        f"~{statistics.median(added_tokens):.0f} prompt tokens added (notes offered + the "
        "Reflection note request), 1 extra model call (the note)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
