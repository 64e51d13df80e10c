"""No answer key in memory: a note is refused when it quotes a hidden verification asset
(a testbench line, an expected-vector row, a line of reference RTL) or names one's path."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel

log = logging.getLogger(__name__)

MIN_LINE = 16  # shorter lines (`end`, `endmodule`, `assign y = a;`) are everyone's
MIN_VECTOR = 6  # hex rows of golden vectors, matched as whole words
VECTOR_SUFFIXES = (".hex", ".mem", ".txt", ".dat", ".bin", ".json")


class Refused(ValueError):
    """A note that would put hidden-asset text into memory."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__("memory write refused: " + "; ".join(reasons))
        self.reasons = reasons


class GuardSource(BaseModel):
    path: str
    kind: str  # testbench | vectors | reference


def _norm(line: str) -> str:
    return " ".join(line.split())


def _uncommented(line: str) -> str:
    """A comment's words, which a note may quote without the comment marks."""
    return re.sub(r"^(//+|/\*+|\*+|#+)\s*", "", line).removesuffix("*/").strip()


class AnswerKeyGuard:
    """Built from the hidden files themselves; lines also shown to designers (the
    interface, the specification) are theirs to quote and do not count."""

    def __init__(
        self,
        files: Iterable[tuple[Path, str]],
        names: Iterable[str] = (),
        visible: str = "",
    ) -> None:
        shown = {_norm(line) for line in visible.splitlines()}
        shown_text = _norm(visible)
        self.lines: dict[str, str] = {}
        self.words: dict[str, str] = {}
        self.names = sorted({n for n in names if n}, key=len, reverse=True)
        for path, kind in files:
            try:
                text = path.read_text(errors="replace")
            except OSError:
                continue
            vectors = kind == "vectors" or path.suffix in VECTOR_SUFFIXES
            for raw in text.splitlines():
                line = _norm(raw)
                if (
                    vectors
                    and len(line) >= MIN_VECTOR
                    and re.fullmatch(r"[0-9a-fA-FxXzZ_ ]+", line)
                ):
                    self.words[line.lower()] = f"{kind} {path.name}"
                    continue
                for quoted in {line, _uncommented(line)}:
                    if len(quoted) >= MIN_LINE and quoted not in shown and quoted not in shown_text:
                        self.lines[quoted] = f"{kind} {path.name}"

    def reasons(self, text: str) -> list[str]:
        """Why `text` may not be stored; empty when it may."""
        flat = _norm(text)
        found = [
            f"quotes a line of the {where}" for line, where in self.lines.items() if line in flat
        ]
        lowered = flat.lower()
        found += [
            f"quotes a row of the {where}"
            for word, where in self.words.items()
            if re.search(rf"(?<![0-9a-z]){re.escape(word)}(?![0-9a-z])", lowered)
        ]
        found += [f"names the hidden asset {n}" for n in self.names if n in text]
        return sorted(set(found))

    def check(self, text: str) -> None:
        found = self.reasons(text)
        if found:
            log.warning("task memory refused a note: %s", "; ".join(found))
            raise Refused(found)
