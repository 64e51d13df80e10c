"""Judge a simulation from the testbench's report, the exit and the tool's own messages.

PASS needs all of: exactly one summary line `Mismatches: 0 in N samples` with N > 0, no
MISMATCH line, no $error/$fatal/failed assertion, a clean exit, no timeout, and every report
line kept. A substring or an exit code alone never decides it.

Only the testbench writes verdict text. Each run draws a secret that the server passes as the
plusarg `+sa_verdict=<key>`; the suite's harness (hdl/tb/tb_harness.svh) reads it and starts each
of its lines with `[sa:<key>] `. A design can neither read a plusarg nor reach the testbench's
names, so when a run printed tagged lines, those alone are its report and every untagged
MISMATCH or summary line is design text, never read. A testbench of the caller's own that
prints the plain convention is read as printed only while the design printed nothing: a
design prints only through $error/$fatal (the design rules), and each such report begins
with the simulator's header naming the design's text, which the design cannot leave out;
once one shows, no plain line is read (the run fails on the report itself).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..models import Category, Diagnostic, Mismatch, Severity, Status
from ..runner import ProcessOutcome
from ..workspace import Workspace
from .categories import HINTS, TOOL_CRASH_PATTERNS

SUMMARY = re.compile(r"^\s*Mismatches:\s*(\d+)\s+in\s+(\d+)\s+samples\s*$")
MISMATCH = re.compile(r"^\s*MISMATCH\b(?P<fields>.*)$")
_FIELD = re.compile(r"(\w+)=(\S+)")
# VerilogEval prints "Hint: Output 'out' has 3 mismatches. First mismatch occurred at time 40."
# at the start of a line; anywhere else (inside a simulator's report of a design $error) it is
# not the testbench's.
VERILOGEVAL_HINT = re.compile(
    r"^\s*Hint: Output '(?P<sig>[^']+)' has (?P<n>\d+) mismatches\. "
    r"First mismatch occurred at time (?P<t>\d+)"
)
# iverilog: "ERROR: f.sv:5: msg" / "FATAL: f.sv:10: msg"; Verilator: "[t] %Error: f.sv:5: ..."
SIM_ERROR = re.compile(
    r"^(?:\[(?P<vtime>[^\]]*)\]\s*)?(?:%(?P<vsev>Error|Fatal)|(?P<isev>ERROR|FATAL)):\s*"
    r"(?:(?P<file>[^:\s][^:]*):(?P<line>\d+):\s*)?(?P<msg>.*)$"
)
# The tag the harness puts before each of its lines: `[sa:<32 hex digits>] `.
VERDICT_PLUSARG = "sa_verdict"
TAGGED = re.compile(r"^\[sa:(?P<key>[0-9a-f]{32})\] (?P<line>.*)$")
# The compiled design text (see flow: `design.sv` in the build folder) named by a tool report.
DESIGN_TEXT_FILE = "design.sv"
# Lines the runner keeps even when the output is cut, so that the verdict never misses one.
VERDICT_LINES = re.compile(
    r"Mismatches:|MISMATCH|Hint: Output|%Error|%Fatal|^ERROR:|^FATAL:|failed assertion|"
    r"Assertion"
)


@dataclass
class Judgement:
    status: Status
    summary: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    first_mismatch: Mismatch | None = None
    mismatch_count: int | None = None
    samples: int | None = None


def _mismatch(fields: str) -> Mismatch:
    values = dict(_FIELD.findall(fields))
    cycle = values.get("cycle")
    return Mismatch(
        time=values.get("time"),
        cycle=int(cycle) if cycle and cycle.lstrip("-").isdigit() else None,
        signal=values.get("signal"),
        expected=values.get("expected"),
        actual=values.get("actual"),
    )


def _from_design(file: str | None) -> bool:
    """A tool report about the design's text, or about no file at all (which could be it)."""
    return file is None or file.replace("\\", "/").rsplit("/", 1)[-1] == DESIGN_TEXT_FILE


def report_lines(lines: list[str], key: str | None) -> tuple[list[str], bool]:
    """(the lines that may be read as the testbench's report, whether they were tagged).
    Tool reports ($error headers, crashes) are kept either way: they can only fail a run."""
    if key is not None:
        tagged = [m["line"] for line in lines if (m := TAGGED.match(line)) and m["key"] == key]
        if tagged:
            untagged = [line for line in lines if not TAGGED.match(line) and not _is_report(line)]
            return tagged + untagged, True
    return lines, False


def _is_report(line: str) -> bool:
    return bool(SUMMARY.match(line) or MISMATCH.match(line) or VERILOGEVAL_HINT.search(line))


def judge(
    workspace: Workspace,
    outcome: ProcessOutcome,
    lines: list[str],
    tool: str,
    key: str | None = None,
) -> Judgement:
    """`lines` are every verdict-relevant line the run printed (kept even past the cap); `key`
    is the run's verdict secret (see the module's text). When more such lines came than the
    runner keeps, the testbench's own report may be among those lost: the run gets no verdict
    (never PASS), only what the kept lines show (a first mismatch read as above)."""
    verdict = _judge(workspace, outcome, lines, tool, key)
    if not outcome.kept_overflow or verdict.status in (Status.TIMEOUT, Status.TOOL_ERROR):
        return verdict
    message = (
        "the run printed more report lines (MISMATCH, summary, $error) than the server keeps; "
        "the testbench's own report may be among those lost, so no verdict is given"
    )
    verdict.diagnostics.insert(
        0,
        _diag(
            Category.OTHER,
            message,
            tool,
            hint="Print fewer lines: stop the testbench after its first mismatches, and remove "
            "$error calls that fire every cycle.",
        ),
    )
    if verdict.status == Status.PASS:
        # What looked clean was read from a report cut short: none of it stands.
        verdict.summary, verdict.mismatch_count, verdict.samples = message, None, None
    else:
        verdict.summary = f"{message}; {verdict.summary}"
    verdict.status = Status.SIM_FAIL
    return verdict


