"""OpenAI-compatible chat completions over httpx: llama.cpp server, llama-cpp-python's server,
vLLM, TabbyAPI (exllamav2) and OpenAI itself, each with its own structured-output dialect."""

from __future__ import annotations

import os
import time
from typing import Any, Literal

import httpx

from .base import new_call_id, parse_json_arguments, post_json
from .types import GenParams, LLMResponse, Message, ProviderError, ToolCall, ToolSpec, Usage
from .wire import (
    openai_messages,
    openai_tools,
    parse_json_text,
    take_final_answer,
    with_final_tool,
)

Dialect = Literal["openai", "llamacpp", "llama-cpp-python", "vllm", "tabby"]


def structured_fields(dialect: Dialect, schema: dict[str, Any]) -> dict[str, Any]:
    """Where each server wants the JSON schema of a constrained answer."""
    if dialect == "llamacpp":
        # llama.cpp's server turns a top-level json_schema into a grammar.
        return {"json_schema": schema}
    if dialect == "llama-cpp-python":
        # Its server rejects response_format type json_schema; json_object + schema works.
        return {"response_format": {"type": "json_object", "schema": schema}}
    if dialect == "vllm":
        return {"structured_outputs": {"json": schema}}
    if dialect == "tabby":
        return {"json_schema": schema}
    return {
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema, "strict": False},
        }
    }


class OpenAICompatProvider:
    def __init__(
        self,
        base_url: str,
        dialect: Dialect = "openai",
        api_key_env: str | None = None,
        name: str = "openai-compat",
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.dialect = dialect
        # Read once from the environment; never put into logs, errors or run files.
        self._api_key = os.environ.get(api_key_env, "") if api_key_env else ""
        self._client = client

    def request_body(
        self,
        messages: list[Message],
        tools: list[ToolSpec] | None,
        schema: dict[str, Any] | None,
        params: GenParams,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": params.model,
            "messages": openai_messages(messages),
            "temperature": params.temperature,
            "max_tokens": params.max_tokens,
            "stream": False,
        }
        if params.seed is not None:
            body["seed"] = params.seed
        offered = with_final_tool(tools, schema)
        if offered:
            body["tools"] = openai_tools(offered)
            # With a final-answer tool the model must end in a tool call, never free text.
            body["tool_choice"] = "required" if schema is not None else "auto"
        elif schema is not None:
            body.update(structured_fields(self.dialect, schema))
        return body

    async def generate(
        self,
        messages: list[Message],
        tools: list[ToolSpec] | None,
        schema: dict[str, Any] | None,
        params: GenParams,
    ) -> LLMResponse:
        body = self.request_body(messages, tools, schema, params)
        headers = {"content-type": "application/json"}
        if self._api_key:
            headers["authorization"] = f"Bearer {self._api_key}"
        started = time.monotonic()
        client = self._client or httpx.AsyncClient()
        try:
            data = await post_json(
                client, f"{self.base_url}/chat/completions", body, headers, params.timeout_s
            )
        finally:
            if self._client is None:
                await client.aclose()
        return self.parse(data, schema, params, time.monotonic() - started)

    def parse(
        self, data: dict[str, Any], schema: dict[str, Any] | None, params: GenParams, latency: float
    ) -> LLMResponse:
        choices = data.get("choices") or []
        if not choices:
            raise ProviderError(f"reply has no choices: {str(data)[:200]}", retryable=False)
        message = choices[0].get("message") or {}
        calls = [
            ToolCall(
                id=call.get("id") or new_call_id(),
                name=(call.get("function") or {}).get("name", ""),
                arguments=parse_json_arguments((call.get("function") or {}).get("arguments")),
            )
            for call in message.get("tool_calls") or []
        ]
        usage = data.get("usage") or {}
        response = LLMResponse(
            text=message.get("content") or "",
            tool_calls=calls,
            reasoning=message.get("reasoning_content") or message.get("reasoning"),
            usage=Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
            ),
            latency_s=latency,
            provider=self.name,
            model=data.get("model") or params.model,
            finish_reason=choices[0].get("finish_reason"),
        )
        response = take_final_answer(response)
        if schema is not None and response.structured is None and not response.tool_calls:
            response.structured = parse_json_text(response.text)
        return response
