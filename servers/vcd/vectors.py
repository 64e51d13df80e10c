"""Golden vector files in $readmemh form: one hex word per entry, `//` and `/* */` comments,
`@addr` lines that move the load address (gaps stay unfilled)."""

from __future__ import annotations

import re

from silicon_agent.servers.core.workspace import InvalidInput

MAX_WORDS = 4_000_000
MAX_FILE_BYTES = 256 << 20
_WORD = re.compile(r"[0-9a-fA-FxXzZ_]+")


def read_memh(raw: bytes, name: str, argument: str = "reference") -> list[tuple[int, str]]:
    """(address, word) pairs in file order; words keep x/z digits as written (lower case)."""
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise InvalidInput(
            f"{argument}: '{name}' is not a text $readmemh file", argument=argument
        ) from None
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    words: list[tuple[int, str]] = []
    address = 0
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("//", 1)[0]
        for token in line.split():
            if token.startswith("@"):
                try:
                    address = int(token[1:], 16)
                except ValueError:
                    raise InvalidInput(
                        f"{argument}: line {number}: bad address '{token}'", argument=argument
                    ) from None
                continue
            if not _WORD.fullmatch(token):
                raise InvalidInput(
                    f"{argument}: line {number}: '{token[:40]}' is not a hex word",
                    argument=argument,
                    hint="A $readmemh file holds hex words, // comments and @addr lines.",
                )
            words.append((address, token.replace("_", "").lower()))
            address += 1
            if len(words) > MAX_WORDS:
                raise InvalidInput(f"{argument}: more than {MAX_WORDS} words", argument=argument)
    if not words:
        raise InvalidInput(f"{argument}: '{name}' holds no words", argument=argument)
    return words


def word_value(word: str) -> int | None:
    """The word as a number, or None when it has x/z digits (a don't-care entry)."""
    if any(c in "xz" for c in word):
        return None
    return int(word, 16)
