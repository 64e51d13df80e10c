"""One table from each tool's own codes and messages to the shared categories, with hints."""

from __future__ import annotations

import re

from ..models import Category

# slang diagnostic codes (DiagCode names) by category.
SLANG_CODES: dict[Category, frozenset[str]] = {
    Category.UNDECLARED_IDENTIFIER: frozenset(
        {"UndeclaredIdentifier", "UndeclaredButFoundPackage", "UnknownMember", "UnknownClassMember"}
    ),
    Category.MISSING_MODULE: frozenset(
        {"UnknownModule", "UnknownInterface", "UnknownPackage", "CouldNotOpenIncludeFile"}
    ),
    Category.PORT_MISMATCH: frozenset(
        {
            "PortDoesNotExist",
            "TooManyPortConnections",
            "DuplicatePortConnection",
            "MixingOrderedAndNamedPorts",
            "UnconnectedNamedPort",
            "UnconnectedUnnamedPort",
            "ImplicitNamedPortNotFound",
            "PortConnDimensionsMismatch",
            "PortConnArrayMismatch",
            "UnconnectedOutputPort",
            "UnconnectedInputPort",
        }
    ),
    Category.WIDTH_MISMATCH: frozenset(
        {
            "WidthTruncate",
            "WidthExpand",
            "PortWidthTruncate",
            "PortWidthExpand",
            "ArithOpMismatch",
            "ComparisonMismatch",
            "ConstantConversion",
        }
    ),
    Category.MULTIPLE_DRIVERS: frozenset(
        {"MultipleAlwaysAssigns", "MultipleContAssigns", "MixedVarAssigns", "MultipleUDNTDrivers"}
    ),
    Category.LATCH_INFERRED: frozenset({"InferredLatch"}),
    Category.UNSUPPORTED_CONSTRUCT: frozenset({"NotYetSupported"}),
}

# Verilator warning/error codes (the CODE of %Warning-CODE / %Error-CODE).
VERILATOR_CODES: dict[Category, frozenset[str]] = {
    Category.WIDTH_MISMATCH: frozenset(
        {"WIDTH", "WIDTHTRUNC", "WIDTHEXPAND", "WIDTHXZEXPAND", "WIDTHCONCAT"}
    ),
    Category.LATCH_INFERRED: frozenset({"LATCH", "NOLATCH"}),
    Category.MULTIPLE_DRIVERS: frozenset({"MULTIDRIVEN"}),
    Category.PORT_MISMATCH: frozenset({"PINMISSING", "PINNOTFOUND", "PINCONNECTEMPTY"}),
    Category.MISSING_MODULE: frozenset({"MODMISSING"}),
    Category.UNSUPPORTED_CONSTRUCT: frozenset({"UNSUPPORTED"}),
}

# Message patterns where a tool gives no code (iverilog always, Verilator for plain %Error).
MESSAGE_PATTERNS: list[tuple[re.Pattern[str], Category]] = [
    (
        re.compile(r"syntax error|Syntax in assignment statement|malformed statement", re.I),
        Category.SYNTAX_ERROR,
    ),
    (
        re.compile(
            r"Unable to bind (wire|reg|memory|parameter)|Can't find definition of "
            r"(variable|signal|task|function)|not declared|undeclared",
            re.I,
        ),
        Category.UNDECLARED_IDENTIFIER,
    ),
    (
        re.compile(
            r"Unknown module type|Cannot find file containing module|missing module|"
            r"Include file .* not found|Cannot find include file",
            re.I,
        ),
        Category.MISSING_MODULE,
    ),
    (
        re.compile(
            r"is not a port of|Pin not found|port .* not found|Wrong number of ports|"
            r"too many ports",
            re.I,
        ),
        Category.PORT_MISMATCH,
    ),
    (re.compile(r"width|bits? (on|in|of) the", re.I), Category.WIDTH_MISMATCH),
    (
        re.compile(r"multiple drivers|driven by more than one|Multiply driven", re.I),
        Category.MULTIPLE_DRIVERS,
    ),
    (re.compile(r"latch", re.I), Category.LATCH_INFERRED),
    (re.compile(r"^sorry:|Unsupported|not supported", re.I), Category.UNSUPPORTED_CONSTRUCT),
]

