"""Conversions shared by the chat-style wire formats (OpenAI-compatible and Ollama)."""

from __future__ import annotations

import json
from typing import Any

from .types import FINAL_TOOL, LLMResponse, Message, ToolCall, ToolSpec

FINAL_DESCRIPTION = "Give the step's final answer. Call this exactly once, when done."


def with_final_tool(tools: list[ToolSpec] | None, schema: dict[str, Any] | None) -> list[ToolSpec]:
    """A step that offers tools and wants a structured answer gets the answer as one more tool,
    so every backend that speaks tool calls can be held to the schema."""
    offered = list(tools or [])
    if schema is not None and offered:
        offered.append(
            ToolSpec(name=FINAL_TOOL, description=FINAL_DESCRIPTION, input_schema=schema)
        )
    return offered


def take_final_answer(response: LLMResponse) -> LLMResponse:
    """Move a final_answer tool call into `structured`; parse JSON text when a schema was set."""
    finals = [c for c in response.tool_calls if c.name == FINAL_TOOL]
    if finals:
        response.structured = finals[0].arguments
        response.text = response.text or json.dumps(finals[0].arguments)
        response.tool_calls = [c for c in response.tool_calls if c.name != FINAL_TOOL]
    return response


def parse_json_text(text: str) -> dict[str, Any] | None:
    """The first JSON object in a reply, tolerating code fences around it."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.strip("`")
        if stripped.startswith("json"):
            stripped = stripped[4:]
    start = stripped.find("{")
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(stripped[start:])
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def openai_messages(messages: list[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        item: dict[str, Any] = {"role": message.role, "content": message.content}
        if message.tool_calls:
            item["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
                for call in message.tool_calls
            ]
        if message.role == "tool":
            item["tool_call_id"] = message.tool_call_id
        out.append(item)
    return out


def openai_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.input_schema,
            },
        }
        for tool in tools
    ]


def tool_calls_text(calls: list[ToolCall]) -> str:
    return "; ".join(f"{c.name}({json.dumps(c.arguments)[:200]})" for c in calls)
