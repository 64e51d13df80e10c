"""pyslang over the sources: diagnostics with columns, the top modules, and what design files
may not contain (output system tasks, reaches into the testbench)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pyslang
from pyslang import Bag, DiagnosticEngine
from pyslang.ast import (
    CallExpression,
    Compilation,
    CompilationOptions,
    DefParamSymbol,
    DisableStatement,
    HierarchicalValueExpression,
    VisitAction,
)
from pyslang.parsing import PreprocessorOptions, Token, TokenKind
from pyslang.syntax import SyntaxTree

from ..models import Category, Diagnostic, Severity
from ..workspace import InvalidInput, Workspace
from .categories import HINTS, category_for_slang
from .includes import defined_macros, include_closure, used_macros

# The system functions a design may call: pure computation, queries, plusargs, ROM loading,
# and the severity tasks that can only fail a run. Anything else (printing, file I/O, ending
# or steering the simulation, Verilator's $c) could forge the testbench's verdict, so design
# files are held to this allow list rather than to a list of known-bad names.
ALLOWED_IN_DESIGN = frozenset(
    {
        "$bits", "$clog2", "$signed", "$unsigned", "$size", "$left", "$right", "$low", "$high",
        "$increment", "$dimensions", "$unpacked_dimensions", "$countones", "$countbits",
        "$onehot", "$onehot0", "$isunknown", "$past", "$rose", "$fell", "$stable", "$changed",
        "$sampled", "$time", "$stime", "$realtime", "$random", "$urandom", "$urandom_range",
        "$itor", "$rtoi", "$bitstoreal", "$realtobits", "$shortrealtobits", "$bitstoshortreal",
        "$ln", "$log10", "$exp", "$sqrt", "$pow", "$floor", "$ceil", "$sin", "$cos", "$tan",
        "$asin", "$acos", "$atan", "$atan2", "$hypot", "$sinh", "$cosh", "$tanh", "$asinh",
        "$acosh", "$atanh", "$typename", "$cast", "$sformatf", "$sformat", "$error", "$fatal",
        "$readmemh", "$readmemb", "$test$plusargs", "$value$plusargs", "$unit", "$root",
    }
)  # fmt: skip


@dataclass
class SlangReport:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    forbidden: list[Diagnostic] = field(default_factory=list)
    tops: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == Severity.ERROR]


@cache
def slang_version() -> str:
    try:
        from importlib.metadata import version

        return version("pyslang")
    except Exception:
        return "unknown"


def analyze(
    workspace: Workspace,
    sources: Sequence[Path],
    *,
    design: Sequence[Path] = (),
    defines: Mapping[str, str] | None = None,
    include_dirs: Sequence[Path] = (),
    top: str | None = None,
) -> SlangReport:
    """Parse and elaborate with slang; never raises on bad code, only reports."""
    pre = PreprocessorOptions()
    pre.predefines = [f"{k}={v}" if v != "" else k for k, v in (defines or {}).items()]
    # The compilers run from the workspace root, so an include resolves from there too.
    pre.additionalIncludePaths = [str(workspace.root), *(str(p) for p in include_dirs)]
    comp_opts = CompilationOptions()
    if top:
        comp_opts.topModules = {top}
    bag = Bag([pre, comp_opts])
    manager = pyslang.SourceManager()
    compilation = Compilation(bag)
    trees: dict[Path, SyntaxTree] = {}
    for path in sources:
        tree = SyntaxTree.fromFile(str(path), manager, bag)
        trees[path] = tree
        compilation.addSyntaxTree(tree)
    outside = [
        path
        for buffer in manager.getAllBuffers()
        if (path := Path(manager.getFullPath(buffer)))
        and path.is_absolute()
        and workspace.root not in path.resolve().parents
    ]
    if outside:
        # Nothing slang read outside the workspace may reach the caller, not even quoted.
        raise InvalidInput(
            f"sources read {len(outside)} file(s) outside the workspace", argument="include"
        )
    report = SlangReport()
    engine = DiagnosticEngine(manager)
    diags = list(compilation.getAllDiagnostics())
    try:
        from pyslang.analysis import AnalysisManager

        compilation.freeze()
        analysis = AnalysisManager()
        analysis.analyze(compilation)
        diags += list(analysis.getDiagnostics())
    except Exception:
        pass
    seen: set[tuple[str, int, int, str]] = set()
    for diag in diags:
        location = diag.location
        name = str(diag.code).removeprefix("DiagCode(").removesuffix(")")
        raw_file = manager.getFileName(location) if location else ""
        line = manager.getLineNumber(location) if location else 0
        column = manager.getColumnNumber(location) if location else 0
        message = engine.formatMessage(diag)
        key = (raw_file, line, column, name)
        if key in seen:
            continue
        seen.add(key)
        category = category_for_slang(name)
        if category == Category.OTHER and not diag.isError():
            category = Category.LINT
        option = engine.getOptionName(diag.code)
        report.diagnostics.append(
            Diagnostic(
                severity=Severity.ERROR if diag.isError() else Severity.WARNING,
                category=category,
                code=option or name,
                file=workspace.relative(raw_file) if raw_file else None,
                line=line or None,
                column=column or None,
                message=message,
                hint=HINTS[category],
                source="slang",
            )
        )
    report.tops = [inst.name for inst in compilation.getRoot().topInstances]
    design_set = {p.resolve() for p in design}
    for path, tree in trees.items():
        if path.resolve() in design_set:
            report.forbidden += _forbidden_tasks(workspace, manager, tree)
    if design_set:
        bench = [p for p in sources if p.resolve() not in design_set]
        design_side = set(design_set) | {
            p.resolve() for p in include_closure(workspace, list(design_set), include_dirs)
        }
        bench_side = {p.resolve() for p in bench} | {
            p.resolve() for p in include_closure(workspace, bench, include_dirs)
        }
        report.forbidden += _upward_references(
            workspace, manager, compilation, design_side - bench_side
        )
        report.forbidden += _macro_leaks(workspace, design_side - bench_side, bench_side)
    return report


def _macro_leaks(
    workspace: Workspace, design_files: set[Path], bench_files: set[Path]
) -> list[Diagnostic]:
    """Design and testbench share one compilation unit: a design `define of a name the
    testbench tests or uses (its `ifndef CYCLES default, say) would rewrite the testbench."""
    used = used_macros(bench_files)
    found = []
    for path in sorted(design_files):
        for name, line, column in defined_macros(path):
            if name.startswith("`") or name in used:
                what = name if name.startswith("`") else f"`define/`undef of {name}"
                found.append(
                    Diagnostic(
                        severity=Severity.ERROR,
                        category=Category.FORBIDDEN_CONSTRUCT,
                        code="design-macro",
                        file=workspace.relative(path),
                        line=line,
                        column=column,
                        message=f"{what} in a design file would change the testbench's macros",
                        hint="Rename the design's macro (or use a parameter); testbench macros "
                        "are the testbench's own.",
                        source="silicon-agent",
                    )
                )
    return found


def _forbidden_tasks(
    workspace: Workspace, manager: pyslang.SourceManager, tree: SyntaxTree
) -> list[Diagnostic]:
    found: list[Diagnostic] = []

    def visit(node: object) -> VisitAction:
        if isinstance(node, Token):
            if node.kind == TokenKind.SystemIdentifier and node.valueText not in ALLOWED_IN_DESIGN:
                found.append(_forbidden(workspace, manager, node.location, node.valueText))
            elif node.kind == TokenKind.StringLiteral and node.valueText.startswith("DPI"):
                found.append(_forbidden(workspace, manager, node.location, "DPI import"))
        return VisitAction.Advance

    tree.root.visit(visit)
    return found


def _upward_references(
    workspace: Workspace,
    manager: pyslang.SourceManager,
    compilation: Compilation,
    design_files: set[Path],
) -> list[Diagnostic]:
    """A hierarchical name, task call, disable or defparam written in a design file that lands
    outside the design's own files (`tb.errors = 0`, `tb.report()`, `disable tb.check`) could
    rewrite or cut short the testbench's checking."""
    design_names = {str(p) for p in design_files}
    found: list[Diagnostic] = []

    def defined_in_design(symbol: object) -> bool:
        location = getattr(symbol, "location", None)
        if location is None:
            return False
        return str(Path(manager.getFileName(location)).resolve()) in design_names

    def report(location: object, what: str) -> None:
        written_in = str(Path(manager.getFileName(location)).resolve())
        if written_in in design_names:
            found.append(_forbidden(workspace, manager, location, what))

    def visit(node: object) -> VisitAction:
        if isinstance(node, HierarchicalValueExpression):
            if not defined_in_design(node.symbol):
                report(
                    node.sourceRange.start,
                    f"hierarchical reference '{node.symbol.hierarchicalPath}' outside the design",
                )
        elif isinstance(node, CallExpression) and not node.isSystemCall:
            target = node.subroutine
            if target is not None and not defined_in_design(target):
                report(node.sourceRange.start, f"call of '{target.name}' outside the design")
        elif isinstance(node, DisableStatement):
            target = getattr(node.target, "symbol", None)
            if target is not None and not defined_in_design(target):
                report(node.sourceRange.start, f"disable of '{target.name}' outside the design")
        elif isinstance(node, DefParamSymbol):
            target = node.target
            if target is not None and not defined_in_design(target):
                report(node.location, f"defparam of '{target.name}' outside the design")
        return VisitAction.Advance

    compilation.getRoot().visit(visit)
    return found


def _forbidden(
    workspace: Workspace, manager: pyslang.SourceManager, location: object, what: str
) -> Diagnostic:
    raw = manager.getFileName(location)
    return Diagnostic(
        severity=Severity.ERROR,
        category=Category.FORBIDDEN_CONSTRUCT,
        code="design-output",
        file=workspace.relative(raw),
        line=manager.getLineNumber(location),
        column=manager.getColumnNumber(location),
        message=f"{what} is not allowed in a design source (only testbenches report)",
        hint=HINTS[Category.FORBIDDEN_CONSTRUCT],
        source="silicon-agent",
    )
