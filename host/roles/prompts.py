"""The host's view of the role prompts: the texts live in `suite.roles` (the servers serve the
same texts as MCP prompts `role_<name>`); here only which tools each role may call itself."""

from __future__ import annotations

from silicon_agent.suite.roles import FIX_ONLY, REWORK, ROLE_PROMPTS, ROLE_TITLES, role_prompt
from silicon_agent.suite.servers import SERVER_NAMES

__all__ = [
    "FIX_ONLY",
    "HOST_TOOLS",
    "REWORK",
    "ROLE_PROMPTS",
    "ROLE_TITLES",
    "ROLE_TOOLS",
    "role_prompt",
]

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

# The tools the host calls itself for a step, by what it uses them for: the loop names a use,
# never a server (the simulators a block's verification names come from the design file).
HOST_TOOLS: dict[str, str] = {
    "lint": "verilator.lint",
    "compile": "iverilog.compile",
    "explain": "vcd.explain_mismatch",
    "handshakes": "vcd.handshake_stats",
    "synthesize": "openlane.synthesize",
    "advise": "openlane.advise",
    "spec_list": "spec_rag.list_specs",
    "spec_fetch": "spec_rag.fetch_section",
}
for _name in (*HOST_TOOLS.values(), *(n for names in ROLE_TOOLS.values() for n in names)):
    if _name.split(".", 1)[0] not in SERVER_NAMES:
        raise ValueError(f"{_name}: not a server of the suite (suite/servers.py)")
