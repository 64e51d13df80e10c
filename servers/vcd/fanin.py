"""The fan-in cone of a signal, read from the RTL with pyslang: which nets feed it through
continuous assignments, procedural assignments (with the if/case conditions guarding them) and
port connections, level by level."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyslang
from pyslang.ast import (
    Compilation,
    CompilationOptions,
    ExpressionKind,
    StatementKind,
    SymbolKind,
    VisitAction,
)
from pyslang.syntax import SyntaxTree

# The suite's helper module and anything else that is not design.
_SKIP_KINDS = {SymbolKind.Parameter, SymbolKind.TypeParameter}
_SELECTS = {ExpressionKind.ElementSelect, ExpressionKind.RangeSelect, ExpressionKind.MemberAccess}


@dataclass
class DriverGraph:
    """net -> the nets it is computed from (hierarchical names as slang spells them), the
    source lines that assign it ('file.sv:12', a called function as 'file.sv:40-66 (function
    f)'), and the top modules' ports (hierarchical name -> 'in', 'out' or 'inout')."""

    drivers: dict[str, set[str]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    lines: dict[str, set[str]] = field(default_factory=dict)
    ports: dict[str, str] = field(default_factory=dict)
    data: dict[str, set[str]] = field(default_factory=dict)  # drivers less the guards

    def add(
        self,
        target: str,
        sources: set[str],
        where: set[str] | None = None,
        guards: set[str] | frozenset[str] = frozenset(),
    ) -> None:
        self.drivers.setdefault(target, set()).update(s for s in sources if s != target)
        self.data.setdefault(target, set()).update(
            s for s in sources if s != target and s not in guards
        )
        if where:
            self.lines.setdefault(target, set()).update(where)

    def cone(
        self,
        start: str,
        depth: int,
        limit: int = 64,
        data_only: bool = False,
        picks_first: bool = False,
    ) -> list[tuple[str, int]]:
        """(net, level) breadth-first from `start` (level 0), at most `limit` nets;
        `data_only` follows the values assigned first (through a memory's read to the data
        its writes wrote), then the conditions and indices that pick them and what those are
        computed from (a value passed through unchanged is wrong because the wrong one was
        picked), each after every value net. `picks_first` (when
        the right value was there but not the one given out) turns that round: what picks
        the start's value and its direct values' (an index, a ?: or if condition) and what
        that is computed from come first, then the values."""
        if data_only and picks_first:
            return self._picks_first(start, depth, limit)
        seen = _Cone(limit)
        seen.admit(start, 0)
        self._walk(seen, [start], 1, depth, self.data if data_only else self.drivers)
        if data_only:
            # the conditions and indices that pick each value, after every value net (those
            # of the values nearest the start first), then what they are computed from (a
            # digest cut short drops them first)
            guards: list[str] = []
            base = max(seen.values()) + 1
            for net, level in sorted(seen.items(), key=lambda item: (item[1], item[0])):
                for guard in sorted(self.picks(net)):
                    if seen.admit(guard, base + level):
                        guards.append(guard)
            base = max(seen.values()) + 1
            self._walk(seen, guards, base, base + depth - 2, self.drivers)
        return sorted(seen.items(), key=lambda item: (item[1], item[0]))

    def picks(self, net: str) -> set[str]:
        """What picks `net`'s value (indices, ?: and if/case conditions), not the values."""
        return self.drivers.get(net, set()) - self.data.get(net, set())

    def _picks_first(self, start: str, depth: int, limit: int) -> list[tuple[str, int]]:
        seen = _Cone(limit)
        seen.admit(start, 0)
        near = [start, *sorted(self.data.get(start, ()))]
        first = sorted({p for net in near for p in self.picks(net)} - set(near))
        self._walk(seen, [p for p in first if seen.admit(p, 1)], 2, depth, self.drivers)
        base = max(seen.values()) + 1
        values = _Cone(limit)
        values.admit(start, 0)
        self._walk(values, [start], 1, depth, self.data)
        for net, level in sorted(values.items(), key=lambda item: (item[1], item[0])):
            seen.admit(net, base + level)
        return sorted(seen.items(), key=lambda item: (item[1], item[0]))

    @staticmethod
    def _walk(
        seen: _Cone, frontier: list[str], first: int, last: int, edges: dict[str, set[str]]
    ) -> None:
        """Breadth-first over `edges` from `frontier`, levels `first`..`last`, into `seen`."""
        for level in range(first, last + 1):
            nxt: list[str] = []
            for net in frontier:
                for source in sorted(edges.get(net, ())):
                    if seen.admit(source, level):
                        nxt.append(source)
            frontier = nxt


