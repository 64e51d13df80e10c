"""pyslang over the sources: diagnostics with columns, the top modules, and what design files
may not contain (see one_text for the text rules; here: reaches into the testbench, and names
taken from it). The design is read as its preprocessed text, the bytes the compiler gets."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

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
from pyslang.parsing import PreprocessorOptions
from pyslang.syntax import SyntaxTree

from ..models import Category, Diagnostic, Severity
from ..workspace import Workspace
from .categories import HINTS, category_for_slang
from .design_rules import ALLOWED_IN_DESIGN, is_suite_name
from .includes import refuse_reads_outside
from .one_text import DesignText, preprocess

__all__ = ["ALLOWED_IN_DESIGN", "SlangReport", "analyze"]


@dataclass
class SlangReport:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    forbidden: list[Diagnostic] = field(default_factory=list)
    # slang's errors in the design text: a refusal whatever the simulator makes of the code
    # (a call slang rejects is never bound, so no check would see its arguments).
    design_errors: list[Diagnostic] = field(default_factory=list)
    tops: list[str] = field(default_factory=list)
    design_text: DesignText | None = None

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
    predefines: Mapping[str, str] | None = None,
    design_text: DesignText | None = None,
    data_files: Sequence[Path] = (),
) -> SlangReport:
    """Parse and elaborate with slang; never raises on bad code, only reports. The `design`
    files among `sources` are read as one preprocessed text (given, or made here with the
    simulator's `predefines`); the others, the testbench, as they are."""
    if design and design_text is None:
        design_text = preprocess(
            workspace,
            design,
            predefines=predefines or {},
            defines=defines,
            include_dirs=include_dirs,
            data_files=data_files,
        )
    design_set = {p.resolve() for p in design}
    bench = [p for p in sources if p.resolve() not in design_set]
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
    design_tree: SyntaxTree | None = None
    if design_text is not None:
        design_tree = SyntaxTree.fromText(design_text.text, manager, DESIGN_NAME, "", bag)
        compilation.addSyntaxTree(design_tree)
    design_buffers = (
        {design_tree.root.sourceRange.start.buffer.id} if design_tree is not None else set()
    )
    bench_trees = []
    for path in bench:
        tree = SyntaxTree.fromFile(str(path), manager, bag)
        bench_trees.append(tree)
        compilation.addSyntaxTree(tree)
    refuse_reads_outside(workspace, manager)
    places = _Places(workspace, manager, design_buffers)
    report = SlangReport(design_text=design_text)
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
    seen: set[tuple[str | None, int | None, int | None, str]] = set()
    for diag in diags:
        name = str(diag.code).removeprefix("DiagCode(").removesuffix(")")
        file, line, column = places.of(diag.location)
        key = (file, line, column, name)
        if key in seen:
            continue
        seen.add(key)
        category = category_for_slang(name)
        if category == Category.OTHER and not diag.isError():
            category = Category.LINT
        option = engine.getOptionName(diag.code)
        found = Diagnostic(
            severity=Severity.ERROR if diag.isError() else Severity.WARNING,
            category=category,
            code=option or name,
            file=file,
            line=line,
            column=column,
            message=engine.formatMessage(diag),
            hint=HINTS[category],
            source="slang",
        )
        report.diagnostics.append(found)
        if diag.isError() and places.in_design(diag.location):
            report.design_errors.append(found)
    report.tops = [inst.name for inst in compilation.getRoot().topInstances]
    if design_text is not None and design_tree is not None:
        report.forbidden += design_text.refused
        report.forbidden += _upward_references(places, compilation)
        used = _bench_packages(bench_trees)
        report.forbidden += _testbench_packages(places, design_tree, used)
        report.forbidden += _taken_names(places, design_tree, bench_trees, used)
        report.forbidden += _names_outside(places, design_tree)
        report.diagnostics = design_text.remap(report.diagnostics, [DESIGN_NAME])
        report.design_errors = design_text.remap(report.design_errors, [DESIGN_NAME])
        report.forbidden = design_text.remap(report.forbidden, [DESIGN_NAME])
    return report


DESIGN_NAME = "<design text>"
_DEFINITIONS = {
    "ModuleDeclaration": "module",
    "InterfaceDeclaration": "interface",
    "PackageDeclaration": "package",
    "ProgramDeclaration": "program",
    "UdpDeclaration": "primitive",
    "CheckerDeclaration": "checker",
    "ClassDeclaration": "class",
}


class _Places:
    """Where a location is, for diagnostics; the design's buffer is known by its identity."""

    def __init__(
        self, workspace: Workspace, manager: pyslang.SourceManager, design_buffers: set[int]
    ):
        self.workspace = workspace
        self.manager = manager
        self.design_buffers = design_buffers

    def in_design(self, location: object) -> bool:
        if location is None:
            return False
        return self.manager.getFullyExpandedLoc(location).buffer.id in self.design_buffers

    def of(self, location: object) -> tuple[str | None, int | None, int | None]:
        if not location:
            return None, None, None
        raw = self.manager.getFileName(location)
        if self.in_design(location):
            raw = DESIGN_NAME
        file = (raw if raw == DESIGN_NAME else self.workspace.relative(raw)) if raw else None
        line = self.manager.getLineNumber(location) or None
        column = self.manager.getColumnNumber(location) or None
        return file, line, column

    def forbidden(
        self,
        location: object,
        what: str,
        hint: str | None = None,
        code: str = "design-reach",
    ) -> Diagnostic:
        file, line, column = self.of(location)
        return Diagnostic(
            severity=Severity.ERROR,
            category=Category.FORBIDDEN_CONSTRUCT,
            code=code,
            file=file,
            line=line,
            column=column,
            message=f"{what} is not allowed in a design source",
            hint=hint or HINTS[Category.FORBIDDEN_CONSTRUCT],
            source="silicon-agent",
        )


def _definitions(tree: SyntaxTree) -> list[tuple[str, str, object]]:
    """(kind, name, location) of every definition a file declares."""
    found = []

    def visit(node: object) -> VisitAction:
        kind = getattr(getattr(node, "kind", None), "name", "")
        if kind in _DEFINITIONS:
            header = getattr(node, "header", None)
            name = getattr(header if header is not None else node, "name", None)
            if name is not None and name.valueText:
                found.append((_DEFINITIONS[kind], name.valueText, name.location))
        return VisitAction.Advance

    tree.root.visit(visit)
    return found


def _unit_subroutines(tree: SyntaxTree) -> list[tuple[str, str, object]]:
    """(kind, name, location) of the functions and tasks a file declares outside any
    definition (the compilation unit's, such as the harness's tb_verdict_tag)."""
    found = []
    for member in tree.root.members:
        kind = member.kind.name
        if kind in ("FunctionDeclaration", "TaskDeclaration"):
            name = getattr(member.prototype.name, "identifier", None)
            if name is not None and name.valueText:
                found.append(
                    (kind.removesuffix("Declaration").lower(), name.valueText, name.location)
                )
    return found


def _package_members(tree: SyntaxTree) -> list[tuple[str, str, object]]:
    """(kind, name, location) of every name a package of the file declares: a testbench that
    imports the package with `::*` finds such a name before one its own file declares."""
    found: list[tuple[str, str, object]] = []
    for member in tree.root.members:
        if member.kind.name == "PackageDeclaration":
            for item in member.members:
                if item.kind.name in ("FunctionDeclaration", "TaskDeclaration"):
                    # its name is a name node, which the walk reads as a use
                    name = getattr(item.prototype.name, "identifier", None)
                    if name is not None and name.valueText:
                        found.append(("package member", name.valueText, name.location))
                found += [
                    ("package member", token.valueText, token.location)
                    for token in _declaring_tokens(item)
                ]
    return found


def _bench_packages(bench_trees: Sequence[SyntaxTree]) -> set[str]:
    """The packages (and classes) the testbench names: imported or exported (`import p::*`,
    `import p::x`) or scoped (`p::W`, `p::t`), anywhere in its files."""
    used: set[str] = set()

    def visit(node: object) -> VisitAction:
        kind = getattr(getattr(node, "kind", None), "name", "")
        if kind == "PackageImportItem":
            used.add(node.package.valueText)  # type: ignore[attr-defined]
        elif kind == "ScopedName" and node.separator.valueText == "::":  # type: ignore[attr-defined]
            left = node.left  # type: ignore[attr-defined]
            if left.kind.name in ("IdentifierName", "IdentifierSelectName"):
                used.add(left.identifier.valueText)
        return VisitAction.Advance

    for tree in bench_trees:
        tree.root.visit(visit)
    return used


def _testbench_packages(
    places: _Places, design_tree: SyntaxTree, used: set[str]
) -> list[Diagnostic]:
    """A package the testbench uses is the testbench's: its constants size the vectors and
    the checks (a design's `LLR_W = 1` would narrow a compare to a bit it never changes), so a
    design that defines one, its own copy or not, is refused."""
    return [
        places.forbidden(
            location,
            f"the {kind} '{name}' (the testbench uses it, so it is the testbench's)",
            f"Use the suite's package: list its file among the testbench files, import it in "
            f"the design, and do not redefine '{name}' in a design source.",
            code="design-package",
        )
        for kind, name, location in _definitions(design_tree)
        if kind in ("package", "class") and name in used
    ]


def _taken_names(
    places: _Places,
    design_tree: SyntaxTree,
    bench_trees: Sequence[SyntaxTree],
    used: set[str],
) -> list[Diagnostic]:
    """A design definition named like a testbench one, or like one the server compiles beside
    it (the wave dump, the trace), would replace it on one simulator or the other (Verilator
    only warns), so the run could use the design's copy. So would a compilation-unit function
    or task named like the testbench's (the harness's verdict tag), and so would a member of a
    design package the testbench imports with `::*` (it is found before the file's own)."""
    bench_names = {name for tree in bench_trees for _, name, _ in _definitions(tree)}
    unit_names = {name for tree in bench_trees for _, name, _ in _unit_subroutines(tree)}
    bench_names |= unit_names
    shadowing = [
        (kind, name, location)
        for kind, name, location in _package_members(design_tree)
        if name in unit_names
    ]
    return [
        places.forbidden(
            location,
            f"the {kind} name '{name}' "
            + ("(the server's own)" if is_suite_name(name) else "(the testbench defines it)"),
            "Rename the design's definition: names the testbench and the server define are "
            "their own.",
            code="design-name",
        )
        for kind, name, location in [*_definitions(design_tree), *_unit_subroutines(design_tree)]
        if (name in bench_names or is_suite_name(name))
        # a package the testbench uses has its own refusal (_testbench_packages)
        and not (kind in ("package", "class") and name in used)
    ] + [
        places.forbidden(
            location,
            f"the {kind} name '{name}' (the testbench's own file declares it, and the "
            "testbench imports the package)",
            "Rename the package member: it would stand in for the testbench's own.",
            code="design-name",
        )
        for kind, name, location in shadowing
    ]


# Identifier tokens under these nodes are uses of a name, not declarations of one.
_NAME_USES = frozenset(
    {
        "IdentifierName",
        "IdentifierSelectName",
        "NamedPortConnection",
        "NamedParamAssignment",
        "NamedArgument",
        "HierarchyInstantiation",
    }
)


def _declaring_tokens(node: object) -> Iterator[Any]:
    """Every identifier token the syntax under `node` declares (an over-approximation: any
    identifier token that is not a use of a name)."""
    for index in range(len(node)):  # type: ignore[arg-type]
        child = node[index]  # type: ignore[index]
        if child is None:
            continue
        if isinstance(child, pyslang.parsing.Token):
            kind = getattr(getattr(node, "kind", None), "name", "")
            if child.kind.name == "Identifier" and kind not in _NAME_USES:
                yield child
        else:
            yield from _declaring_tokens(child)


def _declared(node: object, into: set[str]) -> None:
    """Every identifier the syntax under `node` declares."""
    into.update(token.valueText for token in _declaring_tokens(node))


def _names_outside(places: _Places, design_tree: SyntaxTree) -> list[Diagnostic]:
    """Reach checked on the text, whatever slang binds: the first part of every dotted name
    (`a.b`, `a[0].b`) in a design definition must be a name that definition declares, the
    name of a definition of the design, or one the design declares outside any definition;
    `$root.` is refused. A name found nowhere would be looked up upward, in the testbench."""
    members = list(design_tree.root.members)
    definitions = [m for m in members if m.kind.name in _DEFINITIONS]
    shared: set[str] = {name for _, name, _ in _definitions(design_tree)}
    for member in members:
        if member.kind.name not in _DEFINITIONS:
            _declared(member, shared)
    found: list[Diagnostic] = []
    for member in [*definitions, *(m for m in members if m.kind.name not in _DEFINITIONS)]:
        own: set[str] = set(shared)
        if member.kind.name in _DEFINITIONS:
            _declared(member, own)

        def visit(node: object, own: set[str] = own) -> VisitAction:
            if getattr(getattr(node, "kind", None), "name", "") != "ScopedName":
                return VisitAction.Advance
            if node.separator.valueText != ".":  # type: ignore[attr-defined]
                return VisitAction.Advance
            left = node.left  # type: ignore[attr-defined]
            kind = left.kind.name
            text = str(node).strip()[:80]
            if kind in ("RootScope", "UnitScope"):
                found.append(
                    places.forbidden(
                        left.sourceRange.start, f"the absolute name '{text}'", code="design-reach"
                    )
                )
            elif kind in ("IdentifierName", "IdentifierSelectName"):
                name = left.identifier.valueText
                if name and name not in own:
                    found.append(
                        places.forbidden(
                            left.sourceRange.start,
                            f"the hierarchical name '{text}' ('{name}' is declared nowhere in "
                            "the design, so it would be looked up in the testbench)",
                            code="design-reach",
                        )
                    )
            return VisitAction.Advance

        member.visit(visit)
    return found


def _upward_references(places: _Places, compilation: Compilation) -> list[Diagnostic]:
    """A hierarchical name, task call, disable or defparam written in a design file that lands
    outside the design's own files (`tb.errors = 0`, `tb.report()`, `disable tb.check`) could
    rewrite or cut short the testbench's checking."""
    found: list[Diagnostic] = []

    def defined_in_design(symbol: object) -> bool:
        return places.in_design(getattr(symbol, "location", None))

    def report(location: object, what: str) -> None:
        if places.in_design(location):
            found.append(places.forbidden(location, what))

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
