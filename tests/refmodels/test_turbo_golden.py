"""The turbo decoder is bit-exact with the decoder it replaced: every case of
``turbo_golden.CASES`` (float and bit-true; K from 40 to 6144; 1 to 8 iterations; one block,
batches across the batch size; early stop on either CRC, filler bits, explicit SISO splits,
saturating inputs) hashes to the digest that decoder's output had."""

from __future__ import annotations

import json

import pytest

from silicon_agent.refmodels.turbo_decoder import turbo_decode

from .turbo_golden import CASES, GOLDEN, digest, run_case

EXPECTED = json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_output_equals_the_previous_decoder(case: dict) -> None:
    assert digest(run_case(turbo_decode, case)) == EXPECTED[case["name"]]["digest"]