_COPY = re.compile(r"\[\d+\]\.")


class _Cone(dict[str, int]):
    """The nets of a cone by level, at most `limit`. Of the copies a generate loop makes
    (`g[0].x`, `g[1].x`: the same source lines) the first stands for all: the others are
    walked through, not listed, so 32 copies of a datapath do not fill the cone."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.shapes: set[str] = set()
        self.passed: set[str] = set()

    def admit(self, net: str, level: int) -> bool:
        """Whether the walk goes on through `net`: listed now, or a copy of a listed net."""
        if net in self or net in self.passed:
            return False
        shape = _COPY.sub("[*].", net)
        if shape != net and shape in self.shapes:
            self.passed.add(net)
            return True
        if len(self) >= self.limit:
            return False
        self[net] = level
        self.shapes.add(shape)
        return True


# The source manager of the compilation being walked (one per worker process, one walk at a
# time), so assignments can be named by file and line.
_MANAGER: list[pyslang.SourceManager] = []
# The lines of the if/case conditions around the statement being walked.
_GUARD_LINES: list[str] = []


def _line(location: object) -> str | None:
    if not _MANAGER:
        return None
    manager = _MANAGER[0]
    try:
        return f"{Path(manager.getFileName(location)).name}:{manager.getLineNumber(location)}"
    except Exception:  # a location slang made up (macro expansion and the like)
        return None


def _span(source_range: object) -> str | None:
    """'file.sv:12', or 'file.sv:12-14' for text over several lines (a statement or condition
    continued on the next lines is named by all of them)."""
    start = _line(source_range.start)  # type: ignore[attr-defined]
    end = _line(source_range.end)  # type: ignore[attr-defined]
    if start and end and end != start and end.rsplit(":", 1)[0] == start.rsplit(":", 1)[0]:
        return f"{start}-{end.rsplit(':', 1)[1]}"
    return start


def _parameters(
    node: object, found: set[str] | None = None, seen: set[str] | None = None
) -> set[str]:
    """The declaration lines of the parameters an expression reads ('pkg.sv:116 (parameter
    CRC24B_POLY)'), and of those their values read in turn: a wrong constant is named."""
    found = set() if found is None else found
    seen = set() if seen is None else seen

    def visit(item: object) -> VisitAction:
        if getattr(item, "kind", None) == ExpressionKind.NamedValue:
            symbol = item.symbol  # type: ignore[attr-defined]
            if symbol.kind == SymbolKind.Parameter and symbol.name not in seen:
                seen.add(symbol.name)
                line = _line(symbol.location)
                if line:
                    found.add(f"{line} (parameter {symbol.name})")
                initializer = getattr(symbol.declaredType, "initializer", None)
                if initializer is not None:
                    _parameters(initializer, found, seen)
        return VisitAction.Advance

    try:
        node.visit(visit)  # type: ignore[attr-defined]
    except Exception:  # a node slang cannot walk: no parameter named, the rest stands
        pass
    return found


def _where(node: object) -> set[str]:
    """The line of an assignment, the line ranges of the user functions it calls and the
    declaration lines of the parameters it reads."""
    found: set[str] = _parameters(node)
    line = _span(node.sourceRange)  # type: ignore[attr-defined]
    if line:
        found.add(line)

    def visit(item: object) -> VisitAction:
        if getattr(item, "kind", None) == ExpressionKind.Call and not item.isSystemCall:  # type: ignore[attr-defined]
            routine = item.subroutine  # type: ignore[attr-defined]
            syntax = getattr(routine, "syntax", None)
            start = _line(syntax.sourceRange.start) if syntax is not None else None
            end = _line(syntax.sourceRange.end) if syntax is not None else None
            if start and end:
                found.add(f"{start}-{end.rsplit(':', 1)[1]} (function {routine.name})")
        return VisitAction.Advance

    node.visit(visit)  # type: ignore[attr-defined]
    return found


