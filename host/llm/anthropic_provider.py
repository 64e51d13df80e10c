"""Anthropic Messages API over httpx. Tools are {name, description, input_schema}; replies
carry tool_use blocks answered with tool_result blocks; a JSON answer is a forced tool call."""

from __future__ import annotations

import os
import time
from typing import Any

import httpx

from .base import post_json
from .types import (
    FINAL_TOOL,
    GenParams,
    LLMResponse,
    Message,
    ProviderError,
    ToolCall,
    ToolSpec,
    Usage,
)
from .wire import FINAL_DESCRIPTION

API_VERSION = "2023-06-01"


def anthropic_messages(messages: list[Message]) -> tuple[str, list[dict[str, Any]]]:
    """System text apart; consecutive tool results merged into one user turn, as the API asks."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        if message.role == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id,
                "content": message.content,
            }
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
            continue
        if message.role == "assistant" and message.tool_calls:
            blocks: list[dict[str, Any]] = []
            if message.content:
                blocks.append({"type": "text", "text": message.content})
            blocks += [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                for c in message.tool_calls
            ]
            out.append({"role": "assistant", "content": blocks})
            continue
        out.append({"role": message.role, "content": message.content})
    return system, out


class AnthropicProvider:
    def __init__(
        self,
        base_url: str = "https://api.anthropic.com",
        api_key_env: str = "ANTHROPIC_API_KEY",
        name: str = "anthropic",
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        self._api_key = os.environ.get(api_key_env, "")
        self._client = client

    def request_body(
        self,
        messages: list[Message],
        tools: list[ToolSpec] | None,
        schema: dict[str, Any] | None,
        params: GenParams,
    ) -> dict[str, Any]:
        system, converted = anthropic_messages(messages)
        body: dict[str, Any] = {
            "model": params.model,
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
            "messages": converted,
        }
        if system:
            body["system"] = system
        offered = [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in tools or []
        ]
        if schema is not None:
            offered.append(
                {"name": FINAL_TOOL, "description": FINAL_DESCRIPTION, "input_schema": schema}
            )
            # No other tools: force the answer tool; with tools: any tool, answer included.
            body["tool_choice"] = (
                {"type": "tool", "name": FINAL_TOOL} if not tools else {"type": "any"}
            )
        if offered:
            body["tools"] = offered
        return body

    async def generate(
        self,
        messages: list[Message],
        tools: list[ToolSpec] | None,
        schema: dict[str, Any] | None,
        params: GenParams,
    ) -> LLMResponse:
        body = self.request_body(messages, tools, schema, params)
        headers = {
            "x-api-key": self._api_key,
            "anthropic-version": API_VERSION,
            "content-type": "application/json",
        }
        started = time.monotonic()
        client = self._client or httpx.AsyncClient()
        try:
            data = await post_json(
                client, f"{self.base_url}/v1/messages", body, headers, params.timeout_s
            )
        finally:
            if self._client is None:
                await client.aclose()
        if data.get("type") == "error":
            error = data.get("error") or {}
            raise ProviderError(
                f"anthropic error {error.get('type')}: {error.get('message')}",
                retryable=error.get("type")
                in {"overloaded_error", "rate_limit_error", "api_error"},
            )
        texts: list[str] = []
        thinking: list[str] = []
        calls: list[ToolCall] = []
        structured: dict[str, Any] | None = None
        for block in data.get("content") or []:
            kind = block.get("type")
            if kind == "text":
                texts.append(block.get("text", ""))
            elif kind == "thinking":
                thinking.append(block.get("thinking", ""))
            elif kind == "tool_use":
                if block.get("name") == FINAL_TOOL:
                    structured = dict(block.get("input") or {})
                else:
                    calls.append(
                        ToolCall(
                            id=block.get("id", ""),
                            name=block.get("name", ""),
                            arguments=dict(block.get("input") or {}),
                        )
                    )
        usage = data.get("usage") or {}
        return LLMResponse(
            text="".join(texts),
            structured=structured,
            tool_calls=calls,
            reasoning="".join(thinking) or None,
            usage=Usage(
                input_tokens=int(usage.get("input_tokens") or 0),
                output_tokens=int(usage.get("output_tokens") or 0),
            ),
            latency_s=time.monotonic() - started,
            provider=self.name,
            model=data.get("model") or params.model,
            finish_reason=data.get("stop_reason"),
        )
