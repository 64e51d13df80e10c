"""The planning-phase roles' prompts (Specification Helper, Planner, Integration); the texts
live in `suite.roles`."""

from __future__ import annotations

from silicon_agent.suite.roles import ASK_INSTEAD, PLANNING_PROMPTS

__all__ = ["ASK_INSTEAD", "PLANNING_PROMPTS"]
