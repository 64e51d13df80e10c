"""Judge a simulation from the testbench's report, the exit and the tool's own messages.

PASS needs all of: exactly one summary line `Mismatches: 0 in N samples` with N > 0, no
MISMATCH line, no $error/$fatal/failed assertion, a clean exit, no timeout. A substring or an
exit code alone never decides it.
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
VERILOGEVAL_HINT = re.compile(
    r"Hint: Output '(?P<sig>[^']+)' has (?P<n>\d+) mismatches\. "
    r"First mismatch occurred at time (?P<t>\d+)"
)
# iverilog: "ERROR: f.sv:5: msg" / "FATAL: f.sv:10: msg"; Verilator: "[t] %Error: f.sv:5: ..."
SIM_ERROR = re.compile(
    r"^(?:\[(?P<vtime>[^\]]*)\]\s*)?(?:%(?P<vsev>Error|Fatal)|(?P<isev>ERROR|FATAL)):\s*"
    r"(?:(?P<file>[^:\s][^:]*):(?P<line>\d+):\s*)?(?P<msg>.*)$"
)
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


def judge(workspace: Workspace, outcome: ProcessOutcome, lines: list[str], tool: str) -> Judgement:
    """`lines` are every verdict-relevant line the run printed (kept even past the cap)."""
    if outcome.timed_out:
        return Judgement(
            Status.TIMEOUT,
            "simulation did not finish within the time limit; its processes were killed",
            [_diag(Category.TIMEOUT, "simulation timed out", tool)],
        )
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
            if message.startswith("Verilog $stop") or message == "Aborting...":
                continue
            file = match["file"]
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
    if len(summaries) != 1:
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
