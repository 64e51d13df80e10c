"""One text for all judges: the design files preprocessed once, by slang, with the macros the
chosen simulator predefines; the checks and the compiler then read the same bytes.

The simulators never see a design's macros, includes, conditionals or comments: they get the
token stream slang produced, so nothing a design writes can be read one way by the checks and
another way by the compiler (simulator-only `ifdef branches, macros that define macros, an
include found in two places, comments that continue a `define). Every emitted token keeps the
user's file, line and column it came from (a macro's tokens: where the macro was used), so a
diagnostic on the preprocessed text points at the line the user wrote. File attribution comes
from the buffer a token was read from, never from names the text could claim (`line is
refused).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import pyslang
from pyslang import Bag, DiagnosticEngine
from pyslang.ast import VisitAction
from pyslang.parsing import PreprocessorOptions, Token, TokenKind, TriviaKind
from pyslang.syntax import SyntaxKind, SyntaxTree

from ..models import Category, Diagnostic, Severity
from ..workspace import Workspace
from .categories import HINTS, category_for_slang
from .design_rules import refused_calls
from .includes import refuse_reads_outside

# Macros slang defines on its own; whatever the simulator does not define is undefined, so the
# design is preprocessed with exactly the simulator's view.
SLANG_PREDEFINES = (
    "__slang__", "__slang_major__", "__slang_minor__", "SV_COV_START", "SV_COV_STOP",
    "SV_COV_RESET", "SV_COV_CHECK", "SV_COV_MODULE", "SV_COV_HIER", "SV_COV_ASSERTION",
    "SV_COV_FSM_STATE", "SV_COV_STATEMENT", "SV_COV_TOGGLE", "SV_COV_OVERFLOW", "SV_COV_ERROR",
    "SV_COV_NOCOV", "SV_COV_OK", "SV_COV_PARTIAL",
)  # fmt: skip
# Directives that reach the compiler as they are; those slang consumes (define, ifdef,
# include, macro uses) are gone from the text; any other directive is refused.
PASSED_DIRECTIVES = frozenset(
    {
        "TimeScaleDirective", "DefaultNetTypeDirective", "CellDefineDirective",
        "EndCellDefineDirective", "UnconnectedDriveDirective", "NoUnconnectedDriveDirective",
        "ResetAllDirective", "BeginKeywordsDirective", "EndKeywordsDirective",
    }
)  # fmt: skip
CONSUMED_DIRECTIVES = frozenset(
    {
        "DefineDirective", "UndefDirective", "UndefineAllDirective", "IfDefDirective",
        "IfNDefDirective", "ElsIfDirective", "ElseDirective", "EndIfDirective",
        "IncludeDirective", "MacroUsage",
    }
)  # fmt: skip
# Comments never reach the compiler, so a metacomment is inert; those that would change
# the model (public access, C++ types, inlining, forcing) are refused so that a design learns
# they do nothing. Lint, coverage and trace switches are kept: they change only reports
# (Verilator's own `coverage_block_off expands to one).
_METACOMMENT = re.compile(
    r"^(?://|/\*)\s*verilator\s+(clock_enable|clocker|no_clocker|forceable|hier_block"
    r"|inline_module|no_inline_module|no_inline_task|isolate_assignments|public\w*|sc_\w+"
    r"|sformat|split_var|tag|timing_on|timing_off|parallel_case|full_case)\b"
)
_KEPT_METACOMMENT = re.compile(
    r"^(?://|/\*)\s*verilator\s+(lint_off|lint_on|lint_save|lint_restore|coverage_block_off"
    r"|coverage_off|coverage_on|tracing_off|tracing_on)(?:\s+([A-Z0-9_]+))?\s*(?:\*/)?\s*$"
)
_WORD = re.compile(r"[A-Za-z0-9_$'`\\]")
# Statements that override a variable from inside a process: a design's force on its own
# input port rewrites the testbench's variable where a simulator collapses the port onto it,
# so the stimulus the testbench checks against is no longer its own. Module-level continuous
# assign is a different construct (a ContinuousAssign) and stays legal.
_PROCEDURAL_OVERRIDES = {
    SyntaxKind.ProceduralForceStatement: "a procedural force",
    SyntaxKind.ProceduralReleaseStatement: "a procedural release",
    SyntaxKind.ProceduralDeassignStatement: "a procedural deassign",
    SyntaxKind.ProceduralAssignStatement: "a procedural continuous assign",
}
_OVERRIDE_HINT = (
    "A design drives its outputs; force/release belong to testbenches. Drive the signal with "
    "a module-level assign or an always block instead."
)
_HINT = (
    "Design text is preprocessed once and checked as the simulator will compile it: write "
    "plain SystemVerilog without this construct."
)


class Origin(NamedTuple):
    file: str
    line: int
    column: int


@dataclass
class DesignText:
    """The preprocessed design, where each of its tokens came from, and what was refused."""

    text: str
    name: str = "design.sv"
    refused: list[Diagnostic] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)
    system_calls: list[tuple[str, Origin, str | None]] = field(default_factory=list)
    _columns: dict[int, list[int]] = field(default_factory=dict)
    _origins: dict[int, list[Origin]] = field(default_factory=dict)

    def add(self, line: int, column: int, origin: Origin) -> None:
        self._columns.setdefault(line, []).append(column)
        self._origins.setdefault(line, []).append(origin)

    def origin(self, line: int | None, column: int | None) -> Origin | None:
        """The user's place for a place in the text: the token at or before it."""
        if line is None:
            return None
        for probe in range(line, 0, -1):
            columns = self._columns.get(probe)
            if not columns:
                continue
            if probe != line or column is None:
                return self._origins[probe][0 if probe == line else -1]
            index = max(bisect.bisect_right(columns, column) - 1, 0)
            return self._origins[probe][index]
        return None

    def remap(self, diagnostics: Sequence[Diagnostic], names: Sequence[str]) -> list[Diagnostic]:
        """Diagnostics on the text (named any of `names`) moved to the user's files."""
        moved = []
        for diag in diagnostics:
            if diag.file in names:
                origin = self.origin(diag.line, diag.column)
                if origin is not None:
                    diag = diag.model_copy(
                        update={
                            "file": origin.file,
                            "line": origin.line,
                            # iverilog gives no column: a guessed one would mislead.
                            "column": origin.column if diag.column is not None else None,
                        }
                    )
            moved.append(diag)
        return moved