def _names(node: object, picks: bool = True) -> set[str]:
    """Every variable or net an expression or statement reads; with `picks` False only those
    it passes on as its value, not those read only to pick one (an element's or a part's
    index, a ?: condition): a memory read `mem[addr]` has the value of `mem`, and `addr`
    says which word, as an if says which branch."""
    found: set[str] = set()
    if node is None:
        return found

    def visit(item: object) -> VisitAction:
        kind = getattr(item, "kind", None)
        if not picks and kind in (ExpressionKind.ElementSelect, ExpressionKind.RangeSelect):
            found.update(_names(item.value, picks))  # type: ignore[attr-defined]
            return VisitAction.Skip
        if not picks and kind == ExpressionKind.ConditionalOp:
            found.update(_names(item.left, picks) | _names(item.right, picks))  # type: ignore[attr-defined]
            return VisitAction.Skip
        if kind == ExpressionKind.NamedValue or kind == ExpressionKind.HierarchicalValue:
            symbol = item.symbol  # type: ignore[attr-defined]
            if symbol.kind not in _SKIP_KINDS:
                found.add(symbol.hierarchicalPath)
        return VisitAction.Advance

    node.visit(visit)  # type: ignore[attr-defined]
    return found


def _lvalue(expr: object) -> tuple[set[str], set[str]]:
    """(nets written, nets read by the indices) of an assignment target."""
    kind = expr.kind  # type: ignore[attr-defined]
    if kind in _SELECTS:
        written, reads = _lvalue(expr.value)  # type: ignore[attr-defined]
        if kind == ExpressionKind.ElementSelect:
            reads |= _names(expr.selector)  # type: ignore[attr-defined]
        elif kind == ExpressionKind.RangeSelect:
            reads |= _names(expr.left) | _names(expr.right)  # type: ignore[attr-defined]
        return written, reads
    if kind == ExpressionKind.Concatenation:
        written, reads = set(), set()
        for operand in expr.operands:  # type: ignore[attr-defined]
            w, r = _lvalue(operand)
            written |= w
            reads |= r
        return written, reads
    if kind == ExpressionKind.Conversion:
        return _lvalue(expr.operand)  # type: ignore[attr-defined]
    return _names(expr), set()


def _assignments(expr: object, guards: set[str], graph: DriverGraph) -> None:
    """Record every assignment inside an expression (there may be several, e.g. a++)."""

    def visit(item: object) -> VisitAction:
        if getattr(item, "kind", None) == ExpressionKind.Assignment:
            written, index_reads = _lvalue(item.left)  # type: ignore[attr-defined]
            reads = _names(item.right) | index_reads  # type: ignore[attr-defined]
            values = _names(item.right, picks=False)  # type: ignore[attr-defined]
            # the indices and ?: conditions that pick the value (or the word written) are
            # followed after the values, as the conditions around the assignment are
            picks = (reads | guards) - values
            where = _where(item) | set(_GUARD_LINES)
            for target in written:
                graph.add(target, reads | guards, where, picks)
            return VisitAction.Skip
        return VisitAction.Advance

    expr.visit(visit)  # type: ignore[attr-defined]


def _statement(stmt: object, guards: set[str], graph: DriverGraph) -> None:
    if stmt is None:
        return
    kind = stmt.kind  # type: ignore[attr-defined]
    if kind == StatementKind.List:
        for item in stmt.list:  # type: ignore[attr-defined]
            _statement(item, guards, graph)
    elif kind == StatementKind.Block:
        _statement(stmt.body, guards, graph)  # type: ignore[attr-defined]
    elif kind == StatementKind.Timed:
        _statement(stmt.stmt, guards, graph)  # type: ignore[attr-defined]
    elif kind == StatementKind.Conditional:
        inner = set(guards)
        depth = len(_GUARD_LINES)
        for condition in stmt.conditions:  # type: ignore[attr-defined]
            inner |= _names(condition.expr)
            _GUARD_LINES.extend(filter(None, [_span(condition.expr.sourceRange)]))
            _GUARD_LINES.extend(sorted(_parameters(condition.expr)))
        _statement(stmt.ifTrue, inner, graph)  # type: ignore[attr-defined]
        _statement(stmt.ifFalse, inner, graph)  # type: ignore[attr-defined]
        del _GUARD_LINES[depth:]
    elif kind == StatementKind.Case:
        inner = guards | _names(stmt.expr)  # type: ignore[attr-defined]
        depth = len(_GUARD_LINES)
        _GUARD_LINES.extend(filter(None, [_span(stmt.expr.sourceRange)]))  # type: ignore[attr-defined]
        _GUARD_LINES.extend(sorted(_parameters(stmt.expr)))  # type: ignore[attr-defined]
        for item in stmt.items:  # type: ignore[attr-defined]
            item_guards = set(inner)
            for expr in item.expressions:
                item_guards |= _names(expr)
            _statement(item.stmt, item_guards, graph)
        _statement(stmt.defaultCase, inner, graph)  # type: ignore[attr-defined]
        del _GUARD_LINES[depth:]
    elif kind == StatementKind.ExpressionStatement:
        _assignments(stmt.expr, guards, graph)  # type: ignore[attr-defined]
    else:
        # Loops and the rest: every assignment inside depends on everything the statement reads.
        _assignments(stmt, guards | _names(stmt), graph)
        body = getattr(stmt, "body", None)
        if body is not None and hasattr(body, "kind"):
            # walked again for the conditions inside (their lines, their guards)
            _statement(body, guards | _names(stmt), graph)


