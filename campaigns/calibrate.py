"""A task of known length, for measuring what an executor adds per task."""

from __future__ import annotations

import time

from silicon_agent.campaigns.task import Outcome


def busy_task(seconds: float) -> Outcome:
    """Keep one core busy for ``seconds`` (a stand-in for a simulation of that length)."""
    end = time.perf_counter() + seconds
    spins = 0
    while time.perf_counter() < end:
        spins += 1
    return Outcome(ok=True, data={"seconds": seconds})
