"""The trace judge's rules without a simulator: passes split at resets, prefixes, same_as,
cut traces, x values, argument refusals and how a disagreement withholds the verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status, ToolResult
from silicon_agent.servers.core.sv import trace as tj
from silicon_agent.servers.core.workspace import InvalidInput, Workspace

SPEC = tj.TraceSpec(
    dut="dut",
    clock="clk",
    reset="rst_n",
    streams=[tj.TraceStream(name="m", data="d", valid="v", ready="r", last="l")],
    expected="exp.json",
)
EXPECTED = tj.ExpectedBeats(streams={"m": tj.ExpectedStream(data=["1", "2", "3"], last=[0, 0, 1])})


def _judge(tmp: Path, text: str, spec: tj.TraceSpec = SPEC) -> tj.TraceCheck:
    path = tmp / "trace.txt"
    path.write_text(text)
    return tj.judge_trace(spec, EXPECTED, tj.read_trace(path, len(spec.streams)))


def test_a_reset_cut_pass_is_a_prefix_and_the_last_pass_is_whole(tmp_path: Path) -> None:
    ok = _judge(tmp_path, "r\nb0 01 0 -\nr\nb0 01 0 -\nb0 02 0 -\nb0 03 1 -\ne\n")
    assert ok.passed and ok.beats == 4 and ok.mismatch_count == 0
    short = _judge(tmp_path, "r\nb0 01 0 -\nb0 02 0 -\ne\n")
    assert (
        not short.passed and short.first_mismatch and "beats" in (short.first_mismatch.signal or "")
    )
    wrong_prefix = _judge(tmp_path, "b0 02 0 -\nr\nb0 1 0 -\nb0 2 0 -\nb0 3 1 -\ne\n")
    assert not wrong_prefix.passed
    assert wrong_prefix.first_mismatch and wrong_prefix.first_mismatch.actual == "02"


def test_last_x_and_a_cut_trace_are_mismatches(tmp_path: Path) -> None:
    assert not _judge(tmp_path, "b0 1 0 -\nb0 2 1 -\nb0 3 1 -\ne\n").passed
    assert not _judge(tmp_path, "b0 1 0 -\nb0 x 0 -\nb0 3 1 -\ne\n").passed
    # No end marker: the simulation never reached its end (killed), whatever the beats say.
    assert not _judge(tmp_path, "b0 1 0 -\nb0 2 0 -\nb0 3 1 -\n").passed
    with pytest.raises(ValueError):
        _judge(tmp_path, "b0 1 0 -\n$display forged line\ne\n")


def test_same_as_judges_an_output_by_an_input_stream(tmp_path: Path) -> None:
    spec = tj.TraceSpec(
        dut="dut",
        clock="clk",
        streams=[
            tj.TraceStream(name="s", data="a", valid="b", reference_only=True),
            tj.TraceStream(name="m", data="c", valid="d", same_as="s"),
        ],
    )
    assert _judge(tmp_path, "b0 5 - -\nb1 5 - -\nb0 6 - -\nb1 6 - -\ne\n", spec).passed
    dropped = _judge(tmp_path, "b0 5 - -\nb0 6 - -\nb1 6 - -\ne\n", spec)
    assert not dropped.passed and dropped.beats == 1


def test_the_generated_module_reads_only_dut_ports(tmp_path: Path) -> None:
    ws = Workspace.open(tmp_path)
    path, name = tj.module_file(ws, SPEC, "tb_top", bind=True)
    text = path.read_text()
    assert name.startswith(tj.TRACE_PREFIX) and f"module {name};" in text
    assert "tb_top.dut.d" in text and "tb_top.dut.rst_n !== 1'b1" in text
    assert f"bind tb_top {name} {name}_i();" in text
    # The name is keyed by a secret the sandboxed uid cannot read, so no design can guess it.
    assert (ws.state_dir / "trace" / "secret").stat().st_mode & 0o077 == 0
    (tmp_path / "other").mkdir()
    other = Workspace.open(tmp_path / "other")
    assert tj.module_name(other, SPEC, "tb_top") != name
    # Another case's expected beats: the same monitor, so the same build.
    case2 = SPEC.model_copy(update={"expected": "case2/exp.json"})
    assert tj.module_file(ws, case2, "tb_top", bind=True) == (path, name)
    wider = SPEC.model_copy(
        update={
            "streams": [
                *SPEC.streams,
                SPEC.streams[0].model_copy(update={"name": "n", "data": "e"}),
            ]
        }
    )
    assert tj.module_name(ws, wider, "tb_top") != name


@pytest.mark.parametrize(
    ("spec", "top", "words"),
    [
        ({**SPEC.model_dump(), "dut": "dut; $finish"}, "tb", "trace.dut"),
        ({**SPEC.model_dump(), "streams": []}, "tb", "trace.streams"),
        ({**SPEC.model_dump(), "expected": None}, "tb", "expected is needed"),
        (SPEC.model_dump(), None, "needs top"),
        ({**SPEC.model_dump(), "expected": "/etc/passwd"}, "tb", "trace.expected"),
    ],
)
def test_bad_trace_arguments_are_refused(
    spec: dict, top: str | None, words: str, tmp_path: Path
) -> None:
    ws = Workspace.open(tmp_path)
    (ws.root / "exp.json").write_text(EXPECTED.model_dump_json())
    with pytest.raises(InvalidInput) as caught:
        tj.check_spec(ws, spec, top)
    assert words in str(caught.value)


@pytest.mark.parametrize(("status", "passed"), [(Status.PASS, False), (Status.SIM_FAIL, True)])
def test_a_disagreement_withholds_the_verdict(status: Status, passed: bool) -> None:
    result = ToolResult(status=status, tool="iverilog")
    check = tj.TraceCheck(passed=passed, agrees=True, beats=3, mismatch_count=int(not passed))
    tj.reconcile(result, check)
    assert result.status == Status.INVALID_INPUT and "withheld" in result.summary
    assert result.trace is check and not check.agrees


@pytest.mark.parametrize(
    ("status", "passed"),
    [(Status.PASS, True), (Status.SIM_FAIL, False), (Status.TIMEOUT, True)],
)
def test_agreement_or_no_testbench_verdict_keeps_the_status(status: Status, passed: bool) -> None:
    result = ToolResult(status=status, tool="verilator")
    tj.reconcile(result, tj.TraceCheck(passed=passed, agrees=True, beats=1, mismatch_count=0))
    assert result.status == status and result.trace and result.trace.agrees


def test_a_missing_trace_withholds_a_pass(tmp_path: Path) -> None:
    result = ToolResult(status=Status.PASS, tool="iverilog")
    ws = Workspace.open(tmp_path)
    (tmp_path / "exp.json").write_text(EXPECTED.model_dump_json())
    tj.judge_run(ws, SPEC, tmp_path / "never-written.txt", result)
    assert result.status == Status.INVALID_INPUT
    assert "no trace was written" in result.summary
