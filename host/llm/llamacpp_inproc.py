"""llama.cpp in-process through llama-cpp-python (the optional `local` extra): every answer is
held by a grammar built from a JSON schema, so even a small base model emits valid JSON.
Tool calls are constrained the same way: the reply must be one of {"tool": NAME, "arguments":
<that tool's schema>} or {"tool": "final_answer", "arguments": <answer schema>}."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

from .base import new_call_id
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


def call_schema(tools: list[ToolSpec], schema: dict[str, Any] | None) -> dict[str, Any]:
    choices = [
        {
            "type": "object",
            "properties": {"tool": {"const": t.name}, "arguments": t.input_schema},
            "required": ["tool", "arguments"],
        }
        for t in tools
    ]
    if schema is not None:
        choices.append(
            {
                "type": "object",
                "properties": {"tool": {"const": FINAL_TOOL}, "arguments": schema},
                "required": ["tool", "arguments"],
            }
        )
    return choices[0] if len(choices) == 1 else {"anyOf": choices}


def tool_listing(tools: list[ToolSpec]) -> str:
    listing = "\n".join(f"- {t.name}: {t.description[:200]}" for t in tools)
    return f'### Tools\nReply with JSON {{"tool": NAME, "arguments": {{...}}}}.\n{listing}'


def turn_body(message: Message) -> str:
    if message.tool_calls:
        return json.dumps([{"tool": c.name, "arguments": c.arguments} for c in message.tool_calls])
    return message.content


def render_prompt(messages: list[Message], tools: list[ToolSpec]) -> str:
    """Plain text turns: the models this serves may be base models without a chat template."""
    parts: list[str] = [tool_listing(tools)] if tools else []
    label = {"system": "System", "user": "User", "assistant": "Assistant", "tool": "Tool"}
    for message in messages:
        parts.append(f"### {label[message.role]}\n{turn_body(message)}")
    parts.append("### Assistant\n")
    return "\n\n".join(parts)


class LlamaCppProvider:
    def __init__(
        self, model_path: str, n_ctx: int = 4096, n_threads: int = 2, name: str = "llamacpp-inproc"
    ) -> None:
        self.name = name
        self.model_path = model_path
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self._llama: Any = None
        # One llama context is not safe to share between threads.
        self._lock = threading.Lock()

    def _load(self) -> Any:
        if self._llama is None:
            try:
                from llama_cpp import Llama
            except ImportError as exc:
                raise ProviderError(
                    "llama-cpp-python is not installed (optional extra)", retryable=False
                ) from exc
            if not Path(self.model_path).is_file():
                raise ProviderError(f"model file not found: {self.model_path}", retryable=False)
            self._llama = Llama(
                model_path=self.model_path,
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                verbose=False,
            )
        return self._llama

    def _complete(
        self, prompt: str, grammar_schema: dict[str, Any] | None, params: GenParams
    ) -> dict[str, Any]:
        from llama_cpp import LlamaGrammar

        with self._lock:
            llama = self._load()
            grammar = (
                LlamaGrammar.from_json_schema(json.dumps(grammar_schema), verbose=False)
                if grammar_schema is not None
                else None
            )
            tokens = llama.tokenize(prompt.encode())
            room = self.n_ctx - len(tokens) - 8
            if room < 16:
                # Keep the tail of an over-long prompt: the latest turn matters most.
                keep = max(16, self.n_ctx - params.max_tokens - 8)
                prompt = llama.detokenize(tokens[-keep:]).decode(errors="ignore")
                room = self.n_ctx - keep - 8
            return llama.create_completion(
                prompt,
                max_tokens=min(params.max_tokens, room),
                temperature=params.temperature,
                seed=params.seed if params.seed is not None else 0,
                grammar=grammar,
                stop=["\n### "],
            )

    async def generate(
        self,
        messages: list[Message],
        tools: list[ToolSpec] | None,
        schema: dict[str, Any] | None,
        params: GenParams,
    ) -> LLMResponse:
        offered = list(tools or [])
        grammar_schema = call_schema(offered, schema) if offered else schema
        prompt = render_prompt(messages, offered)
        started = time.monotonic()
        try:
            data = await asyncio.to_thread(self._complete, prompt, grammar_schema, params)
        except ProviderError:
            raise
        except (ValueError, RuntimeError) as exc:
            raise ProviderError(f"llama.cpp failed: {exc}", retryable=False) from exc
        choice = data["choices"][0]
        text = choice.get("text", "")
        usage = data.get("usage") or {}
        response = LLMResponse(
            text=text,
            usage=Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
            ),
            latency_s=time.monotonic() - started,
            provider=self.name,
            model=Path(self.model_path).name,
            finish_reason=choice.get("finish_reason"),
        )
        return read_constrained(response, text, offered)


def read_constrained(response: LLMResponse, text: str, offered: list[ToolSpec]) -> LLMResponse:
    """A grammar-held reply: {"tool": NAME, "arguments": {...}} becomes a tool call (or, for
    final_answer, the structured answer); a plain object is the structured answer."""
    try:
        # strict=False: a raw newline or tab inside a string (which some constraint engines
        # let through) is kept rather than failing the whole answer.
        value = json.loads(text, strict=False)
    except json.JSONDecodeError:
        return response  # cut at the token limit: the gateway's repair step sees it
    if offered and isinstance(value, dict) and "tool" in value:
        arguments = value.get("arguments") if isinstance(value.get("arguments"), dict) else {}
        if value["tool"] == FINAL_TOOL:
            response.structured = arguments
        else:
            response.tool_calls = [
                ToolCall(id=new_call_id(), name=str(value["tool"]), arguments=arguments)
            ]
    elif isinstance(value, dict):
        response.structured = value
    return response
