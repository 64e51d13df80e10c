"""pyslang over the sources: diagnostics with columns, the top modules, and what design files
may not contain (output system tasks, reaches into the testbench)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pyslang
from pyslang import Bag, DiagnosticEngine
from pyslang.ast import Compilation, CompilationOptions, HierarchicalValueExpression, VisitAction
from pyslang.parsing import PreprocessorOptions, Token, TokenKind
from pyslang.syntax import SyntaxTree

from ..models import Category, Diagnostic, Severity
from ..workspace import Workspace
from .categories import HINTS, category_for_slang

# System tasks that print, touch files, end or steer the simulation: a design has no business
# calling them, and with them it could forge the testbench's verdict.
FORBIDDEN_IN_DESIGN = frozenset(
    {
        "$display", "$displayb", "$displayh", "$displayo",
        "$write", "$writeb", "$writeh", "$writeo",
        "$strobe", "$strobeb", "$strobeh", "$strobeo",
        "$monitor", "$monitorb", "$monitorh", "$monitoro", "$monitoron", "$monitoroff",
        "$fopen", "$fclose", "$fdisplay", "$fwrite", "$fstrobe", "$fmonitor", "$fflush",
        "$fputc", "$fgets", "$fscanf", "$fread",
        "$finish", "$stop", "$exit", "$system",
        "$dumpfile", "$dumpvars", "$dumpon", "$dumpoff", "$dumpall", "$dumpflush",
        "$dumplimit", "$dumpports",
        "$writememh", "$writememb", "$info", "$warning",
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
    pre.additionalIncludePaths = [str(p) for p in include_dirs]
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
        report.forbidden += _upward_references(workspace, manager, compilation, design_set)
    return report


def _forbidden_tasks(
    workspace: Workspace, manager: pyslang.SourceManager, tree: SyntaxTree
) -> list[Diagnostic]:
    found: list[Diagnostic] = []

    def visit(node: object) -> VisitAction:
        if isinstance(node, Token):
            if node.kind == TokenKind.SystemIdentifier and node.valueText in FORBIDDEN_IN_DESIGN:
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
    """A hierarchical name written in a design file that lands outside the design's own
    modules (e.g. `tb.errors = 0`) could rewrite the testbench's bookkeeping."""
    design_names = {str(p) for p in design_files}
    found: list[Diagnostic] = []

    def defined_in_design(symbol: object) -> bool:
        location = getattr(symbol, "location", None)
        if location is None:
            return False
        return str(Path(manager.getFileName(location)).resolve()) in design_names

    def visit(node: object) -> VisitAction:
        if isinstance(node, HierarchicalValueExpression):
            start = node.sourceRange.start
            written_in = str(Path(manager.getFileName(start)).resolve())
            if written_in in design_names and not defined_in_design(node.symbol):
                found.append(
                    _forbidden(
                        workspace,
                        manager,
                        start,
                        f"hierarchical reference "
                        f"'{node.symbol.hierarchicalPath}' outside the design",
                    )
                )
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