class _Writer:
    """Builds the text token by token and records each token's origin."""

    def __init__(self, result: DesignText):
        self.result = result
        self.parts: list[str] = []
        self.line = 1
        self.column = 1
        self.last = ""

    def put(self, text: str) -> None:
        if not text:
            return
        self.parts.append(text)
        newlines = text.count("\n")
        if newlines:
            self.line += newlines
            self.column = len(text) - text.rfind("\n")
        else:
            self.column += len(text)
        self.last = text[-1]

    def token(self, text: str, origin: Origin, glued: bool) -> None:
        # Tokens that were not next to each other in one file get a space when the
        # compiler could otherwise read them as one token ("+" "+" is not "++").
        if not glued and self.last and not self.last.isspace():
            same_class = bool(_WORD.match(self.last)) == bool(_WORD.match(text[0]))
            if same_class:
                self.put(" ")
        self.result.add(self.line, self.column, origin)
        self.put(text)


class _Places:
    """Raw file, line and column of a location, ignoring any `line directive."""

    def __init__(self, workspace: Workspace, manager: pyslang.SourceManager):
        self.workspace = workspace
        self.manager = manager
        self._starts: dict[int, tuple[str, list[int]]] = {}

    def of(self, location: pyslang.SourceLocation) -> Origin | None:
        if self.manager.isMacroLoc(location):
            location = self.manager.getFullyExpandedLoc(location)
        if not self.manager.isFileLoc(location):
            return None
        buffer = location.buffer
        entry = self._starts.get(buffer.id)
        if entry is None:
            path = str(self.manager.getFullPath(buffer))
            if not path or not Path(path).is_absolute():
                return None
            text = self.manager.getSourceText(buffer)
            starts = [0] + [m.end() for m in re.finditer("\n", text)]
            entry = (self.workspace.relative(path), starts)
            self._starts[buffer.id] = entry
        name, starts = entry
        line = bisect.bisect_right(starts, location.offset)
        return Origin(name, line, location.offset - starts[line - 1] + 1)


def _refusal(origin: Origin | None, what: str, hint: str = _HINT) -> Diagnostic:
    return Diagnostic(
        severity=Severity.ERROR,
        category=Category.FORBIDDEN_CONSTRUCT,
        code="design-text",
        file=origin.file if origin else None,
        line=origin.line if origin else None,
        column=origin.column if origin else None,
        message=f"{what} is not allowed in a design source",
        hint=hint,
        source="silicon-agent",
    )


def _directive_text(syntax: object) -> str:
    words: list[str] = []

    def visit(node: object) -> VisitAction:
        if isinstance(node, Token) and node.rawText:
            words.append(node.rawText)
        return VisitAction.Advance

    syntax.visit(visit)  # type: ignore[attr-defined]
    return " ".join(words)


