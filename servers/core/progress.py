"""Progress callbacks: one shape for MCP notifications, jobs and plain Python callers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

Progress = Callable[[float | None, str], Awaitable[None]]


async def no_progress(fraction: float | None, message: str) -> None:
    """The default for plain API callers that do not listen."""
