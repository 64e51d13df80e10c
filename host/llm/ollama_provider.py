"""Ollama through its own client: chat with tools, and `format=<schema>` for JSON answers.
Ollama's tool calls carry their arguments as an object and have no id, so we make one."""

from __future__ import annotations

import time
from typing import Any

import httpx

from .base import RETRYABLE_STATUS, new_call_id, parse_json_arguments
from .types import (
    GenParams,
    LLMResponse,
    Message,
    ModelUnreachable,
    ProviderError,
    ToolCall,
    ToolSpec,
    Usage,
)
from .wire import openai_tools, parse_json_text, take_final_answer, with_final_tool


def ollama_messages(messages: list[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        item: dict[str, Any] = {"role": message.role, "content": message.content}
        if message.tool_calls:
            item["tool_calls"] = [
                {"function": {"name": c.name, "arguments": c.arguments}} for c in message.tool_calls
            ]
        if message.role == "tool" and message.name:
            item["tool_name"] = message.name
        out.append(item)
    return out


class OllamaProvider:
    def __init__(self, host: str = "http://127.0.0.1:11434", name: str = "ollama") -> None:
        self.name = name
        self.host = host

    async def generate(
        self,
        messages: list[Message],
        tools: list[ToolSpec] | None,
        schema: dict[str, Any] | None,
        params: GenParams,
    ) -> LLMResponse:
        import ollama  # the optional `llm` extra

        client = ollama.AsyncClient(host=self.host, timeout=params.timeout_s)
        options: dict[str, Any] = {
            "temperature": params.temperature,
            "num_predict": params.max_tokens,
        }
        if params.seed is not None:
            options["seed"] = params.seed
        offered = with_final_tool(tools, schema)
        kwargs: dict[str, Any] = {"options": options}
        if offered:
            kwargs["tools"] = openai_tools(offered)
        elif schema is not None:
            kwargs["format"] = schema
        started = time.monotonic()
        try:
            reply = await client.chat(
                model=params.model, messages=ollama_messages(messages), **kwargs
            )
        except ollama.ResponseError as exc:
            raise ProviderError(
                f"ollama HTTP {exc.status_code}: {str(exc.error)[:300]}",
                retryable=exc.status_code in RETRYABLE_STATUS,
                status=exc.status_code,
            ) from exc
        except httpx.TimeoutException as exc:
            raise ProviderError(
                f"ollama timeout after {params.timeout_s} s", retryable=True
            ) from exc
        except (httpx.ConnectError, ConnectionError) as exc:
            raise ModelUnreachable(self.host, f"{type(exc).__name__}: {exc}"[:200]) from exc
        except httpx.TransportError as exc:
            raise ProviderError(
                f"ollama unreachable: {type(exc).__name__}", retryable=True
            ) from exc
        message = reply.message
        calls = [
            ToolCall(
                id=new_call_id(),
                name=call.function.name,
                arguments=parse_json_arguments(call.function.arguments),
            )
            for call in message.tool_calls or []
        ]
        response = LLMResponse(
            text=message.content or "",
            tool_calls=calls,
            reasoning=getattr(message, "thinking", None),
            usage=Usage(
                input_tokens=int(reply.prompt_eval_count or 0),
                output_tokens=int(reply.eval_count or 0),
            ),
            latency_s=time.monotonic() - started,
            provider=self.name,
            model=reply.model or params.model,
            finish_reason=reply.done_reason,
        )
        response = take_final_answer(response)
        if schema is not None and response.structured is None and not response.tool_calls:
            response.structured = parse_json_text(response.text)
        return response
