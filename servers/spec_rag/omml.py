"""Office Math (OMML, `m:oMath`) to linear text in the style of UnicodeMath.

`x_(i+1)`, `a^2`, `(n)/(d)`, `√(x)`, `∑_(i=0)^(N−1) x_i`, `⌈B/C⌉`, matrices as `■(a&b@c&d)`.
A script or argument longer than one token is parenthesised so it reads unambiguously.
"""

from __future__ import annotations

import re
from typing import Any

M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"

_ATOM = re.compile(r"[\w'′.]+|.")


def _wrap(text: str) -> str:
    text = text.strip()
    return text if _ATOM.fullmatch(text) else f"({text})"


def _val(node: Any, path: str, default: str) -> str:
    found = node.find(path)
    if found is None:
        return default
    return found.get(M + "val", default)


def _arg(node: Any, name: str) -> str:
    child = node.find(M + name)
    return convert(child) if child is not None else ""


def convert(node: Any) -> str:
    """The linear text of an OMML element and its children."""
    parts: list[str] = []
    for child in node:
        parts.append(_one(child))
    return "".join(parts)


def _one(el: Any) -> str:
    tag = el.tag
    if not isinstance(tag, str) or not tag.startswith(M):
        if tag == W + "r" or tag == W + "t":  # Word runs inside math (rare)
            return "".join(t.text or "" for t in el.iter(W + "t"))
        return ""
    name = tag[len(M) :]
    if name == "r":
        return "".join(t.text or "" for t in el.iter(M + "t"))
    if name in ("e", "num", "den", "sub", "sup", "deg", "fName", "lim", "oMath"):
        return convert(el)
    if name == "oMathPara":
        return "  ".join(convert(m) for m in el.iter(M + "oMath"))
    if name == "f":
        return f"{_wrap(_arg(el, 'num'))}/{_wrap(_arg(el, 'den'))}"
    if name == "sSub":
        return f"{_arg(el, 'e')}_{_wrap(_arg(el, 'sub'))}"
    if name == "sSup":
        return f"{_arg(el, 'e')}^{_wrap(_arg(el, 'sup'))}"
    if name == "sSubSup":
        return f"{_arg(el, 'e')}_{_wrap(_arg(el, 'sub'))}^{_wrap(_arg(el, 'sup'))}"
    if name == "sPre":
        return f"_{_wrap(_arg(el, 'sub'))}^{_wrap(_arg(el, 'sup'))}{_arg(el, 'e')}"
    if name == "rad":
        degree = _arg(el, "deg").strip()
        root = {"": "√", "3": "∛", "4": "∜"}.get(degree)
        prefix = root if root else f"√({degree}&"
        return f"{prefix}({_arg(el, 'e')})" if root else f"{prefix}{_arg(el, 'e')})"
    if name == "nary":
        op = _val(el, f"{M}naryPr/{M}chr", "∫")
        sub, sup = _arg(el, "sub"), _arg(el, "sup")
        limits = (f"_{_wrap(sub)}" if sub else "") + (f"^{_wrap(sup)}" if sup else "")
        return f"{op}{limits} {_arg(el, 'e')}"
    if name == "d":
        begin = _val(el, f"{M}dPr/{M}begChr", "(")
        end = _val(el, f"{M}dPr/{M}endChr", ")")
        sep = _val(el, f"{M}dPr/{M}sepChr", "|")
        inner = sep.join(convert(e) for e in el.findall(M + "e"))
        return f"{begin}{inner}{end}"
    if name == "func":
        return f"{_arg(el, 'fName')} {_wrap(_arg(el, 'e'))}"
    if name in ("limLow", "limUpp"):
        mark = "_" if name == "limLow" else "^"
        return f"{_arg(el, 'e')}{mark}{_wrap(_arg(el, 'lim'))}"
    if name == "acc":
        return f"{_arg(el, 'e')}{_val(el, f'{M}accPr/{M}chr', chr(0x302))}"
    if name == "bar":
        return f"{_wrap(_arg(el, 'e'))}{chr(0x305)}"
    if name == "groupChr":
        return f"{_wrap(_arg(el, 'e'))}{_val(el, f'{M}groupChrPr/{M}chr', chr(0x23DF))}"
    if name in ("box", "borderBox", "phant"):
        return _arg(el, "e")
    if name == "eqArr":
        return "█(" + "@".join(convert(e) for e in el.findall(M + "e")) + ")"
    if name == "m":
        rows = ["&".join(convert(e) for e in mr.findall(M + "e")) for mr in el.findall(M + "mr")]
        return "■(" + "@".join(rows) + ")"
    return convert(el)


def omml_text(node: Any) -> str:
    return " ".join(convert_root(node).split())


def convert_root(node: Any) -> str:
    return _one(node)
