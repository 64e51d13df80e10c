"""MCP server `mcp-spec-rag`: the Spec Librarian, a thin layer over servers.spec_rag.api.

`mcp-spec-rag [--workspace DIR] [--store DIR] [--embedder onnx-int8|local|onnx|ollama:M|...]
[--embed-url URL] [--transport stdio|streamable-http]`.
"""

from __future__ import annotations

import argparse
import gc
import sys
import threading
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from silicon_agent.servers.core.mcp_app import make_server, serve
from silicon_agent.servers.core.workspace import Workspace

from .api import SpecLibrary
from .embedders import make_embedder
from .tools import REGISTRY

LIBRARIAN_RULES = """You are the Spec Librarian. Rules:
1. No citation, no answer: every statement about a specification quotes text returned by the
   spec_rag tools, followed by its citation as [TS 36.212 V15.6.0, clause 5.1.3.2.3, p. 4].
2. Quote exactly; tables as their rows (extract_table); never fill gaps from memory.
3. If search returns no_match or a tool returns not_found, say "I cannot find this in the
   ingested specifications" and name what you searched; do not guess.
4. Prefer fetch_section for the full clause once search has located it; follow
   resolve_references when the clause points elsewhere."""


def build(
    workspace: Workspace,
    store: Path | None = None,
    embedder: str | None = None,
    embed_url: str | None = None,
) -> MCPServer:
    library = SpecLibrary(workspace, store, make_embedder(embedder, embed_url))
    server = make_server(REGISTRY, library, workspace)
    # the model, the BM25 index and the collections load while the client starts up, not
    # inside its first search
    threading.Thread(target=_warm, args=(library,), name="spec-rag-warm", daemon=True).start()

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

    return server


def _warm(library: SpecLibrary) -> None:
    try:
        library.warm()
    except Exception:  # a failure here shows again, as a structured result, on first use
        pass
    # the model, the store's clients and the server's own objects live as long as the process:
    # a full collection no longer walks them (one every few hundred searches, the p95 spikes)
    gc.collect()
    gc.freeze()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--store", help="store directory (default: .silicon-agent/spec_rag)")
    parser.add_argument(
        "--embedder",
        help="onnx-int8 (default) | local | onnx | ollama:MODEL | openai:MODEL | none",
    )
    parser.add_argument("--embed-url", help="embedding endpoint base URL")
    own, rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    store = Path(own.store).resolve() if own.store else None
    serve(lambda ws: build(ws, store, own.embedder, own.embed_url), REGISTRY.server, rest)


if __name__ == "__main__":
    main()
