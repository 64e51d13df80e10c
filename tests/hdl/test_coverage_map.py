"""The judge covers the brief and nothing else (`hdl/coverage.yaml`): every statement of each
block's spec is quoted by the map and exercised by a judge case, every judge case and every
signal the judge compares serves a statement, and each seed draws the values a statement's
range needs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from silicon_agent.hdl.registry import REPO, Statement, block_trace, load_coverage, load_registry
from silicon_agent.host.modem import case_params, generator_block
from silicon_agent.refmodels.vectors import generate
from silicon_agent.suite.design import Block, Judge

BLOCKS = [
    "crc_checker",
    "descrambler",
    "qam_demodulator",
    "resource_demapper",
    "channel_estimator",
    "equalizer",
    "rate_dematcher",
    "ofdm_demodulator",
    "dl_sch_processor",
]
SEEDS = (1, 2, 3, 1234567)
# A statement's needs hold for every seed, not for a lucky few: checked over sixty more.
NEEDS_SEEDS = (*SEEDS, *range(100, 160))


def flat(text: str) -> str:
    return " ".join(text.split())


def judged_signals(name: str) -> set[str]:
    """What the judge compares: the testbench's mismatch signals, the watchdog's beat count
    and the ports the trace judge follows."""
    block = load_registry().block(name)
    assert block.testbench is not None
    tb = (REPO / block.testbench).read_text()
    signals = set(re.findall(r'`TB_(?:EXPECT|MISMATCH_IF)\((?:[^"]*?),?\s*"(\w+)"', tb))
    signals |= {"beats"} if "`TB_WATCHDOG" in tb else set()
    trace = block_trace(block)
    for stream in trace.streams if trace else []:
        signals |= {p for p in (stream.data, stream.last, stream.user) if p is not None}
    return signals


@pytest.fixture(scope="module")
def coverage() -> dict[str, list[Statement]]:
    return load_coverage()


def mapped(name: str, coverage: dict[str, list[Statement]]) -> tuple[Block, Judge]:
    """The block and its judge, which the map must cover."""
    block = load_registry().block(name)
    assert block.judge is not None and name in coverage, f"{name}: no coverage map"
    return block, block.judge


@pytest.mark.parametrize("name", BLOCKS)
def test_every_brief_statement_has_judge_cases(
    name: str, coverage: dict[str, list[Statement]]
) -> None:
    block, judge = mapped(name, coverage)
    spec = flat(block.spec)
    covered = [False] * len(spec)
    for statement in coverage[name]:
        quote = flat(statement.says)
        at = spec.find(quote)
        assert at >= 0, f"{name}: not in the brief: {quote!r}"
        covered[at : at + len(quote)] = [True] * len(quote)
        assert statement.cases, f"{name}: no judge case exercises {quote!r}"
        unknown = set(statement.cases) - set(judge.cases)
        assert not unknown, f"{name}: {sorted(unknown)} are no judge cases ({quote!r})"
    left = "".join(c if not done else "\0" for c, done in zip(spec, covered, strict=True))
    unquoted = [part.strip() for part in left.split("\0") if part.strip(" ,;:.")]
    assert not unquoted, f"{name}: brief text no statement quotes: {unquoted}"


@pytest.mark.parametrize("name", BLOCKS)
def test_every_judge_case_and_check_serves_a_statement(
    name: str, coverage: dict[str, list[Statement]]
) -> None:
    block, judge = mapped(name, coverage)
    cited = {case for s in coverage[name] for case in s.cases}
    assert set(judge.cases) <= cited, (
        f"{name}: judge cases no brief statement asks for: {set(judge.cases) - cited}"
    )
    claimed = {signal for s in coverage[name] for signal in s.checks}
    judged = judged_signals(name)
    assert judged <= claimed, f"{name}: judged but stated nowhere: {judged - claimed}"
    assert claimed <= judged, f"{name}: the map claims checks the judge lacks: {claimed - judged}"


def values(params: dict[str, Any], key: str) -> set[str]:
    """A parameter's values as text; `a.b` reads b of every record in the list a, and a list
    gives its items."""
    head, _, tail = key.partition(".")
    raw = params.get(head)
    if tail:
        return {str(r[tail]) for r in raw or []}
    if isinstance(raw, list):
        return {str(r) for r in raw}
    return set() if raw is None else {str(raw)}


@pytest.mark.parametrize("name", BLOCKS)
def test_each_seed_draws_what_the_statements_need(
    name: str, coverage: dict[str, list[Statement]], tmp_path: Path
) -> None:
    block, judge = mapped(name, coverage)
    needing = [s for s in coverage[name] if s.needs]
    drawn: dict[tuple[int, str], dict[str, Any]] = {}
    for seed in NEEDS_SEEDS:
        for case in judge.cases:
            out = tmp_path / f"{seed}-{case}"
            sidecar = generate(generator_block(block), out, seed, case_params(block, case))[0]
            drawn[seed, case] = json.loads(sidecar.read_text())["params"]
    for case in judge.cases:
        # Fresh per call: another seed draws other parameters.
        assert len({repr(drawn[seed, case]) for seed in SEEDS}) == len(SEEDS), (name, case)
    for statement in needing:
        for seed in NEEDS_SEEDS:
            for key, want in statement.needs.items():
                got = set().union(*(values(drawn[seed, c], key) for c in statement.cases))
                missing = {str(w) for w in want} - got
                assert not missing, f"{name} seed {seed}: {key} {missing} never drawn"


FILE_NAME = re.compile(r"[\w./-]+\.(?:py|sv|svh|v|hex|json|yaml)\b|\brefmodels\b|\btests/")


@pytest.mark.parametrize("name", BLOCKS)
def test_the_brief_names_no_file_a_designer_cannot_open(name: str) -> None:
    """A brief stands alone: its spec and the package text (what block_brief gives) name no
    reference model, test or other file the designer is not given."""
    registry = load_registry()
    block = registry.block(name)
    assert registry.package is not None
    package = (REPO / registry.package).read_text()
    for where, text in (("spec", block.spec), ("interface", block.interface), ("package", package)):
        named = sorted(set(FILE_NAME.findall(text)) - {registry.package})
        assert not named, f"{name}: the brief's {where} names {named}"
