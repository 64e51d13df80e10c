"""Spec / clause / table identifiers and the 3GPP-aware BM25 tokenizer."""

from __future__ import annotations

import pytest

from silicon_agent.servers.core.workspace import InvalidInput
from silicon_agent.servers.spec_rag.ids import clause_id, display_spec, spec_key, table_id
from silicon_agent.servers.spec_rag.lexical_tokens import query_tokens, tokens


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("36.212", "36.212"),
        ("TS 36.212", "36.212"),
        ("3GPP TS 36.212", "36.212"),
        ("ts36.212", "36.212"),
        ("TS 136 212", "36.212"),
        ("ETSI TS 138 211", "38.211"),
        ("TR 38.912", "38.912"),
        ("EN 300 328", "EN 300 328"),
    ],
)
def test_spec_ids_normalise(raw: str, key: str) -> None:
    assert spec_key(raw) == key


@pytest.mark.parametrize("raw", ["", "CRC-24A", "36212", "x" * 80, "TS 36.2123"])
def test_bad_spec_ids_are_refused(raw: str) -> None:
    with pytest.raises(InvalidInput) as info:
        spec_key(raw)
    assert info.value.argument == "spec"


def test_clause_and_table_ids() -> None:
    assert clause_id("5.1.3.2.3") == "5.1.3.2.3"
    assert clause_id("clause 5.1.3") == "5.1.3"
    assert clause_id("Annex A.2") == "A.2"
    assert table_id("Table 5.1.3-3") == "5.1.3-3"
    assert table_id("5.1.3-3") == "5.1.3-3"
    assert table_id("Table 5.3.1.1-1:") == "5.3.1.1-1"
    assert display_spec("36.212") == "TS 36.212"
    for bad in ("5..1", "five", ""):
        with pytest.raises(InvalidInput):
            clause_id(bad)
    with pytest.raises(InvalidInput):
        table_id("the big table")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see clause 5.1.3.2.3", {"5.1.3.2.3", "clause_5.1.3.2.3", "5.1.3.2"}),
        ("Table 5.1.3-3: Turbo", {"table_5.1.3-3", "5.1.3-3", "5.1.3", "table"}),
        ("TS 36.212", {"ts_36.212", "36.212"}),
        ("the polynomial of CRC-24A", {"crc-24a", "crc24a", "crc", "24a", "polynomial"}),
        ("c_init = n_RNTI", {"c_init", "init", "n_rnti", "rnti"}),
        ("N_RB^DL", {"n_rb^dl", "n_rb", "rb", "dl"}),
    ],
)
def test_tokenizer_keeps_3gpp_tokens_whole_and_indexes_parts(text: str, expected: set) -> None:
    assert expected <= set(tokens(text))


def test_tokenizer_drops_stopwords_and_dedupes_queries() -> None:
    assert "the" not in tokens("the polynomial of the code")
    assert query_tokens("crc crc crc CRC") == ["crc"]


def test_letter_suffixed_clause_and_table_ids() -> None:
    from silicon_agent.servers.spec_rag.document import caption_id, split_heading
    from silicon_agent.servers.spec_rag.ids import clause_id, table_id

    assert [clause_id(c) for c in ("5.2.2.6A", "4.1A", "6.1.3.1a", "clause 4.3.5.1A.1")] == [
        "5.2.2.6A",
        "4.1A",
        "6.1.3.1a",
        "4.3.5.1A.1",
    ]
    assert clause_id("annex b.3") == "B.3"
    ids = ("4.1A-1", "6.2.1-1a", "5.2.2.6-A", "5.2.2.6.1-1A-1", "Table 5.1.3-3")
    assert [table_id(t) for t in ids] == [
        "4.1A-1",
        "6.2.1-1a",
        "5.2.2.6-A",
        "5.2.2.6.1-1A-1",
        "5.1.3-3",
    ]
    # every caption form of real specs: colon, no colon, bare id
    assert caption_id("Table 5.1.3-3: Turbo code internal interleaver parameters") == (
        "5.1.3-3",
        "Turbo code internal interleaver parameters",
    )
    assert caption_id("Table 5.1.4-1 Inter-column permutation pattern") == (
        "5.1.4-1",
        "Inter-column permutation pattern",
    )
    assert caption_id("Table 4.1-1") == ("4.1-1", "")
    assert caption_id("Table 4.1A-1: UE categories") == ("4.1A-1", "UE categories")
    assert split_heading("5.3.3.1.5D Format 2D") == ("5.3.3.1.5D", "Format 2D")
