"""The provider interface every backend implements, and the HTTP helpers they share."""

from __future__ import annotations

import json
import uuid
from typing import Any, Protocol, runtime_checkable

import httpx

from .types import GenParams, LLMResponse, Message, ModelUnreachable, ProviderError, ToolSpec

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


@runtime_checkable
class Provider(Protocol):
    name: str

    async def generate(
        self,
        messages: list[Message],
        tools: list[ToolSpec] | None,
        schema: dict[str, Any] | None,
        params: GenParams,
    ) -> LLMResponse:
        """One model call. With `schema` the final answer is JSON for it (in `structured`);
        with `tools` the model may instead ask for tool calls."""
        ...


def new_call_id() -> str:
    return "call_" + uuid.uuid4().hex[:16]


def parse_json_arguments(raw: Any) -> dict[str, Any]:
    """Tool arguments arrive as a JSON string (OpenAI) or an object (Ollama, Anthropic)."""
    if isinstance(raw, dict):
        return raw
    if raw in (None, ""):
        return {}
    try:
        value = json.loads(raw)
    except (TypeError, json.JSONDecodeError) as exc:
        raise ProviderError(f"tool arguments are not JSON: {exc}", retryable=False) from exc
    if not isinstance(value, dict):
        raise ProviderError("tool arguments are not a JSON object", retryable=False)
    return value


def retry_after_s(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


async def post_json(
    client: httpx.AsyncClient,
    url: str,
    body: dict[str, Any],
    headers: dict[str, str],
    timeout_s: float,
) -> dict[str, Any]:
    """POST and classify failures; the error text never includes request headers (keys)."""
    try:
        response = await client.post(url, json=body, headers=headers, timeout=timeout_s)
    except httpx.TimeoutException as exc:
        raise ProviderError(f"timeout after {timeout_s:.0f} s: {url}", retryable=True) from exc
    except httpx.ConnectError as exc:
        raise ModelUnreachable(url, f"{type(exc).__name__}: {exc}"[:200]) from exc
    except httpx.TransportError as exc:
        raise ProviderError(f"transport error: {type(exc).__name__}", retryable=True) from exc
    if response.status_code >= 400:
        error = ProviderError(
            f"HTTP {response.status_code} from {url}: {response.text[:300]}",
            retryable=response.status_code in RETRYABLE_STATUS,
            status=response.status_code,
        )
        error.retry_after_s = retry_after_s(response)  # type: ignore[attr-defined]
        raise error
    try:
        data = response.json()
    except json.JSONDecodeError as exc:
        raise ProviderError(f"reply is not JSON: {response.text[:200]}", retryable=True) from exc
    if not isinstance(data, dict):
        raise ProviderError("reply is not a JSON object", retryable=False)
    return data