def preprocess(
    workspace: Workspace,
    design: Sequence[Path],
    *,
    predefines: Mapping[str, str],
    defines: Mapping[str, str] | None = None,
    include_dirs: Sequence[Path] = (),
    data_files: Sequence[Path] = (),
) -> DesignText:
    """The design files, in order, as one compilation unit, preprocessed as the simulator
    whose `predefines` are given would; never raises on bad code, only reports."""
    pre = PreprocessorOptions()
    macros = {**predefines, **(defines or {})}
    pre.predefines = [f"{k}={v}" if v != "" else k for k, v in macros.items()]
    pre.undefines = [name for name in SLANG_PREDEFINES if name not in macros]
    pre.additionalIncludePaths = [str(workspace.root), *(str(p) for p in include_dirs)]
    manager = pyslang.SourceManager()
    tree = SyntaxTree.fromFiles([str(p) for p in design], manager, Bag([pre]))
    refuse_reads_outside(workspace, manager, private=True, listed=design)
    result = DesignText(text="")
    places = _Places(workspace, manager)
    engine = DiagnosticEngine(manager)
    for diag in tree.diagnostics:
        if not diag.isError():
            continue
        origin = places.of(diag.location) if diag.location else None
        code = str(diag.code).removeprefix("DiagCode(").removesuffix(")")
        category = category_for_slang(code)
        category = Category.SYNTAX_ERROR if category == Category.OTHER else category
        result.errors.append(
            Diagnostic(
                severity=Severity.ERROR,
                category=category,
                code=code,
                file=origin.file if origin else None,
                line=origin.line if origin else None,
                column=origin.column if origin else None,
                message=engine.formatMessage(diag),
                hint=HINTS[category],
                source="slang",
            )
        )
    writer = _Writer(result)
    tokens: list[tuple[Token, Origin]] = []
    previous: Token | None = None
    passed: list[str] = []

    def trivia(token: Token, origin: Origin | None) -> bool:
        """Emits what stands before a token; True when nothing separated it."""
        separated = False
        for item in token.trivia:
            kind = item.kind
            if kind == TriviaKind.Whitespace:
                writer.put(" ")
                separated = True
            elif kind == TriviaKind.EndOfLine:
                writer.put("\n")
                separated = True
            elif kind in (TriviaKind.LineComment, TriviaKind.BlockComment):
                separated = True
                raw = item.getRawText()
                lint = _KEPT_METACOMMENT.match(raw)
                if lint:
                    writer.put(f" /* verilator {' '.join(w for w in lint.groups() if w)} */ ")
                elif _METACOMMENT.match(raw):
                    where = places.of(_comment_location(manager, token, raw)) or origin
                    result.refused.append(
                        _refusal(
                            where,
                            f"tool metacomment '{raw[:60]}'",
                            "Tool directives in comments could make a simulator compile other "
                            "code than the checks read; remove the metacomment.",
                        )
                    )
                else:
                    writer.put(" ")
            elif kind == TriviaKind.Directive:
                separated = True
                syntax = item.syntax()
                name = syntax.kind.name
                if name in PASSED_DIRECTIVES:
                    writer.put("\n" + _directive_text(syntax) + "\n")
                    passed.append(name)
                elif name in CONSUMED_DIRECTIVES:
                    if name == "MacroUsage":
                        _check_macro(syntax, origin)
                    writer.put(" ")
                else:
                    where = places.of(syntax.sourceRange.start) or origin
                    word = _directive_text(syntax).split(" ", 1)[0]
                    hint = (
                        "`line would let design text claim another file (a testbench); remove it."
                        if name == "LineDirective"
                        else "Protected envelopes and pragmas are not accepted in design text."
                        if name == "PragmaDirective"
                        else _HINT
                    )
                    result.refused.append(_refusal(where, f"the directive {word}", hint))
            elif kind == TriviaKind.DisabledText:
                continue
            elif kind == TriviaKind.SkippedTokens:
                # Text slang could not parse is an error already; its rules still apply.
                separated = True
                for skipped in item.getSkippedTokens():
                    visit(skipped)
            else:
                separated = True
                item.syntax().visit(visit)
        return not separated

    def _check_macro(syntax: object, origin: Origin | None) -> None:
        directive = getattr(syntax, "directive", None)
        word = directive.rawText if directive is not None else ""
        if word.startswith(("`systemc_", "`verilog", "`verilator")):
            where = places.of(directive.location) if directive is not None else origin
            result.refused.append(
                _refusal(
                    where,
                    f"Verilator's C++ passthrough {word}",
                    "C++ or SystemC text in a design runs outside the simulation's rules; "
                    "describe the behaviour in SystemVerilog.",
                )
            )

    def visit(node: object) -> VisitAction:
        nonlocal previous
        if not isinstance(node, Token):
            what = _PROCEDURAL_OVERRIDES.get(getattr(node, "kind", None))  # type: ignore[arg-type]
            if what is not None:
                # At the overridden name: that is what the design reached for.
                expr = getattr(node, "expr", None) or getattr(node, "variable", None)
                target = getattr(expr, "left", expr) or node
                where = places.of(target.sourceRange.start) or places.of(
                    node.sourceRange.start  # type: ignore[attr-defined]
                )
                name = " ".join(str(target).split())[:60]
                result.refused.append(_refusal(where, f"{what} of '{name}'", _OVERRIDE_HINT))
            return VisitAction.Advance
        origin = places.of(node.location)
        adjacent = trivia(node, origin)
        if node.kind == TokenKind.EndOfFile or node.isMissing or not node.rawText:
            return VisitAction.Advance
        if origin is None:
            result.refused.append(
                _refusal(
                    None,
                    f"text '{node.rawText[:40]}' that cannot be traced to a design file",
                )
            )
            return VisitAction.Advance
        glued = adjacent and previous is not None and _adjacent(manager, previous, node)
        writer.token(node.rawText, origin, glued)
        tokens.append((node, origin))
        previous = node
        return VisitAction.Advance

    tree.root.visit(visit)
    writer.put("\n" + _closing(passed))
    result.text = "".join(writer.parts)
    result.refused += _token_rules(tokens, result)
    result.refused += refused_calls(workspace, result.system_calls, data_files)
    return result


