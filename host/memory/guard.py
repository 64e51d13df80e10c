"""No answer key in memory: a note is refused when it quotes a hidden verification asset
(a testbench line, an expected-vector row, a line of reference RTL) or names one's path,
however it is written: a note is read in several normal forms (JSON strings unescaped, case
and whitespace ignored, hex and base64 runs decoded, hex digits split across words or fields
joined) and each form is matched."""

from __future__ import annotations

import base64
import binascii
import json
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


def _squash(text: str) -> str:
    """Case and whitespace do not count."""
    return "".join(text.split()).lower()


_HEX_TOKEN = re.compile(r"(?:0x)?[0-9a-f][0-9a-f_]*", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s,;:|()\[\]{}\"'`+-]+")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{8,}={0,2}|[A-Za-z0-9_-]{8,}={0,2}")
_LONG_HEX = re.compile(r"(?<![0-9a-z])(?:[0-9a-f]{2}){8,}(?![0-9a-z])")


def _hex_digits(text: str) -> str:
    return re.sub(r"[^0-9a-f]", "", text.lower())


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _printable(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    shown = sum(ch.isprintable() or ch.isspace() for ch in text)
    return text if text and shown >= 0.9 * len(text) else None


def _decoded(text: str) -> list[str]:
    """The text of each hex or base64 run in `text` (and the hex of base64's bytes)."""
    found: list[str] = []
    for run in _LONG_HEX.findall(text.lower()):
        decoded = _printable(bytes.fromhex(run))
        if decoded:
            found.append(decoded)
    for run in _BASE64.findall(text):
        # Words are not base64: a run must mix cases and hold a digit or a sign.
        mixed = run != run.lower() and run != run.upper()
        if not mixed or not re.search(r"[0-9+/=_-]", run):
            continue
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                raw = decode(run + "=" * (-len(run) % 4))
            except (binascii.Error, ValueError):
                continue
            found.append(raw.hex())
            decoded = _printable(raw)
            if decoded:
                found.append(decoded)
            break
    return found


def note_forms(text: str) -> list[str]:
    """The forms of a note that are matched: as given, its JSON strings unescaped, and what its
    hex and base64 runs decode to."""
    forms = [text]
    try:
        forms.append("\n".join(_strings(json.loads(text))))
    except ValueError:
        pass
    for form in list(forms):
        forms += _decoded(form)
    return forms


def hex_runs(text: str) -> list[str]:
    """Hex digits of words that follow each other with only separators between (`a3 f0 9c`,
    `0xa3, 0xf0`, fields one after another), joined: a row split across words or fields."""
    runs: list[str] = []
    current: list[str] = []
    for word in _SEPARATORS.split(text):
        if word and _HEX_TOKEN.fullmatch(word):
            current.append(_hex_digits(word.lower().removeprefix("0x")))
            continue
        if len(current) > 1:
            runs.append("".join(current))
        current = []
    if len(current) > 1:
        runs.append("".join(current))
    return runs


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
        self.squashed: dict[str, str] = {}  # line without case or whitespace -> where
        self.digits: dict[str, str] = {}  # a vector row's hex digits -> where
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
                    digits = _hex_digits(line)
                    if len(digits) >= MIN_VECTOR and len(set(digits)) >= 3:
                        self.digits[digits] = f"{kind} {path.name}"
                    continue
                for quoted in {line, _uncommented(line)}:
                    if len(quoted) >= MIN_LINE and quoted not in shown and quoted not in shown_text:
                        self.lines[quoted] = f"{kind} {path.name}"
                        self.squashed[_squash(quoted)] = f"{kind} {path.name}"
        shown_squashed = _squash(visible)
        self.squashed = {k: v for k, v in self.squashed.items() if k not in shown_squashed}

    def reasons(self, text: str) -> list[str]:
        """Why `text` may not be stored; empty when it may: each of its forms is matched."""
        found: set[str] = set()
        for form in note_forms(text):
            found.update(self._reasons(form))
        return sorted(found)

    def _reasons(self, text: str) -> list[str]:
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
        squashed = _squash(text)
        found += [
            f"quotes a line of the {where}"
            for line, where in self.squashed.items()
            if line in squashed
        ]
        runs = [_hex_digits(word) for word in _SEPARATORS.split(lowered) if word] + hex_runs(
            lowered
        )
        lengths = {len(digits) for digits in self.digits}
        found += [
            f"quotes a row of the {self.digits[run[at : at + size]]}"
            for run in runs
            for size in lengths
            for at in range(len(run) - size + 1)
            if run[at : at + size] in self.digits
        ]
        return sorted(set(found))

    def check(self, text: str) -> None:
        found = self.reasons(text)
        if found:
            log.warning("task memory refused a note: %s", "; ".join(found))
            raise Refused(found)
