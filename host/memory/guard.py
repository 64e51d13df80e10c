"""No answer key in memory: a note is refused when it quotes a hidden verification asset
(a testbench line, an expected-vector row, a line of reference RTL) or names one's path,
however it is written: a note is read in several normal forms (JSON strings unescaped, Unicode
compatibility forms and look-alike letters folded, reversed, rot13, case and whitespace
ignored, hex and base64 runs decoded, hex split across words, fields or short words joined, in
either byte order) and each form is matched; numbers in any base are matched with the vector
rows' values. Some encoding will always get past a matcher: the forms are the ones a model
writes without meaning to hide anything, and the ones the red teams found."""

from __future__ import annotations

import base64
import binascii
import codecs
import json
import logging
import re
import unicodedata
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


# Letters of other scripts that read as Latin ones (Cyrillic and Greek look-alikes).
_LOOK_ALIKES = str.maketrans(
    "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u04bb\u0501"
    "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425\u0406"
    "\u03bf\u03b1\u03b5\u03b9\u03ba\u03bd\u03c1\u03c4\u03c5\u03c7"
    "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7",
    "aeopcyxijshdABEKMHOPCTXIoaeiknptuxABEZHIKMNOPTYX",
)


def _folded(text: str) -> str:
    """Compatibility forms (full-width digits, ligatures) and look-alike letters as Latin."""
    return unicodedata.normalize("NFKC", text).translate(_LOOK_ALIKES)


def note_forms(text: str) -> list[str]:
    """The forms of a note that are matched: as given, its JSON strings unescaped, folded to
    plain Latin, reversed and rot13, and what its hex and base64 runs decode to."""
    forms = [text]
    try:
        forms.append("\n".join(_strings(json.loads(text))))
    except ValueError:
        pass
    forms += [_folded(form) for form in forms]
    forms += [form[::-1] for form in forms] + [codecs.encode(form, "rot13") for form in forms]
    for form in list(forms):
        forms += _decoded(form)
        for run in hex_runs(form.lower()):
            if len(run) >= 16 and len(run) % 2 == 0:
                decoded = _printable(bytes.fromhex(run))
                if decoded:
                    forms.append(decoded)
    return forms


_NUMBER = re.compile(r"(?:\d*'[sS]?(?P<base>[bBoOdDhH]))?(?P<digits>[0-9a-fA-F_]+)", re.IGNORECASE)


def numbers(text: str) -> set[int]:
    """Every number written in the text, read in each base it could be in (a sized literal's
    own base; bare digits as decimal, binary when only 0 and 1, octal; hex)."""
    found: set[int] = set()
    for match in _NUMBER.finditer(text):
        digits = match["digits"].replace("_", "").lower()
        if len(digits) < MIN_VECTOR:
            continue
        base = (match["base"] or "").lower()
        bases = {"b": [2], "o": [8], "d": [10], "h": [16]}.get(base, [10, 2, 8, 16])
        for radix in bases:
            try:
                found.add(int(digits, radix))
            except ValueError:
                continue
    return found


def hex_runs(text: str) -> list[str]:
    """Hex digits of words that follow each other with only separators between (`a3 f0 9c`,
    `0xa3, 0xf0`, fields one after another), joined: a row split across words or fields; and
    hex words with a digit joined across the short words between them (`high 3fa9 low c1d7`)."""
    runs: list[str] = []
    current: list[str] = []
    words = [w for w in _SEPARATORS.split(text) if w]
    for word in words:
        if _HEX_TOKEN.fullmatch(word):
            current.append(_hex_digits(word.lower().removeprefix("0x")))
            continue
        if len(current) > 1:
            runs.append("".join(current))
        current = []
    if len(current) > 1:
        runs.append("".join(current))
    with_digits = [
        _hex_digits(w.lower().removeprefix("0x"))
        for w in words
        if _HEX_TOKEN.fullmatch(w) and re.search(r"\d", w)
    ]
    for width in (2, 3, 4):
        runs += ["".join(with_digits[i : i + width]) for i in range(len(with_digits) - width + 1)]
    return runs


def _byte_swapped(digits: str) -> str:
    return "".join(reversed([digits[i : i + 2] for i in range(0, len(digits), 2)]))


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
        self.values: dict[int, str] = {}  # a vector row's value -> where
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
                        if int(digits, 16) >= 16 ** (MIN_VECTOR - 1):
                            # short values (K = 6144 in a zero-padded row) are everyone's
                            self.values[int(digits, 16)] = f"{kind} {path.name}"
                        if len(digits) % 2 == 0:
                            self.digits[_byte_swapped(digits)] = f"{kind} {path.name}"
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
        found += [
            f"quotes a row of the {self.values[value]}"
            for value in numbers(text)
            if value in self.values
        ]
        return sorted(set(found))

    def check(self, text: str) -> None:
        found = self.reasons(text)
        if found:
            log.warning("task memory refused a note: %s", "; ".join(found))
            raise Refused(found)
