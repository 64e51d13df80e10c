"""A scripted provider: the stand-in for a large LLM in tests and benchmarks. It answers by
rules matched on the request text, with no hidden state, so a resumed run gets the same reply
for the same step as the run that crashed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from silicon_agent.suite.yaml_file import read_yaml

from .base import new_call_id
from .types import GenParams, LLMResponse, Message, ProviderError, ToolCall, ToolSpec, Usage


class ScriptedReply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = ""
    structured: dict[str, Any] | None = None
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    reasoning: str | None = None


class ScriptRule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    match: list[str] = Field(default_factory=list, description="Substrings all present")
    turn: int | None = Field(None, description="How many assistant turns precede this call")
    reply: ScriptedReply
    delay_s: float = 0.0


class Script(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: list[ScriptRule]


def load_script(path: str | Path) -> Script:
    return Script.model_validate(read_yaml(Path(path)))


def approx_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class ScriptedProvider:
    def __init__(self, script: Script, name: str = "scripted") -> None:
        self.name = name
        self.script = script
        self.requests: list[list[Message]] = []

    async def generate(
        self,
        messages: list[Message],
        tools: list[ToolSpec] | None,
        schema: dict[str, Any] | None,
        params: GenParams,
    ) -> LLMResponse:
        self.requests.append(list(messages))
        joined = "\n".join(m.content for m in messages)
        turn = sum(1 for m in messages if m.role == "assistant")
        for rule in self.script.rules:
            if rule.turn is not None and rule.turn != turn:
                continue
            if all(s in joined for s in rule.match):
                if rule.delay_s:
                    await asyncio.sleep(rule.delay_s)
                reply = rule.reply
                calls = [
                    ToolCall(id=new_call_id(), name=c["name"], arguments=c.get("arguments", {}))
                    for c in reply.tool_calls
                ]
                text = reply.text or (json.dumps(reply.structured) if reply.structured else "")
                return LLMResponse(
                    text=text,
                    structured=reply.structured,
                    tool_calls=calls,
                    reasoning=reply.reasoning,
                    usage=Usage(
                        input_tokens=approx_tokens(joined), output_tokens=approx_tokens(text)
                    ),
                    provider=self.name,
                    model=params.model,
                    finish_reason="stop",
                )
        raise ProviderError(f"no scripted reply matches: {joined[-300:]!r}", retryable=False)