def _closing(passed: Sequence[str]) -> str:
    """Directives that undo what the design left open, so the testbench after it in the same
    compilation unit is read as it would be alone (its timescale may still be inherited)."""
    lines = ["`end_keywords"] * max(
        passed.count("BeginKeywordsDirective") - passed.count("EndKeywordsDirective"), 0
    )
    if "UnconnectedDriveDirective" in passed:
        lines.append("`nounconnected_drive")
    if "CellDefineDirective" in passed:
        lines.append("`endcelldefine")
    return "".join(line + "\n" for line in lines)


def _comment_location(
    manager: pyslang.SourceManager, token: Token, raw: str
) -> pyslang.SourceLocation:
    """Where a comment before a token starts (trivia carry no location of their own)."""
    location = manager.getFullyOriginalLoc(token.location)
    start = manager.getSourceText(location.buffer).rfind(raw, 0, location.offset)
    return pyslang.SourceLocation(location.buffer, start) if start >= 0 else token.location


def _adjacent(manager: pyslang.SourceManager, first: Token, second: Token) -> bool:
    """Whether two tokens stood next to each other in the text they were read from (a file or
    a macro's body): there they were already read as two tokens."""
    left = manager.getFullyOriginalLoc(first.location)
    right = manager.getFullyOriginalLoc(second.location)
    return left.buffer == right.buffer and left.offset + len(first.rawText) == right.offset


def _token_rules(tokens: list[tuple[Token, Origin]], result: DesignText) -> list[Diagnostic]:
    """Constructs refused wherever they appear in the text, elaborated or not."""
    found = []
    keywords = {
        TokenKind.BindKeyword: (
            "bind",
            "A design cannot bind itself into other modules; instantiate its parts.",
        ),
        TokenKind.RefKeyword: (
            "'ref' (pass by reference)",
            "A design takes values on input ports and drives its outputs; a ref port or "
            "argument would let it write its caller's variables. Use input/output.",
        ),
        TokenKind.ConfigKeyword: ("a config declaration", _HINT),
        TokenKind.LibraryKeyword: ("a library declaration", _HINT),
    }
    watched = {TokenKind.SystemIdentifier, TokenKind.ImportKeyword, TokenKind.ExportKeyword}
    for index, (token, origin) in enumerate(tokens):
        kind = token.kind
        following = [t for t, _ in tokens[index + 1 : index + 4]] if kind in watched else []
        if kind == TokenKind.SystemIdentifier:
            literal = None
            if (
                len(following) == 3
                and following[0].kind == TokenKind.OpenParenthesis
                and following[1].kind == TokenKind.StringLiteral
                and following[2].kind in (TokenKind.Comma, TokenKind.CloseParenthesis)
            ):
                # As written, not as slang reads its escapes: a simulator may read them
                # otherwise, so the rules judge the characters the user wrote.
                literal = following[1].rawText[1:-1]
            result.system_calls.append((token.valueText, origin, literal))
        elif kind == TokenKind.Identifier and token.rawText.startswith("\\"):
            found.append(
                _refusal(
                    origin,
                    f"the escaped identifier '{token.rawText}'",
                    "Simulators read escaped names differently (one reads '\\$display ' as a "
                    "system task); use a plain identifier.",
                )
            )
        elif kind in keywords:
            what, hint = keywords[kind]
            found.append(_refusal(origin, what, hint))
        elif (
            kind in (TokenKind.ImportKeyword, TokenKind.ExportKeyword)
            and following
            and following[0].kind == TokenKind.StringLiteral
        ):
            found.append(
                _refusal(
                    tokens[index + 1][1],
                    f"DPI {token.rawText} {following[0].rawText}",
                    "DPI calls run C code outside the simulation's rules; describe the "
                    "behaviour in SystemVerilog.",
                )
            )
    return found
