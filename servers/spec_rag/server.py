"""MCP server `mcp-spec-rag`: the Spec Librarian, a thin layer over servers.spec_rag.api.

`mcp-spec-rag [--workspace DIR] [--store DIR] [--embedder local|ollama:M|openai:M|none]
[--embed-url URL] [--transport stdio|streamable-http]`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from host.roles.prompts import register_role_prompts
from servers.core.jobs import JobManager
from servers.core.mcp_app import add_job_tools, mcp_progress, serve
from servers.core.workspace import Workspace

from .api import SpecLibrary
from .embedders import make_embedder
from .models import (
    IngestResult,
    ReferencesResult,
    RemoveResult,
    SearchResult,
    SectionResult,
    SpecList,
    TableResult,
)

INSTRUCTIONS = """Spec Librarian over the user's own 3GPP/ETSI specification files.
Quote, never paraphrase: every hit, section and table carries a citation {spec, version,
clause, title, page}; answer only with cited text, and say so when status is not_found or
no_match. Specs: '36.212', 'TS 36.212' or ETSI 'TS 136 212'; clauses '5.1.3.2.3'; tables
'5.1.3-3' or 'Table 5.1.3-3'. Start with list_specs; search finds the clause, fetch_section
gives its exact text, extract_table its rows, resolve_references the clauses and tables it
points to. ingest(path) reads a PDF, DOCX or zip holding a DOCX; for a big file use
job_start(operation='ingest', arguments={'path': ...}) and poll job_status / job_result."""

LIBRARIAN_RULES = """You are the Spec Librarian. Rules:
1. No citation, no answer: every statement about a specification quotes text returned by the
   spec_rag tools, followed by its citation as [TS 36.212 V15.6.0, clause 5.1.3.2.3, p. 4].
2. Quote exactly; tables as their rows (extract_table); never fill gaps from memory.
3. If search returns no_match or a tool returns not_found, say "I cannot find this in the
   ingested specifications" and name what you searched; do not guess.
4. Prefer fetch_section for the full clause once search has located it; follow
   resolve_references when the clause points elsewhere."""

ContentType = Literal["prose", "table", "equation"]


def build(
    workspace: Workspace,
    store: Path | None = None,
    embedder: str | None = None,
    embed_url: str | None = None,
) -> MCPServer:
    library = SpecLibrary(workspace, store, make_embedder(embedder, embed_url))
    server = MCPServer("silicon-agent-spec-rag", instructions=INSTRUCTIONS)
    jobs = JobManager({"ingest": lambda args, progress: library.ingest(**args, progress=progress)})

    @server.tool()
    async def search(
        query: str,
        top_k: int = 10,
        spec: str | None = None,
        content_type: ContentType | None = None,
    ) -> SearchResult:
        """Hybrid search (BM25 with 3GPP-aware tokens + vectors, fused by reciprocal rank) over
        the ingested specs. Each hit is verbatim stored text with its citation and the score
        from each retriever. `spec` limits to one spec; `content_type` to prose/table/equation."""
        return await library.search(query, top_k, spec, content_type)

    @server.tool()
    async def fetch_section(spec: str, clause: str, page: int = 1) -> SectionResult:
        """The exact text of a clause and its sub-clauses with its citation; long sections
        come in pages (`page`, `pages`, `has_more`). A missing clause is status not_found
        with nearby existing clauses as suggestions."""
        return await library.fetch_section(spec, clause, page)

    @server.tool()
    async def resolve_references(spec: str, clause: str) -> ReferencesResult:
        """The clauses and tables a clause refers to ('see clause X', 'subclause X',
        'Table X'), each with its text and citation, or found=false."""
        return await library.resolve_references(spec, clause)

    @server.tool()
    async def extract_table(
        spec: str,
        table_id: str,
        layout: Literal["logical", "original"] = "logical",
        cell_format: Literal["joined", "paragraphs"] = "joined",
    ) -> TableResult:
        """A table as meant: merged multi-row headers as column names, a grouped side-by-side
        layout unfolded into logical rows (layout='original' gives the rows as printed), note
        rows and footnotes in `notes`; a table split across pages comes back whole. A cell's
        paragraphs are joined by newlines, or listed with cell_format='paragraphs'. E.g.
        table_id '5.1.3-3', 'Table 4.1A-1' or '6.2.1-1a'."""
        return await library.extract_table(spec, table_id, layout, cell_format)

    @server.tool()
    async def list_specs() -> SpecList:
        """The ingested specs with version, source file and counts."""
        return await library.list_specs()

    @server.tool()
    async def ingest(
        path: str, spec: str | None = None, replace: bool = False, ctx: Context | None = None
    ) -> IngestResult:
        """Ingest a spec file from the workspace: PDF (bookmarks give the clause tree), DOCX
        or a 3GPP zip holding a DOCX. Spec id and version are read from the document (`spec`
        overrides a missing one). An unchanged file is a no-op; a spec already in the store
        is status 'exists' unless replace=true. Long files: use job_start(operation='ingest')."""
        return await library.ingest(path, spec, mcp_progress(ctx), replace)

    @server.tool()
    async def remove(spec: str) -> RemoveResult:
        """Remove a spec and all its chunks, tables and vectors from the store."""
        return await library.remove(spec)

    @server.resource("spec://{spec}/{clause}", mime_type="text/plain")
    async def section(spec: str, clause: str) -> str:
        """The exact text of a clause (first page), headed by its citation."""
        found = await library.fetch_section(spec, clause)
        if found.status != "found" or found.citation is None:
            message = found.error.message if found.error else "not found"
            raise ResourceError(message)
        c = found.citation
        page = f", p. {c.page}" if c.page else ""
        more = "\n\n[more: fetch_section page 2]" if found.has_more else ""
        return f"[{c.spec} V{c.version}, clause {c.clause}{page}]\n\n{found.text}{more}"

    @server.prompt()
    def spec_librarian(question: str) -> str:
        """Answer a question from the specifications under the no-citation-no-answer rule."""
        return f"{LIBRARIAN_RULES}\n\nQuestion: {question}"

    add_job_tools(server, jobs)
    register_role_prompts(server)
    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--store", help="store directory (default: .silicon-agent/spec_rag)")
    parser.add_argument(
        "--embedder", help="local (default) | onnx | ollama:MODEL | openai:MODEL | none"
    )
    parser.add_argument("--embed-url", help="embedding endpoint base URL")
    own, rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    store = Path(own.store).resolve() if own.store else None
    serve(lambda ws: build(ws, store, own.embedder, own.embed_url), "mcp-spec-rag", rest)


if __name__ == "__main__":
    main()
