"""Third red team, task memory: an answer key written so that a plain substring match misses it
(case, spacing, JSON escapes, hex or base64, a vector row split across words or fields)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from silicon_agent.host.memory.guard import AnswerKeyGuard

TB_LINE = '$display("MISMATCH signal=crc expected=%h actual=%h", exp_syn[blk], syn_q);'
ROW = "3fa9c1d7"
OTHER_ROW = "00000000"


@pytest.fixture
def guard(tmp_path: Path) -> AnswerKeyGuard:
    (tmp_path / "tb.sv").write_text(
        f"module tb;\n  always @(posedge clk)\n    {TB_LINE}\nendmodule\n"
    )
    (tmp_path / "expected.hex").write_text(f"{ROW}\n{OTHER_ROW}\n5e6f7a8b\n")
    return AnswerKeyGuard(
        [(tmp_path / "tb.sv", "testbench"), (tmp_path / "expected.hex", "vectors")]
    )


def note(**fields: str) -> str:
    """A note as memory checks it: its JSON."""
    return json.dumps({"hypothesis": "", "fix_summary": "", **fields})


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("json_escaped_line", note(hypothesis=f"the bench does {TB_LINE}")),
        ("upper_case_line", note(hypothesis=TB_LINE.upper())),
        ("line_without_spaces", note(hypothesis="".join(TB_LINE.split()))),
        ("line_as_hex", note(hypothesis=TB_LINE.encode().hex())),
        ("line_as_base64", note(hypothesis=base64.b64encode(TB_LINE.encode()).decode())),
        ("row_split_bytes", note(hypothesis="expected 3f a9 c1 d7 on block 0")),
        ("row_as_0x_bytes", note(hypothesis="bytes 0x3f, 0xa9, 0xc1, 0xd7")),
        ("row_across_fields", note(hypothesis="starts 3fa9", fix_summary="c1d7 then")),
        ("row_underscored", note(hypothesis="32'h3fa9_c1d7")),
        ("row_as_base64", note(hypothesis=base64.b64encode(bytes.fromhex(ROW * 2)).decode())),
    ],
)
def test_answer_keys_however_written_are_refused(
    guard: AnswerKeyGuard, name: str, text: str
) -> None:
    assert guard.reasons(text), name


@pytest.mark.parametrize(
    "text",
    [
        note(hypothesis="the syndrome register resets one cycle late", fix_summary="reset it"),
        note(hypothesis="widened the compare to 9 bits; count 0 1 2 3 then wraps"),
        note(hypothesis="tlast lost after back-pressure", fix_summary="hold tlast in a flop"),
    ],
)
def test_ordinary_notes_stay(guard: AnswerKeyGuard, text: str) -> None:
    assert not guard.reasons(text)
