"""What crosses the provider boundary: messages, tool specs, tool calls, responses, errors."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Provider's id, or one we made when the provider gives none")
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = Field(None, description="Tool name, on a tool message")


class ToolSpec(BaseModel):
    """A tool the model may call: MCP's name, description and JSON-schema input."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})


class GenParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str
    temperature: float = 0.2
    max_tokens: int = 2048
    timeout_s: float = 120.0
    seed: int | None = None


class Usage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input_tokens: int = 0
    output_tokens: int = 0


class LLMResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = ""
    structured: dict[str, Any] | None = Field(
        None, description="The final answer as JSON when a schema was asked for"
    )
    tool_calls: list[ToolCall] = Field(default_factory=list)
    reasoning: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    cost_usd: float = 0.0
    provider: str = ""
    model: str = ""
    finish_reason: str | None = None


class ProviderError(Exception):
    """A provider call failed; `retryable` says whether backing off and trying again may help."""

    def __init__(self, message: str, *, retryable: bool, status: int | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status


class ModelUnreachable(Exception):
    """Nothing answers at a provider's endpoint (connection refused, no such host): the run
    stops and says which provider and URL, rather than escalating blocks one by one."""

    def __init__(self, url: str, detail: str, provider: str = "") -> None:
        self.url = url
        self.detail = detail
        self.provider = provider
        super().__init__(str(self))

    def __str__(self) -> str:
        who = f"model provider '{self.provider}'" if self.provider else "model provider"
        return f"{who} unreachable at {self.url}: {self.detail}"


class StructuredOutputError(Exception):
    """The model's answer did not validate against the step's schema, even after one repair."""

    def __init__(self, message: str, *, raw: str, errors: str) -> None:
        super().__init__(message)
        self.raw = raw
        self.errors = errors


FINAL_TOOL = "final_answer"
"""When a step offers tools and wants a structured answer, the answer is this tool's call."""
