"""A small, safe condition language over dumped signals (never Python's eval).

    tvalid && tready && tdata == 'h3f
    count_r == 8'd7 && $past(count_r) == 5
    $rose(rst_n) || (state != 2 && !busy[0])

Operators (SystemVerilog precedence): ! ~ unary-, * / %, + -, << >>, < <= > >=, == != === !==,
&, ^, |, &&, ||; bit and range selects `sig[3]`, `sig[7:4]`; literals 12, 'h3f, 8'hff, 'b101,
'd9, 0x3f; functions $past(expr[, n]), $rose(sig), $fell(sig), $stable(sig), $changed(sig).
A value with x/z bits is unknown: comparisons with it are unknown, and an unknown condition
does not hold (as in an `if`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from silicon_agent.servers.core.workspace import InvalidInput

Val = tuple[int | None, int]  # (value or None when unknown, width in bits)
Getter = Callable[[int, int], Val]  # (signal index, point index) -> (value, width)
Node = Callable[[Getter, int], Val]

MAX_LENGTH = 2000
MAX_PAST = 1024
_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<num>(?:\d[\d_]*)?'[sS]?[hHdDbBoO][0-9a-fA-F_]+|0[xX][0-9a-fA-F_]+|\d[\d_]*)
  | (?P<func>\$[a-zA-Z_]\w*)
  | (?P<ident>[a-zA-Z_][\w$]*(?:\.[a-zA-Z_][\w$]*)*)
  | (?P<op>===|!==|==|!=|<=|>=|<<|>>|&&|\|\||[!~&|^<>+\-*/%()\[\]:,])
    """,
    re.VERBOSE,
)
_BINARY = [
    ["||"],
    ["&&"],
    ["|"],
    ["^"],
    ["&"],
    ["==", "!=", "===", "!=="],
    ["<", "<=", ">", ">="],
    ["<<", ">>"],
    ["+", "-"],
    ["*", "/", "%"],
]
FUNCTIONS = ("$past", "$rose", "$fell", "$stable", "$changed")


def _mask(width: int) -> int:
    return (1 << width) - 1 if width > 0 else -1


@dataclass
class Condition:
    text: str
    signals: list[str] = field(default_factory=list)
    max_past: int = 0
    node: Node | None = None

    def holds(self, get: Getter, k: int) -> bool:
        assert self.node is not None
        value, _ = self.node(get, k)
        return value is not None and value != 0

    def value(self, get: Getter, k: int) -> Val:
        assert self.node is not None
        return self.node(get, k)


def parse_literal(text: str, argument: str = "condition") -> Val:
    """A Verilog-style or C-style integer literal as (value, width)."""
    clean = text.replace("_", "")
    if "'" in clean:
        size_text, rest = clean.split("'", 1)
        rest = rest.lstrip("sS")
        base = {"h": 16, "d": 10, "b": 2, "o": 8}[rest[0].lower()]
        digits = rest[1:]
        try:
            value = int(digits, base)
        except ValueError:
            raise InvalidInput(
                f"{argument}: literal '{text}' has digits that are not base {base} (x/z "
                "literals are not supported)",
                argument=argument,
            ) from None
        width = int(size_text) if size_text else max(32, value.bit_length())
        return value & _mask(width), width
    if clean.lower().startswith("0x"):
        value = int(clean, 16)
        return value, max(32, value.bit_length())
    value = int(clean)
    return value, max(32, value.bit_length())


def parse(text: str, argument: str = "condition") -> Condition:
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput(f"{argument}: empty expression", argument=argument)
    if len(text) > MAX_LENGTH:
        raise InvalidInput(
            f"{argument}: expression longer than {MAX_LENGTH} characters", argument=argument
        )
    tokens: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            raise InvalidInput(
                f"{argument}: cannot read '{text[pos : pos + 12]}' at column {pos + 1}",
                argument=argument,
                hint="Use signal names, literals like 'h3f, operators && || == != < > ! ~ "
                "& | ^ and $past/$rose/$fell/$stable/$changed.",
            )
        kind = match.lastgroup or ""
        if kind != "ws":
            tokens.append((kind, match.group(), pos))
        pos = match.end()
    parser = _Parser(text, tokens, argument)
    node = parser.expression(0)
    if parser.pos != len(tokens):
        parser.fail(f"unexpected '{tokens[parser.pos][1]}'")
    return Condition(text=text, signals=parser.signals, max_past=parser.max_past, node=node)


