"""What a design may call: an allow list of system functions, and the one way it may read a
file (a ROM image it was given)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ..models import Category, Diagnostic, Severity
from ..workspace import InvalidInput, Workspace

# The system functions a design may call: pure computation, queries, and the severity tasks
# that can only fail a run. Anything else (printing, reading or writing files, plusargs,
# ending or steering the simulation, Verilator's $c) could forge the testbench's verdict or
# read its answers, so design files are held to this list rather than to a list of bad names.
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
        "$unit", "$root",
    }
)  # fmt: skip
# Definitions the server compiles beside a testbench: a design may not define these names,
# or a simulator that keeps the first definition would run the design's copy instead.
WAVE_DUMP_MODULE = "sa_wave_dump"
TRACE_MODULE_PREFIX = "sa_trace_"


def is_suite_name(name: str) -> bool:
    return name == WAVE_DUMP_MODULE or name.startswith(TRACE_MODULE_PREFIX)


# A ROM image: allowed only as a literal path to a file the call listed among the design.
ROM_LOADERS = frozenset({"$readmemh", "$readmemb"})
# Files listed in `design` with these suffixes are data (ROM images), not SystemVerilog.
DATA_SUFFIXES = frozenset({".hex", ".mem", ".dat", ".txt"})
# The characters a ROM path may hold: escapes and quoting are read differently by slang and the
# simulators, so the path that is checked could differ from the one that is opened.
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_./-]+")
_READING_WORDS = ("read", "scan", "open", "get", "plusargs", "system", "eof", "seek", "tell")
READS_HINT = (
    "A design cannot read files or plusargs; take the data on a port, or list the ROM image "
    'file among the design sources and load it with $readmemh("that/path.hex", mem).'
)


def is_data_file(path: Path) -> bool:
    return path.suffix.lower() in DATA_SUFFIXES


def refused_calls(
    workspace: Workspace,
    calls: Sequence[tuple[str, object, str | None]],
    data_files: Sequence[Path],
) -> list[Diagnostic]:
    """(name, origin, literal first argument) of each system call -> the refused ones."""
    given = {path.resolve() for path in data_files}
    found = []
    for name, origin, literal in calls:
        if name in ALLOWED_IN_DESIGN:
            continue
        plain = literal is not None and _PLAIN_PATH.fullmatch(literal) is not None
        if name in ROM_LOADERS and plain and _given(workspace, str(literal), given):
            continue
        if name in ROM_LOADERS and literal is not None and not plain:
            what = f'{name}("{literal[:60]}") with characters outside [A-Za-z0-9_./-]'
            hint = "Simulators read escapes in a file name differently; write the ROM path "
            hint += "as plain letters, digits, '_', '.', '/' and '-' (no backslash)."
        elif name in ROM_LOADERS:
            what = f"{name} of a file not listed among the design sources"
            hint = READS_HINT
        elif any(word in name for word in _READING_WORDS):
            what, hint = name, READS_HINT
        else:
            what = name
            hint = "Only testbenches print, end the run or call into the simulator; "
            hint += "remove the call from the design."
        found.append(
            Diagnostic(
                severity=Severity.ERROR,
                category=Category.FORBIDDEN_CONSTRUCT,
                code="design-call",
                file=getattr(origin, "file", None),
                line=getattr(origin, "line", None),
                column=getattr(origin, "column", None),
                message=f"{what} is not allowed in a design source (only testbenches read, "
                "report or end the run)",
                hint=hint,
                source="silicon-agent",
            )
        )
    return found


def _given(workspace: Workspace, literal: str, given: set[Path]) -> bool:
    try:
        path = workspace.resolve(literal, argument="design", must_exist=True, kind="any")
    except InvalidInput:
        return False
    return path.resolve() in given
