"""The role prompts, kept as text files under `prompts/` (shipped as package data): the
design-loop roles, the planning roles and the shared parts they include."""

from __future__ import annotations

from functools import cache
from pathlib import Path

PROMPTS_DIR = Path(__file__).resolve().with_name("prompts")

ROLE_TITLES: dict[str, str] = {
    "orchestrator": "Orchestrator",
    "spec_librarian": "Spec Librarian",
    "rtl_engineer": "RTL Engineer",
    "verification_engineer": "Verification Engineer",
    "judge": "Judge",
    "reflection_debug": "Reflection/Debug",
    "pnr_lead": "PnR Lead",
}
PLANNING_TITLES: dict[str, str] = {
    "spec_helper": "Spec Helper",
    "planner": "Planner",
    "integrator": "Integrator",
}


@cache
def part(name: str) -> str:
    """A shared prompt part (`rtl_coding_rules`, `fix_only`, `rework`, `ask_instead`)."""
    return (PROMPTS_DIR / "parts" / f"{name}.md").read_text().rstrip("\n")


def _load(folder: str, roles: dict[str, str]) -> dict[str, str]:
    # A role file names the parts it includes as {part}; str.format would choke on braces
    # elsewhere in a prompt, so only the known part names are replaced.
    texts = {}
    for role in roles:
        text = (PROMPTS_DIR / folder / f"{role}.md").read_text().rstrip("\n")
        for name in ("rtl_coding_rules", "fix_only"):
            text = text.replace("{" + name + "}", part(name))
        texts[role] = text
    return texts


RTL_CODING_RULES = part("rtl_coding_rules")
FIX_ONLY = part("fix_only")
REWORK = part("rework")
ASK_INSTEAD = part("ask_instead")
ROLE_PROMPTS: dict[str, str] = _load("roles", ROLE_TITLES)
PLANNING_PROMPTS: dict[str, str] = _load("planning", PLANNING_TITLES)
ALL_TITLES: dict[str, str] = {**ROLE_TITLES, **PLANNING_TITLES}
ALL_PROMPTS: dict[str, str] = {**ROLE_PROMPTS, **PLANNING_PROMPTS}


def role_prompt(role: str) -> str:
    return ALL_PROMPTS[role]