def _judge(
    workspace: Workspace, outcome: ProcessOutcome, lines: list[str], tool: str, key: str | None
) -> Judgement:
    if outcome.timed_out:
        return Judgement(
            Status.TIMEOUT,
            "simulation did not finish within the time limit; its processes were killed",
            [_diag(Category.TIMEOUT, "simulation timed out", tool)],
        )
    lines, tagged = report_lines(lines, key)
    diagnostics: list[Diagnostic] = []
    summaries: list[tuple[int, int]] = []
    mismatches: list[Mismatch] = []
    crash = False
    for line in lines:
        if match := SUMMARY.match(line):
            summaries.append((int(match[1]), int(match[2])))
        elif match := MISMATCH.match(line):
            mismatches.append(_mismatch(match["fields"]))
        elif match := VERILOGEVAL_HINT.search(line):
            mismatches.append(Mismatch(time=match["t"], signal=match["sig"]))
        elif TOOL_CRASH_PATTERNS.search(line):
            crash = True
            diagnostics.append(_diag(Category.TOOL_CRASH, line.strip(), tool))
        elif match := SIM_ERROR.match(line.strip()):
            message = match["msg"].strip() or "assertion failed"
            file = match["file"]
            # The simulator's own words after a testbench's $stop or $fatal; a report from
            # the design's text counts whatever it says.
            own_words = message.startswith("Verilog $stop") or message == "Aborting..."
            if own_words and not (file and _from_design(file)):
                continue
            diagnostics.append(
                Diagnostic(
                    severity=Severity.ERROR,
                    category=Category.ASSERTION_FAILED,
                    file=(workspace.relative(file) if file and file.startswith("/") else file),
                    line=int(match["line"]) if match["line"] else None,
                    message=message,
                    hint=HINTS[Category.ASSERTION_FAILED],
                    source=tool,
                )
            )
    design_reports = [
        d for d in diagnostics if d.category == Category.ASSERTION_FAILED and _from_design(d.file)
    ]
    unread = bool(design_reports and not tagged and (summaries or mismatches))
    if unread:
        # The design printed: its text may hold any line, so no plain line is read.
        summaries, mismatches = [], []
        diagnostics.append(
            _diag(
                Category.OTHER,
                "the design printed $error/$fatal reports, so the testbench's untagged "
                "MISMATCH and summary lines cannot be told from the design's text and are "
                "not read",
                tool,
                hint="Fix the design's failing checks; a testbench that includes "
                "tb_harness.svh tags its lines and keeps its report readable.",
            )
        )
    first = mismatches[0] if mismatches else None
    if crash or (outcome.signal is not None and outcome.signal not in (6,) and not summaries):
        return Judgement(
            Status.TOOL_ERROR,
            f"{tool} crashed (exit {outcome.exit_code}); not an error in the design",
            diagnostics or [_diag(Category.TOOL_CRASH, f"{tool} ended by signal", tool)],
        )
    count = summaries[-1][0] if summaries else None
    samples = summaries[-1][1] if summaries else None
    if count is not None and mismatches:
        count = max(count, len(mismatches))
    elif count is None and mismatches:
        count = len(mismatches)
    problems: list[str] = []
    if len(summaries) != 1 and not unread:
        problems.append(
            "the testbench printed no summary line 'Mismatches: <n> in <m> samples'"
            if not summaries
            else f"{len(summaries)} summary lines were printed (exactly one is expected)"
        )
        diagnostics.append(
            _diag(
                Category.OTHER,
                problems[-1],
                tool,
                hint="The testbench must print exactly one line 'Mismatches: <n> in <m> samples' "
                "before $finish.",
            )
        )
    if count:
        problems.append(f"{count} mismatches")
        diagnostics.insert(
            0,
            _diag(
                Category.SIM_MISMATCH,
                f"{count} mismatches; first: {_describe(first)}",
                tool,
            ),
        )
    if samples == 0:
        problems.append("the testbench checked 0 samples")
    asserts = [d for d in diagnostics if d.category == Category.ASSERTION_FAILED]
    if asserts:
        problems.append(f"{len(asserts)} assertion/$error/$fatal reports")
    if outcome.exit_code not in (0, None) and not problems:
        problems.append(f"simulator exit code {outcome.exit_code}")
        diagnostics.append(
            _diag(Category.OTHER, f"simulation exited with {outcome.exit_code}", tool)
        )
    if problems:
        return Judgement(
            Status.SIM_FAIL,
            "; ".join(problems),
            diagnostics,
            first,
            count,
            samples,
        )
    return Judgement(
        Status.PASS, f"0 mismatches in {samples} samples", diagnostics, None, 0, samples
    )


def _describe(mismatch: Mismatch | None) -> str:
    if mismatch is None:
        return "see the log"
    parts = [f"{k}={v}" for k, v in mismatch.model_dump().items() if v is not None]
    return " ".join(parts)


def _diag(category: Category, message: str, tool: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(
        severity=Severity.ERROR,
        category=category,
        message=message,
        hint=hint or HINTS[category],
        source=tool,
    )