def _instance(inst: object, graph: DriverGraph) -> None:
    body = inst.body  # type: ignore[attr-defined]
    for conn in inst.portConnections:  # type: ignore[attr-defined]
        port = conn.port
        internal = getattr(port, "internalSymbol", None)
        expr = conn.expression
        if internal is None or expr is None:
            continue
        inner_name = internal.hierarchicalPath
        # The connection's own line: a port wired to the wrong net or constant is the cause
        # the digest must name in a block built of instances.
        where = _where(expr)
        if port.direction == pyslang.ast.ArgumentDirection.In:
            graph.add(inner_name, _names(expr), where)
        elif expr.kind == ExpressionKind.Assignment:
            written, _ = _lvalue(expr.left)
            for target in written:
                graph.add(target, {inner_name}, where)
        else:
            for target in _names(expr):
                graph.add(target, {inner_name}, where)
    for member in body:
        kind = member.kind
        if kind == SymbolKind.ContinuousAssign:
            _assignments(member.assignment, set(), graph)
        elif kind == SymbolKind.ProceduralBlock:
            _statement(member.body, set(), graph)
        elif kind == SymbolKind.Instance:
            _instance(member, graph)
        elif kind in (SymbolKind.Net, SymbolKind.Variable):
            initializer = getattr(member, "initializer", None)
            if initializer is not None and kind == SymbolKind.Net:
                graph.add(member.hierarchicalPath, _names(initializer))
        elif kind == SymbolKind.GenerateBlock and not getattr(member, "isUninstantiated", False):
            _scope(member, graph)
        elif kind == SymbolKind.GenerateBlockArray:
            for entry in member.entries:
                _scope(entry, graph)


def _scope(scope: object, graph: DriverGraph) -> None:
    class Wrapper:
        body = scope
        portConnections: Sequence[object] = ()

    _instance(Wrapper(), graph)


def driver_graph(sources: Sequence[Path], top: str | None = None) -> DriverGraph:
    """Elaborate the sources and collect every driver edge of every instance."""
    options = CompilationOptions()
    if top:
        options.topModules = {top}
    compilation = Compilation(pyslang.Bag([options]))
    manager = pyslang.SourceManager()
    for path in sources:
        compilation.addSyntaxTree(SyntaxTree.fromFile(str(path), manager))
    graph = DriverGraph()
    _MANAGER[:] = [manager]
    for diag in compilation.getAllDiagnostics():
        if diag.isError():
            location = diag.location
            graph.errors.append(
                f"{Path(manager.getFileName(location)).name}:{manager.getLineNumber(location)}: "
                f"{pyslang.DiagnosticEngine(manager).formatMessage(diag)}"
            )
    try:
        for inst in compilation.getRoot().topInstances:
            for port in inst.body.portList:
                internal = getattr(port, "internalSymbol", None)
                direction = getattr(port, "direction", None)
                if internal is not None and direction is not None:
                    graph.ports[internal.hierarchicalPath] = direction.name.lower()
            _instance(inst, graph)
    finally:
        _MANAGER.clear()
        _GUARD_LINES.clear()
    return graph
