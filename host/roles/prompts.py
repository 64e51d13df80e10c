"""The host's view of the role prompts: the texts live in `suite.roles` (the servers serve the
same texts as MCP prompts `role_<name>`); here only which tools each role may call itself."""

from __future__ import annotations

from silicon_agent.suite.roles import FIX_ONLY, REWORK, ROLE_PROMPTS, ROLE_TITLES, role_prompt

__all__ = ["FIX_ONLY", "REWORK", "ROLE_PROMPTS", "ROLE_TITLES", "ROLE_TOOLS", "role_prompt"]

ROLE_TOOLS: dict[str, tuple[str, ...]] = {
    # server.tool names a role may call itself; everything else the host calls for it.
    "spec_librarian": (
        "spec_rag.search",
        "spec_rag.fetch_section",
        "spec_rag.resolve_references",
        "spec_rag.extract_table",
        "spec_rag.list_specs",
    ),
    "rtl_engineer": ("verilator.lint",),  # through check_draft, on its draft only
    "reflection_debug": (),
    "verification_engineer": ("verilator.lint", "iverilog.compile"),
    "judge": (),
    "pnr_lead": (),
    "orchestrator": (),
}