TOOL_CRASH_PATTERNS = re.compile(
    r"failed assertion|Assertion .* failed\.|Internal Error|internal error|"
    r"Segmentation fault|terminate called after",
)

HINTS: dict[Category, str] = {
    Category.SYNTAX_ERROR: (
        "Fix the syntax at the marked column (often a missing ';', 'end' or parenthesis on the "
        "line before); change nothing else."
    ),
    Category.UNDECLARED_IDENTIFIER: (
        "Declare the identifier as 'logic' (or a port) before its first use, or correct its "
        "spelling; with `default_nettype none every net must be declared."
    ),
    Category.MISSING_MODULE: (
        "Add the file that defines this module to the sources, or fix the module name in the "
        "instantiation."
    ),
    Category.PORT_MISMATCH: (
        "Make the instance's named connections match the module's port list exactly "
        "(names and count)."
    ),
    Category.WIDTH_MISMATCH: (
        "Make both sides the same width: size the declaration, slice the wider operand, or "
        "extend explicitly with {{N{1'b0}}, x} or a cast."
    ),
    Category.MULTIPLE_DRIVERS: (
        "Drive each signal from exactly one always block or assign; merge the logic into one "
        "process."
    ),
    Category.LATCH_INFERRED: (
        "Assign the signal on every path of the always_comb block: give it a default value at "
        "the top of the block or add the missing else/default branch."
    ),
    Category.UNSUPPORTED_CONSTRUCT: (
        "This tool does not support the construct: rewrite it in the portable subset (no "
        "'inside', interfaces, unpacked structs; use explicit comparisons and packed types)."
    ),
    Category.SIMULATOR_LIMITATION: (
        "The simulator notes a limit of its own and builds the design anyway: no change is "
        "needed unless the behaviour it describes matters here."
    ),
    Category.ASSERTION_FAILED: (
        "An assertion or $error fired: read its message and fix the design behaviour it checks, "
        "not the assertion."
    ),
    Category.SIM_MISMATCH: (
        "The design's output differs from the expected value at the first mismatch: trace the "
        "signal back through its drivers at that cycle (explain_mismatch in the waveform server)."
    ),
    Category.FORBIDDEN_CONSTRUCT: (
        "Design sources may not print, open files, end the simulation or reach into the "
        "testbench: remove the system task or hierarchical reference; the testbench reports."
    ),
    Category.TOOL_CRASH: (
        "The tool itself crashed; this is not an error in your code. Try the other simulator or "
        "rewrite the construct on the reported line in a simpler form."
    ),
    Category.TIMEOUT: (
        "The simulation did not finish in time: make sure the testbench ends with $finish and "
        "that the design does not wait forever for a handshake."
    ),
    Category.INVALID_INPUT: "Correct the argument named in the message and call again.",
    Category.LINT: "Style or quality warning: fix it unless the code is intentional.",
    Category.OTHER: "Read the message and fix the code at the reported location.",
}


def category_for_slang(code_name: str) -> Category:
    for category, names in SLANG_CODES.items():
        if code_name in names:
            return category
    if code_name.startswith("Expected") or code_name in {
        "MisplacedTrailingSeparator",
        "ImplicitNetPortNoDefault",
        "UnbalancedMacroArgDims",
    }:
        return Category.SYNTAX_ERROR
    return Category.OTHER


def category_for_verilator(code: str | None, message: str) -> Category:
    if code:
        for category, names in VERILATOR_CODES.items():
            if code in names:
                return category
        if code.isupper() and code not in {"MODMISSING"}:
            return Category.LINT
    return category_for_message(message)


def category_for_message(message: str) -> Category:
    if TOOL_CRASH_PATTERNS.search(message):
        return Category.TOOL_CRASH
    for pattern, category in MESSAGE_PATTERNS:
        if pattern.search(message):
            return category
    return Category.OTHER
