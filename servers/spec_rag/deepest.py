"""The deepest clause first: a sub-clause that matches ranks before its parent.

A parent clause's own text often speaks of what its sub-clauses define ("the sub-block
interleaver ... is defined in clause 5.1.4.1.1"), so a question on the sub-clause finds the
parent first. Among the fused candidates, a clause below a hit is moved just before that hit,
deepest first, when it matches too: when it stands among the first `window` candidates, or
when the sentence of the parent that best matches the question points to it. The parent's
hit names the sub-clauses that matched. Nothing is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from .lexical_tokens import query_tokens
from .references import find_references

T = TypeVar("T")
_SENTENCE = re.compile(r"(?<=[.;:])\s+|\n+")


def is_below(child: str, parent: str) -> bool:
    """'5.1.4.2.1' is below '5.1.4.2' and '5.1'; '5.2.2.6A' is not below '5.2.2.6'."""
    return child.startswith(parent + ".")


def pointed_to(text: str, question: str, clause: str) -> list[str]:
    """The sub-clauses of `clause` that `text` refers to, those in the sentences that share
    the most words with the question first."""
    wanted = set(query_tokens(question))
    scored: list[tuple[int, int, str]] = []
    for n, sentence in enumerate(_SENTENCE.split(text)):
        if "lause" not in sentence:
            continue
        shared = len(wanted & set(query_tokens(sentence)))
        for mention in find_references(sentence):
            if (
                mention.kind == "clause"
                and mention.spec is None
                and mention.label is None
                and is_below(mention.target, clause)
            ):
                scored.append((-shared, n, mention.target))
    return list(dict.fromkeys(target for _, _, target in sorted(scored)))


def deepest_first(
    ranked: Sequence[T],
    label: Callable[[T], tuple[str, str]],
    window: int,
    points: Callable[[T], list[str]] = lambda item: [],
) -> tuple[list[T], dict[int, list[str]]]:
    """`ranked` reordered so a matching sub-clause comes before its parent clause.

    `label` gives (spec, clause) of an item; `points` the sub-clauses an item's text points
    to for this question, best first. Returns the new order and, by position in it, the
    sub-clauses (best first) that matched below each item.
    """
    labels = [label(item) for item in ranked]
    placed = [False] * len(ranked)
    out: list[T] = []
    below: dict[int, list[str]] = {}

    def place(i: int) -> None:
        placed[i] = True
        spec, clause = labels[i]
        deeper = [
            j
            for j in range(min(window, len(ranked)))
            if j != i and labels[j][0] == spec and is_below(labels[j][1], clause)
        ]
        family = any(s == spec and is_below(c, clause) for s, c in labels)
        wanted = points(ranked[i]) if family else []
        if wanted:
            chosen = [j for c in wanted for j in range(len(ranked)) if labels[j] == (spec, c)][:1]
            deeper = chosen + [j for j in deeper if j not in chosen]
        for j in deeper:
            if not placed[j]:
                place(j)
                break  # the best sub-clause comes first; the others keep their ranks
        names = list(dict.fromkeys(labels[j][1] for j in deeper))
        if names:
            below[len(out)] = names
        out.append(ranked[i])

    for i in range(min(window, len(ranked))):
        if not placed[i]:
            place(i)
    out.extend(item for i, item in enumerate(ranked) if not placed[i])
    return out, below
