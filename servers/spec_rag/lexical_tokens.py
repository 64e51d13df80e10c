"""A BM25 tokenizer that keeps 3GPP identifiers whole and also indexes their parts.

'Table 5.1.3-3' -> table_5.1.3-3, table, 5.1.3-3, 5.1.3; 'TS 36.212' -> ts_36.212, 36.212;
'CRC-24A' -> crc-24a, crc, 24a; 'N_RB^DL' -> n_rb^dl, n_rb, rb, dl; 'c_init' -> c_init, init.
"""

from __future__ import annotations

import re

STOPWORDS = frozenset(
    """a an and are as at be been by for from has have in into is it its of on or that the
    their then there these this those to was were which with what how does do where when shall
    may can will should than if not no each per all any also used using""".split()
)
# A "word" keeps the joiners 3GPP notation uses inside one symbol.
_WORD = re.compile(r"[A-Za-z0-9]+(?:[._\-^'][A-Za-z0-9]+)*")
_SEPARATORS = re.compile(r"[._\-^']")
_NUMBERED = re.compile(r"\d+[A-Z]?(?:\.\d+)+(?:-\d+[a-z]?)?|[A-Z](?:\.\d+)+(?:-\d+)?")
# Prefix words that make a pair with the number after them.
_PAIR_PREFIX = {"table", "figure", "clause", "subclause", "ts", "tr", "annex", "section"}


def tokens(text: str) -> list[str]:
    out: list[str] = []
    previous = ""
    for match in _WORD.finditer(text):
        word = match.group(0)
        low = word.lower()
        joined = any(c in word for c in "._-^'")
        is_number_id = bool(_NUMBERED.fullmatch(word))
        if previous in _PAIR_PREFIX and (is_number_id or low[:1].isdigit()):
            out.append(f"{previous}_{low}")
        if low not in STOPWORDS:
            out.append(low)
        if joined:
            if is_number_id:
                # 5.1.3-3 also indexes its clause 5.1.3; 5.1.3.2.3 its parent 5.1.3.2
                base = low.split("-", 1)[0]
                if base != low:
                    out.append(base)
                elif base.count(".") >= 2:
                    out.append(base.rsplit(".", 1)[0])
            else:
                for sep in "^'":
                    if sep in low:
                        out.append(low.split(sep, 1)[0])
                if "-" in low:
                    out.append(low.replace("-", ""))
                out.extend(p for p in _SEPARATORS.split(low) if len(p) > 1 and p not in STOPWORDS)
        previous = low
    return out


def query_tokens(text: str) -> list[str]:
    # De-duplicated: a 10 kB query should not weigh one word a hundred times.
    seen: dict[str, None] = {}
    for token in tokens(text):
        seen.setdefault(token, None)
    return list(seen)
