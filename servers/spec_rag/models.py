"""The tool results: every quoted text carries a citation {spec, version, clause, title, page}."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from silicon_agent.servers.core.workspace import InvalidInput

ContentType = Literal["prose", "table", "equation"]


class ErrorInfo(BaseModel):
    message: str
    argument: str | None = None
    hint: str | None = None

    @classmethod
    def of(cls, exc: InvalidInput) -> ErrorInfo:
        return cls(message=str(exc), argument=exc.argument, hint=exc.hint)


class Citation(BaseModel):
    spec: str = Field(description="e.g. 'TS 36.212'")
    version: str = Field(description="e.g. '15.6.0'")
    clause: str
    title: str
    page: int | None = Field(None, description="1-based PDF page; absent for DOCX sources")

    @model_serializer(mode="wrap")
    def _drop_missing_page(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        # a DOCX has no pages: the field is left out rather than sent as null
        data = handler(self)
        if data.get("page") is None:
            data.pop("page", None)
        return data


class Scores(BaseModel):
    fused: float = Field(description="reciprocal rank fusion score (the ranking)")
    bm25: float | None = None
    bm25_rank: int | None = None
    vector: float | None = Field(None, description="cosine similarity")
    vector_rank: int | None = None


class Hit(BaseModel):
    text: str = Field(description="the stored text, verbatim")
    content_type: ContentType
    clause_path: str
    citation: Citation
    scores: Scores
    chunk_id: int
    subclause_hits: list[str] = Field(
        [],
        description="sub-clauses of this clause that also match, ranked before it: the "
        "deepest clause holding the answer comes first",
    )


class SearchResult(BaseModel):
    status: Literal["ok", "no_match", "empty_store", "invalid_input"]
    query: str = ""
    hits: list[Hit] = []
    retrievers: list[str] = Field([], description="which retrievers ran: bm25, vector")
    note: str | None = None
    embed_ms: float | None = Field(None, description="time to embed the query")
    search_ms: float | None = Field(None, description="retrieval and fusion, without embedding")
    error: ErrorInfo | None = None


class SectionResult(BaseModel):
    status: Literal["found", "not_found", "invalid_input"]
    spec: str = ""
    clause: str = ""
    citation: Citation | None = None
    text: str = Field("", description="exact text of the clause and its sub-clauses (this page)")
    page: int = Field(1, description="result page (not PDF page) of a long section")
    pages: int = 0
    has_more: bool = False
    subclauses: list[str] = []
    suggestions: list[str] = Field([], description="existing clauses near a missing one")
    error: ErrorInfo | None = None


class Reference(BaseModel):
    kind: Literal["clause", "table", "document"]
    target: str = Field(description="clause or table number; for a document, its spec id")
    mention: str = Field(description="the words in the clause that make the reference")
    found: bool
    spec: str | None = Field(None, description="the spec the reference points into")
    version: str | None = Field(None, description="its version as the reference list gives it")
    reference: str | None = Field(None, description="the reference-list label, e.g. '[5]'")
    note: str | None = Field(None, description="why it was not followed, when found is false")
    citation: Citation | None = None
    text: str | None = Field(None, description="target text (a table as its rows), trimmed")
    truncated: bool = False


class ReferencesResult(BaseModel):
    status: Literal["found", "not_found", "invalid_input"]
    spec: str = ""
    clause: str = ""
    citation: Citation | None = None
    references: list[Reference] = []
    error: ErrorInfo | None = None


class TableResult(BaseModel):
    status: Literal["found", "not_found", "invalid_input"]
    spec: str = ""
    table_id: str = ""
    caption: str = ""
    citation: Citation | None = None
    layout: Literal["logical", "original"] = "logical"
    header: list[str] = Field([], description="column names (multi-row headers merged)")
    header_rows: list[list[str]] = Field([], description="the header rows as laid out")
    rows: list[list[str]] = Field(
        [], description="cells; a cell's paragraphs are joined by newlines"
    )
    cells: list[list[list[str]]] | None = Field(
        None, description="with cell_format='paragraphs': each cell as its list of paragraphs"
    )
    notes: list[str] = Field([], description="note rows and footnotes of the table")
    row_count: int = 0
    suggestions: list[str] = []
    error: ErrorInfo | None = None


class SpecInfo(BaseModel):
    spec: str = Field(description="e.g. 'TS 36.212'")
    key: str = Field(description="canonical key, e.g. '36.212'")
    version: str
    title: str
    source: str
    pages: int | None
    clauses: int
    tables: int
    chunks: int
    embedder: str | None = Field(description="embedder of its vectors; None = BM25 only")
    ingested_at: float
    formulas_extracted: int = Field(0, description="formulas read as text")
    formulas_marked: int = Field(0, description="formulas left as a '[formula: ...]' marker")


class SpecList(BaseModel):
    specs: list[SpecInfo]
    store: str
    embedder: str | None
    note: str | None = None


class IngestResult(BaseModel):
    status: Literal[
        "ingested",
        "replaced",
        "unchanged",
        "exists",
        "invalid_input",
        "unreadable",
        "not_a_spec",
    ]
    source: str = ""
    spec: str = ""
    version: str = ""
    pages: int | None = None
    clauses: int = 0
    tables: int = 0
    chunks: int = 0
    vectors: bool = False
    formulas_extracted: int = 0
    formulas_marked: int = 0
    seconds: float = 0.0
    note: str | None = None
    error: ErrorInfo | None = None


class RemoveResult(BaseModel):
    status: Literal["removed", "not_found", "invalid_input"]
    spec: str = ""
    chunks_removed: int = 0
    error: ErrorInfo | None = None
