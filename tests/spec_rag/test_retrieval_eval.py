"""Retrieval evaluation: labelled questions over the generated corpus, three retrievers.

Prints recall@1/@5/@10 and MRR for BM25 alone, vectors alone and the fusion; asserts only
floors that a broken retriever (or tokenizer, or fusion) would fall under.
"""

from __future__ import annotations

from collections.abc import Callable

from silicon_agent.servers.spec_rag.api import SpecLibrary
from silicon_agent.servers.spec_rag.lexical_tokens import query_tokens
from tests.spec_rag.corpus import QUESTIONS

Ranker = Callable[[str], list[int]]


def _metrics(library: SpecLibrary, rank: Ranker) -> dict[str, float]:
    recall = {1: 0, 5: 0, 10: 0}
    reciprocal = 0.0
    for question, spec, clause in QUESTIONS:
        ids = rank(question)[:10]
        rows = library.catalog.chunks(ids)
        labels = [(rows[i].spec, rows[i].clause) for i in ids if i in rows]
        position = next((n for n, lab in enumerate(labels, 1) if lab == (spec, clause)), None)
        if position is not None:
            reciprocal += 1.0 / position
            for k in recall:
                recall[k] += position <= k
    n = len(QUESTIONS)
    return {f"recall@{k}": v / n for k, v in recall.items()} | {"mrr": reciprocal / n}


def test_retrieval_quality_of_bm25_vectors_and_fusion(library: SpecLibrary) -> None:
    assert len(QUESTIONS) >= 40
    specs = [d.spec for d in library.catalog.docs()]
    embedder = library.embedder
    assert embedder is not None

    # one batch: the same vectors feed "vectors alone" and the fusion
    vectors_of = dict(
        zip((q for q, _, _ in QUESTIONS), embedder.embed([q for q, _, _ in QUESTIONS]), strict=True)
    )

    def bm25(question: str) -> list[int]:
        return [i for i, _ in library.lexical.search(query_tokens(question), 10)]

    def vectors(question: str) -> list[int]:
        return [i for i, _ in library.vectors.query(vectors_of[question], specs, 10)]

    def fusion(question: str) -> list[int]:
        result = library.search_sync(question, top_k=10, query_vector=vectors_of[question])
        assert result.retrievers == ["bm25", "vector"]
        return [h.chunk_id for h in result.hits]

    table = {
        name: _metrics(library, fn)
        for name, fn in (("bm25", bm25), ("vector", vectors), ("fusion", fusion))
    }
    print(f"\nretrieval over {len(QUESTIONS)} labelled questions")
    print(f"{'retriever':<10}{'R@1':>8}{'R@5':>8}{'R@10':>8}{'MRR':>8}")
    for name, m in table.items():
        print(
            f"{name:<10}{m['recall@1']:>8.3f}{m['recall@5']:>8.3f}{m['recall@10']:>8.3f}"
            f"{m['mrr']:>8.3f}"
        )
    assert table["fusion"]["recall@10"] >= 0.8
    assert table["fusion"]["mrr"] >= 0.5
    assert table["bm25"]["recall@10"] >= 0.6
    assert table["vector"]["recall@10"] >= 0.5


def test_search_results_cite_the_answering_clause(library: SpecLibrary) -> None:
    result = library.search_sync("the polynomial of CRC-24A", top_k=5)
    top = result.hits[0]
    assert (top.citation.spec, top.citation.version, top.citation.clause) == (
        "TS 36.212",
        "15.6.0",
        "5.1.1",
    )
    assert top.citation.title == "CRC calculation" and top.citation.page == 2
    assert "g_CRC24A(D) = [D^24 + D^23" in top.text
    assert top.scores.bm25 is not None and top.scores.vector is not None
    assert result.search_ms is not None and result.embed_ms is not None


def test_spec_and_content_type_filters(library: SpecLibrary) -> None:
    only_211 = library.search_sync(
        "scrambling sequence initialisation", top_k=10, spec="TS 136 211"
    )
    assert only_211.hits and {h.citation.spec for h in only_211.hits} == {"TS 36.211"}
    tables = library.search_sync("turbo interleaver parameters", top_k=10, content_type="table")
    assert tables.hits and {h.content_type for h in tables.hits} == {"table"}
    assert tables.hits[0].citation.clause == "5.1.3.2.3"
    formulas = library.search_sync("c_init", top_k=3, spec="36.211", content_type="equation")
    assert formulas.hits[0].text.count("c_init = n_RNTI · 2^14") == 1
