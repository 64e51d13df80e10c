"""The `mcp-spec-rag` tool registry: what each tool is, over `SpecLibrary`'s methods."""

from __future__ import annotations

from silicon_agent.servers.core.registry import READS, REPLACES, Hints, Registry, Tool
from silicon_agent.servers.core.server_info import wheel_info

from .api import MAX_QUERY_CHARS

INSTRUCTIONS = """Spec Librarian over the user's own 3GPP/ETSI specification files.
Quote, never paraphrase: every hit, section and table carries a citation {spec, version,
clause, title, page}; answer only with cited text, and say so when status is not_found or
no_match. Specs: '36.212', 'TS 36.212' or ETSI 'TS 136 212'; clauses '5.1.3.2.3'; tables
'5.1.3-3' or 'Table 5.1.3-3'. Start with list_specs; search finds the clause, fetch_section
gives its exact text, extract_table its rows, resolve_references the clauses and tables it
points to. ingest(path) reads a PDF, DOCX or zip holding a DOCX; for a big file use
job_start(operation='ingest', arguments={'path': ...}) and poll job_status / job_result."""

REGISTRY = Registry(
    server="spec_rag",
    title="Spec Librarian",
    instructions=INSTRUCTIONS,
    toolchain=lambda: [wheel_info(n) for n in ("chromadb", "bm25s", "pdfplumber", "python-docx")],
    tools=(
        Tool(
            name="search",
            method="search",
            title="Search the specifications",
            description="""Hybrid search (BM25 with 3GPP-aware tokens + vectors, fused by
reciprocal rank) over the ingested specs. Each hit is verbatim stored text with its citation
and the score from each retriever. `spec` limits to one spec; `content_type` to
prose/table/equation.""",
            hints=READS,
            limits={"query": f"<= {MAX_QUERY_CHARS} characters"},
        ),
        Tool(
            name="fetch_section",
            method="fetch_section",
            title="Fetch a clause",
            description="""The exact text of a clause and its sub-clauses with its citation;
long sections come in pages (`page`, `pages`, `has_more`). A missing clause is status
not_found with nearby existing clauses as suggestions.""",
            hints=READS,
        ),
        Tool(
            name="resolve_references",
            method="resolve_references",
            title="Resolve a clause's references",
            description="""The clauses and tables a clause refers to ('see clause X',
'subclause X', 'Table X'), each with its text and citation, or found=false.""",
            hints=READS,
        ),
        Tool(
            name="extract_table",
            method="extract_table",
            title="Extract a table",
            description="""A table as meant: merged multi-row headers as column names, a grouped
side-by-side layout unfolded into logical rows (layout='original' gives the rows as printed),
note rows and footnotes in `notes`; a table split across pages comes back whole. A cell's
paragraphs are joined by newlines, or listed with cell_format='paragraphs'. E.g. table_id
'5.1.3-3', 'Table 4.1A-1' or '6.2.1-1a'.""",
            hints=READS,
        ),
        Tool(
            name="list_specs",
            method="list_specs",
            title="List the ingested specs",
            description="The ingested specs with version, source file and counts.",
            hints=READS,
        ),
        Tool(
            name="ingest",
            method="ingest",
            title="Ingest a spec file",
            description="""Ingest a spec file from the workspace: PDF (bookmarks give the clause
tree), DOCX or a 3GPP zip holding a DOCX. Spec id and version are read from the document
(`spec` overrides a missing one). An unchanged file is a no-op; a spec already in the store
is status 'exists' unless replace=true. Long files: use job_start(operation='ingest').""",
            hints=REPLACES,
            job=True,
        ),
        Tool(
            name="remove",
            method="remove",
            title="Remove a spec",
            description="Remove a spec and all its chunks, tables and vectors from the store.",
            hints=Hints(read_only=False, destructive=True, idempotent=True),
        ),
    ),
)
