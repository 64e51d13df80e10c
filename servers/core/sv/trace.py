"""The trace judge: a second verdict for runs whose expected values the server holds.

The server compiles a module of its own beside the testbench (never the design) that writes the
DUT's accepted output beats (valid and ready high at a clock edge) and its resets to a file in
the run's scratch. The beats are compared with an expected-beats file the server reads itself
and the sandboxed run never gets. When that verdict and the testbench's disagree, the run's
verdict is withheld: whichever of the two lies, neither can be trusted alone.

The module's name carries a digest keyed by a secret the sandboxed uid cannot read, so a design
cannot define a module of that name to stand in for it; designs cannot write files, so they
cannot write the trace either.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from silicon_agent.suite.trace_spec import (
    ExpectedBeats,
    ExpectedStream,
    TraceSpec,
    TraceStream,
)

from ..models import Category, Diagnostic, Mismatch, Severity, Status, ToolResult, TraceCheck
from ..workspace import InvalidInput, Workspace, atomic_write
from .design_rules import TRACE_MODULE_PREFIX

TRACE_PREFIX = TRACE_MODULE_PREFIX
TRACE_PLUSARG = "sa_trace"
MAX_TRACE_BYTES = 256 * 1024 * 1024
MAX_EXPECTED_BYTES = 64 * 1024 * 1024
Beat = tuple[str, str | None, str | None]  # data, last, user as printed


def check_spec(workspace: Workspace, spec: object, top: str | None) -> TraceSpec | None:
    """The trace argument validated, with its expected file resolved inside the workspace."""
    if spec is None:
        return None
    try:
        checked = TraceSpec.model_validate(spec)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidInput(
            f"trace{'.' + where if where else ''}: {first['msg']}", argument="trace"
        ) from None
    if top is None:
        raise InvalidInput(
            "trace: needs top, the testbench module the DUT path starts from", argument="top"
        )
    if checked.expected is not None:
        workspace.resolve(checked.expected, argument="trace.expected")
    return checked


def _secret(workspace: Workspace) -> bytes:
    """A per-workspace key the sandboxed uid cannot read (0600, owned by the server)."""
    path = workspace.keep_dir("trace") / "secret"
    if not path.exists():
        # Written whole under a private name, then linked into place: a concurrent caller
        # either wins the link or reads the winner's secret, never a half-written one.
        tmp = path.with_name(f".secret-{secrets.token_hex(8)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(16))
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    return path.read_bytes()


def module_name(workspace: Workspace, spec: TraceSpec, top: str) -> str:
    # The expected beats are the judge's, not the monitor's: every vector case of one testbench
    # shares one monitor module, hence one build.
    monitor = spec.model_dump_json(exclude={"expected"})
    digest = hashlib.sha256(_secret(workspace) + f"{top}\0{monitor}".encode())
    return TRACE_PREFIX + digest.hexdigest()[:20]


def module_file(workspace: Workspace, spec: TraceSpec, top: str, bind: bool) -> tuple[Path, str]:
    """Write the trace module (content-addressed, so builds stay cached) and name it."""
    name = module_name(workspace, spec, top)
    dut = f"{top}.{spec.dut}"
    clock = f"{dut}.{spec.clock}"
    lines = [
        "// Written by silicon-agent: the trace judge's view of the DUT's output beats.",
        f"module {name};",
        "  int sa_fd = 0;",
        "  bit sa_in_reset = 1'b0;",
        "  string sa_path;",
        "  initial begin",
        f'    if ($value$plusargs("{TRACE_PLUSARG}=%s", sa_path)) sa_fd = $fopen(sa_path, "w");',
        "  end",
        f"  always @(posedge {clock}) begin",
        "    if (sa_fd != 0) begin",
    ]
    if spec.reset is not None:
        idle = "1'b1" if spec.reset_active_low else "1'b0"
        lines += [
            f"      if ({dut}.{spec.reset} !== {idle}) begin",
            '        if (!sa_in_reset) $fwrite(sa_fd, "r\\n");',
            "        sa_in_reset = 1'b1;",
            "      end else begin",
            "        sa_in_reset = 1'b0;",
        ]
    for index, s in enumerate(spec.streams):
        cond = [f"{dut}.{p} === 1'b1" for p in (s.valid, s.ready) if p is not None] or ["1'b1"]
        fields = ["%h", "%b" if s.last else "-", "%h" if s.user else "-"]
        args = [f"{dut}.{p}" for p in (s.data, s.last, s.user) if p is not None]
        lines.append(
            f"        if ({' && '.join(cond)}) "
            f'$fwrite(sa_fd, "b{index} {" ".join(fields)}\\n", {", ".join(args)});'
        )
    if spec.reset is not None:
        lines.append("      end")
    lines += [
        "    end",
        "  end",
        '  final if (sa_fd != 0) begin $fwrite(sa_fd, "e\\n"); $fclose(sa_fd); end',
        "endmodule",
    ]
    if bind:
        lines.append(f"bind {top} {name} {name}_i();")
    text = "\n".join(lines) + "\n"
    path = workspace.keep_dir("trace") / f"{hashlib.sha256(text.encode()).hexdigest()[:24]}.sv"
    if not path.exists():
        atomic_write(path, text)
        path.chmod(0o644)
    return path, name


@dataclass
class Trace:
    """The parsed trace: per stream, its accepted beats split into passes at each reset (a
    dataclass: the server wrote it, and a pydantic check of every beat costs more than the
    simulation of a small block)."""

    passes: list[list[list[Beat]]]
    complete: bool


_BEAT = re.compile(r"^b(\d+) (\S+) (\S+) (\S+)$")


def read_trace(path: Path, streams: int) -> Trace:
    if path.is_symlink() or not path.is_file():
        raise ValueError("no trace was written")
    if path.stat().st_size > MAX_TRACE_BYTES:
        raise ValueError(f"the trace is larger than {MAX_TRACE_BYTES} bytes")
    passes: list[list[list[Beat]]] = [[[]] for _ in range(streams)]
    complete = False
    with path.open(encoding="ascii", errors="replace") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if line == "e":
                complete = True
            elif line == "r":
                for per_stream in passes:
                    per_stream.append([])
            elif match := _BEAT.match(line):
                index = int(match.group(1))
                if index >= streams:
                    raise ValueError(f"trace line names stream {index}")
                data, last, user = match.group(2, 3, 4)
                passes[index][-1].append(
                    (data, None if last == "-" else last, None if user == "-" else user)
                )
            else:
                raise ValueError(f"unreadable trace line: {line[:80]!r}")
    return Trace(passes=passes, complete=complete)


def load_expected(workspace: Workspace, spec: TraceSpec) -> ExpectedBeats:
    if spec.expected is None:
        return ExpectedBeats(streams={})
    path = workspace.resolve(spec.expected, argument="trace.expected")
    if path.stat().st_size > MAX_EXPECTED_BYTES:
        raise InvalidInput(
            f"trace.expected: larger than {MAX_EXPECTED_BYTES} bytes", argument="trace"
        )
    try:
        expected = ExpectedBeats.model_validate(json.loads(path.read_text()))
    except (ValueError, ValidationError) as exc:
        raise InvalidInput(
            f"trace.expected: not an expected-beats file ({str(exc).splitlines()[0]})",
            argument="trace",
        ) from None
    missing = [s.name for s in spec.streams if s.from_file and s.name not in expected.streams]
    if missing:
        raise InvalidInput(f"trace.expected: no beats for stream {missing[0]}", argument="trace")
    return expected


def _value(text: str | None) -> int | str | None:
    """A printed or expected hex value as a number; x/z digits keep it text (never equal)."""
    if text is None:
        return None
    try:
        return int(text, 16)
    except ValueError:
        return text.lower()


def _expected_beats(stream: ExpectedStream) -> list[Beat]:
    n = len(stream.data)
    last = stream.last or [None] * n
    user = stream.user or [None] * n
    return [
        (d, None if lv is None else str(lv), u)
        for d, lv, u in zip(stream.data, last, user, strict=True)
    ]


def _compare(
    stream: TraceStream, got: list[Beat], want: list[Beat], whole: bool, where: str
) -> tuple[int, Mismatch | None]:
    """Mismatches of one pass: a beat differs, a beat is missing or one too many."""
    count = 0
    first: Mismatch | None = None
    ports = (stream.data, stream.last, stream.user)
    for n, (g, w) in enumerate(zip(got, want, strict=False)):
        if g == w:  # the same text: equal without converting a value
            continue
        for port, gv, wv in zip(ports, g, w, strict=True):
            if port is None or wv is None or _value(gv) == _value(wv):
                continue
            count += 1
            if first is None:
                first = Mismatch(
                    signal=f"{port} ({where} beat {n})",
                    expected=wv,
                    actual=gv,
                )
    extra = len(got) - len(want)
    if extra > 0 or (whole and extra < 0):
        count += abs(extra)
        if first is None:
            first = Mismatch(
                signal=f"{stream.name} beats ({where})",
                expected=str(len(want)),
                actual=str(len(got)),
            )
    return count, first


def judge_trace(spec: TraceSpec, expected: ExpectedBeats, trace: Trace) -> TraceCheck:
    """Every pass cut short by a reset must be a prefix of the expected beats, the pass after
    the last reset all of them (or a prefix, for a stream that is not `complete`)."""
    names = {s.name: i for i, s in enumerate(spec.streams)}
    count, beats = 0, 0
    first: Mismatch | None = None
    for index, stream in enumerate(spec.streams):
        if stream.reference_only:
            continue
        passes = trace.passes[index]
        for number, got in enumerate(passes):
            beats += len(got)
            if stream.same_as is not None:
                want = trace.passes[names[stream.same_as]][number]
                want = [(d, None, None) for d, _, _ in want]
            else:
                want = _expected_beats(expected.streams[stream.name])
            final = number == len(passes) - 1
            where = f"{stream.name} pass {number}"
            n, m = _compare(stream, got, want, final and stream.complete, where)
            count += n
            first = first or m
        if stream.same_as is None and not any(passes) and expected.streams[stream.name].data:
            # A prefix may be short, never empty: a DUT starved of its stimulus (or that
            # holds its output back) shows no beat, and nothing confirms a PASS.
            count += 1
            first = first or Mismatch(
                signal=f"{stream.name} beats",
                expected=str(len(expected.streams[stream.name].data)),
                actual="0",
            )
    if not trace.complete:
        count += 1
        first = first or Mismatch(signal="trace", expected="end of simulation", actual="cut")
    passed = count == 0
    summary = (
        f"trace: {beats} beats match"
        if passed
        else f"trace: {count} mismatches in {beats} beats; first {first.signal if first else ''}"
    )
    return TraceCheck(
        passed=passed,
        agrees=True,
        beats=beats,
        mismatch_count=count,
        first_mismatch=first,
        summary=summary,
    )


def trace_failure(message: str) -> TraceCheck:
    return TraceCheck(
        passed=False, agrees=True, beats=0, mismatch_count=0, summary=f"trace: {message}"
    )


def reconcile(result: ToolResult, check: TraceCheck) -> None:
    """Attach the trace verdict; withhold the testbench's when the two disagree.

    Only a testbench verdict (PASS or SIM_FAIL) is compared: a timeout or crash has none."""
    result.trace = check
    if result.status not in (Status.PASS, Status.SIM_FAIL):
        return
    testbench_passed = result.status == Status.PASS
    if testbench_passed == check.passed:
        return
    check.agrees = False
    said = "PASS" if testbench_passed else "a failure"
    if check.passed:
        found = "no mismatch"
    elif check.mismatch_count:
        found = f"{check.mismatch_count} mismatches"
    else:  # no trace, or one that cannot be read: nothing confirms the testbench's PASS
        found = check.summary.removeprefix("trace: ")
    message = f"the testbench reported {said} but the server's trace of the DUT shows {found}"
    result.status = Status.INVALID_INPUT
    result.summary = f"{message}; the verdict is withheld"
    result.diagnostics.insert(
        0,
        Diagnostic(
            severity=Severity.ERROR,
            category=Category.INVALID_INPUT,
            message=message + (f" ({check.summary})" if not check.passed else ""),
            hint="The testbench's summary and the DUT's output beats disagree; check that the "
            "testbench prints its verdict from the beats it compares and that its expected "
            "vectors are the case's own, then run again.",
            source="silicon-agent",
        ),
    )


def judge_run(workspace: Workspace, spec: TraceSpec, path: Path, result: ToolResult) -> None:
    """Read the run's trace, judge it, and settle it against the testbench's verdict."""
    try:
        expected = load_expected(workspace, spec)
        check = judge_trace(spec, expected, read_trace(path, len(spec.streams)))
        result.artifacts["trace"] = workspace.relative(path)
    except (InvalidInput, ValueError, OSError) as exc:
        check = trace_failure(str(exc))
    reconcile(result, check)