class _Parser:
    def __init__(self, text: str, tokens: list[tuple[str, str, int]], argument: str):
        self.text = text
        self.tokens = tokens
        self.pos = 0
        self.argument = argument
        self.signals: list[str] = []
        self.max_past = 0
        self.depth = 0

    def fail(self, message: str) -> None:
        column = self.tokens[self.pos][2] + 1 if self.pos < len(self.tokens) else len(self.text)
        raise InvalidInput(
            f"{self.argument}: {message} at column {column} in '{self.text}'",
            argument=self.argument,
        )

    def peek(self) -> str | None:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str, int]:
        if self.pos >= len(self.tokens):
            wanted = f", expected '{expected}'" if expected else ""
            self.fail("unexpected end of expression" + wanted)
        token = self.tokens[self.pos]
        if expected is not None and token[1] != expected:
            self.fail(f"expected '{expected}', found '{token[1]}'")
        self.pos += 1
        return token

    def expression(self, level: int) -> Node:
        self.depth += 1
        if self.depth > 200:
            self.fail("expression nested too deeply")
        if level == len(_BINARY):
            node = self.unary()
        else:
            node = self.expression(level + 1)
            while self.peek() in _BINARY[level] and self.tokens[self.pos][0] == "op":
                op = self.take()[1]
                right = self.expression(level + 1)
                node = _binary(op, node, right)
        self.depth -= 1
        return node

    def unary(self) -> Node:
        token = self.peek()
        if token in ("!", "~", "-") and self.tokens[self.pos][0] == "op":
            self.take()
            inner = self.unary()
            return _unary(token, inner)
        return self.postfix(self.primary())

    def postfix(self, node: Node) -> Node:
        while self.peek() == "[":
            self.take("[")
            high = self.constant()
            low = high
            if self.peek() == ":":
                self.take(":")
                low = self.constant()
            self.take("]")
            if low > high:
                high, low = low, high
            node = _select(node, high, low)
        return node

    def constant(self) -> int:
        kind, text, _ = self.take()
        if kind != "num":
            self.pos -= 1
            self.fail("expected a constant index")
        value, _ = parse_literal(text, self.argument)
        return value

    def primary(self) -> Node:
        kind, text, _ = self.take()
        if kind == "num":
            val = parse_literal(text, self.argument)
            return lambda get, k: val
        if kind == "ident":
            if text not in self.signals:
                self.signals.append(text)
            index = self.signals.index(text)
            return _signal(index)
        if kind == "func":
            return self.function(text)
        if text == "(":
            node = self.expression(0)
            self.take(")")
            return node
        self.pos -= 1
        self.fail(f"unexpected '{text}'")
        raise AssertionError  # unreachable: fail raises

    def function(self, name: str) -> Node:
        if name not in FUNCTIONS:
            self.pos -= 1
            self.fail(f"unknown function {name} (known: {', '.join(FUNCTIONS)})")
        self.take("(")
        inner = self.expression(0)
        steps = 1
        if name == "$past" and self.peek() == ",":
            self.take(",")
            steps = self.constant()
            if not 1 <= steps <= MAX_PAST:
                self.pos -= 1
                self.fail(f"$past depth must be 1..{MAX_PAST}")
        self.take(")")
        self.max_past = max(self.max_past, steps)
        past = _shift(inner, steps)
        if name == "$past":
            return past
        return _temporal(name, inner, past)


def _signal(index: int) -> Node:
    return lambda get, k: get(index, k)


def _shift(inner: Node, steps: int) -> Node:
    def node(get: Getter, k: int) -> Val:
        if k - steps < 0:
            return None, inner(get, k)[1]
        return inner(get, k - steps)

    return node


def _temporal(name: str, now: Node, past: Node) -> Node:
    def node(get: Getter, k: int) -> Val:
        a, width = now(get, k)
        b, _ = past(get, k)
        if a is None or b is None:
            return None, 1
        if name == "$rose":
            return int((a & 1) == 1 and (b & 1) == 0), 1
        if name == "$fell":
            return int((a & 1) == 0 and (b & 1) == 1), 1
        if name == "$stable":
            return int(a == b), 1
        return int(a != b), 1

    return node


def _select(inner: Node, high: int, low: int) -> Node:
    width = high - low + 1

    def node(get: Getter, k: int) -> Val:
        value, _ = inner(get, k)
        if value is None:
            return None, width
        return (value >> low) & _mask(width), width

    return node


def _unary(op: str, inner: Node) -> Node:
    def node(get: Getter, k: int) -> Val:
        value, width = inner(get, k)
        if op == "!":
            return (None if value is None else int(value == 0)), 1
        if value is None:
            return None, width
        if op == "~":
            return (~value) & _mask(width), width
        return (-value) & _mask(width), width

    return node


def _binary(op: str, left: Node, right: Node) -> Node:
    if op in ("&&", "||"):
        want = 1 if op == "&&" else 0  # the result when neither side decides it

        def logical(get: Getter, k: int) -> Val:
            a, _ = left(get, k)
            a_bool = None if a is None else int(a != 0)
            if a_bool is not None and a_bool != want:
                return a_bool, 1  # 0 && ... is 0, 1 || ... is 1, whatever the right side
            b, _ = right(get, k)
            b_bool = None if b is None else int(b != 0)
            if b_bool is not None and b_bool != want:
                return b_bool, 1
            if a_bool is None or b_bool is None:
                return None, 1
            return want, 1

        return logical

    def arith(get: Getter, k: int) -> Val:
        a, wa = left(get, k)
        b, wb = right(get, k)
        width = max(wa, wb)
        if op in ("===", "!=="):
            equal = a == b
            return int(equal if op == "===" else not equal), 1
        if a is None or b is None:
            return None, 1 if op in ("==", "!=", "<", "<=", ">", ">=") else width
        if op == "==":
            return int(a == b), 1
        if op == "!=":
            return int(a != b), 1
        if op == "<":
            return int(a < b), 1
        if op == "<=":
            return int(a <= b), 1
        if op == ">":
            return int(a > b), 1
        if op == ">=":
            return int(a >= b), 1
        if op == "&":
            return a & b, width
        if op == "|":
            return a | b, width
        if op == "^":
            return a ^ b, width
        if op == "+":
            return (a + b) & _mask(width + 1), width + 1
        if op == "-":
            return (a - b) & _mask(width), width
        if op == "*":
            return a * b, wa + wb
        if op in ("/", "%"):
            if b == 0:
                return None, width
            return (a // b if op == "/" else a % b), width
        if op == "<<":
            return (a << min(b, 4096)) & _mask(wa), wa
        return a >> b, wa

    return arith
