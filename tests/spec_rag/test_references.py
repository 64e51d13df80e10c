"""resolve_references: same-spec clauses and tables, another ingested spec, unfollowable ones."""

from __future__ import annotations

import pytest

from silicon_agent.servers.spec_rag.api import SpecLibrary, find_references


def test_reference_patterns() -> None:
    found = find_references(
        "see clause 5.1.3.2.3 and Table 5.1.3-3, subclause 6.3.1 of TS 36.211, "
        "clause 5.3 of [2], section 4 and see 7.2."
    )
    assert [(m.kind, m.target, m.spec, m.label) for m in found] == [
        ("clause", "5.1.3.2.3", None, None),
        ("table", "5.1.3-3", None, None),
        ("clause", "6.3.1", "TS 36.211", None),
        ("clause", "5.3", None, "[2]"),
        ("clause", "4", None, None),
        ("clause", "7.2", None, None),
    ]
    cited = find_references(
        "follows TS 36.331 [5], clause 6.3.6, and 3GPP TS 36.213 [3] clause 7.1; see [4] and "
        "clause 4.1A."
    )
    assert [(m.kind, m.target, m.spec, m.label) for m in cited] == [
        ("clause", "6.3.6", "TS 36.331", "[5]"),
        ("clause", "7.1", "3GPP TS 36.213", "[3]"),
        ("document", "", None, "[4]"),
        ("clause", "4.1A", None, None),
    ]


@pytest.mark.anyio
async def test_references_resolve_with_text_and_citations(library: SpecLibrary) -> None:
    seg = await library.resolve_references("36.212", "5.1.2")
    refs = {(r.kind, r.target): r for r in seg.references}
    assert set(refs) == {("table", "5.1.3-3"), ("clause", "5.1.1")}
    table = refs[("table", "5.1.3-3")]
    assert table.found and table.citation is not None
    assert table.citation.clause == "5.1.3.2.3" and table.citation.page == 4
    assert table.text is not None and table.text.startswith(
        "Table 5.1.3-3: Turbo code internal interleaver parameters\n"
        "i | K | f1 | f2\n1 | 40 | 3 | 10"
    )
    assert table.truncated  # 188 rows are more than the 2,000 characters a reference carries
    crc = refs[("clause", "5.1.1")]
    assert crc.found and crc.citation.title == "CRC calculation"  # type: ignore[union-attr]
    assert "g_CRC24A(D)" in (crc.text or "")

    other = await library.resolve_references("36.212", "5.3.2")
    by_target = {r.target: r for r in other.references}
    assert by_target["6.3.1"].found and by_target["6.3.1"].citation.spec == "TS 36.211"  # type: ignore[union-attr]
    assert "c_init" in (by_target["6.3.1"].text or "")
    assert by_target["5.1.3-1"].citation.spec == "TS 36.212"  # type: ignore[union-attr]

    rach = await library.resolve_references("36.212", "5.2.1")
    assert [(r.target, r.found) for r in rach.references] == [("5.7", False)]
