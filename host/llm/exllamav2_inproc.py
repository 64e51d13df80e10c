"""ExLlamaV2 in-process (the optional `exl2` extra; needs a CUDA GPU): an EXL2-quantised model
driven by exllamav2's dynamic generator, every answer held to its JSON schema by a sampling
filter. exllamav2 0.3 ships no JSON-schema filter of its own, only the filter interface
(`ExLlamaV2Filter`: begin/feed/next); the host plugs lm-format-enforcer's token enforcer into
it. Tool calls are constrained as in `llamacpp_inproc`: the reply must be one of {"tool": NAME,
"arguments": <that tool's schema>} or {"tool": "final_answer", "arguments": <answer schema>}.

The model boundary is `Backend.complete` (prompt text in, completion text and token counts
out); everything above it (prompt rendering, schema adaptation, tool calls, usage, latency)
is the provider's and runs without a GPU."""

from __future__ import annotations

import asyncio
import importlib.util
import threading
import time
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from .llamacpp_inproc import call_schema, read_constrained, render_prompt, tool_listing, turn_body
from .types import GenParams, LLMResponse, Message, ProviderError, ToolSpec, Usage

EXTRA = "exl2"
INSTALL = f"pip install 'silicon-agent[{EXTRA}]'"
PromptFormat = Literal["chatml", "plain"]
CacheQuant = Literal["fp16", "q8", "q6", "q4"]


class Completion(BaseModel):
    """What one generation gave back, as the provider needs it."""

    model_config = ConfigDict(extra="forbid")

    text: str
    prompt_tokens: int = Field(ge=0)
    new_tokens: int = Field(ge=0)
    eos_reason: str | None = Field(None, description="stop_token, stop_string, max_new_tokens")


class Backend(Protocol):
    """The model boundary: one constrained completion of a prompt."""

    def complete(
        self,
        prompt: str,
        schema: dict[str, Any] | None,
        *,
        max_new_tokens: int,
        temperature: float,
        seed: int | None,
        stop: list[str],
    ) -> Completion: ...


def unavailable_reason() -> str | None:
    """Why exllamav2 cannot run here, or None. Checked before importing exllamav2: its import
    builds (or loads) a CUDA extension and fails without a CUDA toolchain and GPU."""
    if importlib.util.find_spec("exllamav2") is None:
        return f"exllamav2 is not installed (optional extra '{EXTRA}': {INSTALL})"
    if importlib.util.find_spec("lmformatenforcer") is None:
        return f"lm-format-enforcer is not installed (optional extra '{EXTRA}': {INSTALL})"
    try:
        import torch
    except ImportError:
        return f"torch is not installed (optional extra '{EXTRA}': {INSTALL})"
    if not torch.cuda.is_available():
        return (
            "exllamav2 needs a CUDA GPU and this machine has none usable "
            f"(torch {torch.__version__}: torch.cuda.is_available() is False); "
            "use llamacpp_inproc or a server provider instead"
        )
    return None


def render(messages: list[Message], tools: list[ToolSpec], prompt_format: PromptFormat) -> str:
    """ChatML for the instruction-tuned models that use it (Qwen, many coder models); plain
    turns otherwise. The tool listing travels in the text: the filter holds the reply's shape."""
    if prompt_format == "plain":
        return render_prompt(messages, tools)
    parts = [f"<|im_start|>system\n{tool_listing(tools)}<|im_end|>"] if tools else []
    for message in messages:
        body = turn_body(message)
        if message.role == "tool":
            body = f"Result of tool {message.name or ''}:\n{body}"
        role = "user" if message.role == "tool" else message.role
        parts.append(f"<|im_start|>{role}\n{body}<|im_end|>")
    parts.append("<|im_start|>assistant\n")
    return "\n".join(parts)


def drop_trailing_commas(text: str) -> str:
    """lm-format-enforcer's object parser lets `}` follow a `,` (its key-or-end stage), so a
    held reply can be `{"a": 1,}`; drop such commas, never touching string contents."""
    out: list[str] = []
    in_string = escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == ",":
            rest = text[index + 1 :].lstrip()
            if rest[:1] in ("}", "]"):
                continue
        out.append(char)
    return "".join(out)


class SchemaConstraint:
    """The JSON-schema constraint: which tokens may come next after the ones generated so far.
    lm-format-enforcer does the parsing; this holds one generation's token sequence."""

    def __init__(self, tokenizer_data: Any, schema: dict[str, Any]) -> None:
        from lmformatenforcer import JsonSchemaParser, TokenEnforcer

        self.enforcer = TokenEnforcer(tokenizer_data, JsonSchemaParser(schema))
        self.tokens: list[int] = []

    def begin(self) -> None:
        self.tokens = []

    def feed(self, token: int) -> None:
        self.tokens.append(int(token))

    def allowed(self) -> list[int]:
        return list(self.enforcer.get_allowed_tokens(self.tokens).allowed_tokens)


def schema_filter(model: Any, tokenizer: Any, constraint: SchemaConstraint) -> Any:
    """The constraint as an exllamav2 sampling filter (built lazily: the base class comes from
    exllamav2, which imports only where a GPU is)."""
    from exllamav2.generator.filters import ExLlamaV2Filter

    class SchemaFilter(ExLlamaV2Filter):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(model, tokenizer)
            self.constraint = constraint

        def clone(self, c: Any = None) -> Any:
            return self  # one job per filter: nothing to copy

        def begin(self, prefix_str: str = "") -> None:
            self.constraint.begin()

        def feed(self, token: Any) -> None:
            # The dynamic generator feeds a (1, 1) tensor; older paths an int.
            value = token.view(-1)[0].item() if hasattr(token, "view") else token
            self.constraint.feed(int(value))

        def next(self) -> tuple[list[int], list[int]]:
            return self.constraint.allowed(), []

        def use_background_worker(self) -> bool:
            return True  # a CPU parser: run it while the GPU does the forward pass

    return SchemaFilter()


class ExLlamaV2Backend:
    """The real model: loaded on first use, one generator shared under a lock."""

    def __init__(
        self,
        model_dir: str,
        max_seq_len: int,
        cache_quant: CacheQuant,
        gpu_split: list[float] | None,
    ) -> None:
        self.model_dir = model_dir
        self.max_seq_len = max_seq_len
        self.cache_quant = cache_quant
        self.gpu_split = gpu_split
        self._loaded: tuple[Any, Any, Any, Any] | None = None
        self._lock = threading.Lock()

    def _load(self) -> tuple[Any, Any, Any, Any]:
        if self._loaded is not None:
            return self._loaded
        reason = unavailable_reason()
        if reason is not None:
            raise ProviderError(reason, retryable=False)
        if not (Path(self.model_dir) / "config.json").is_file():
            raise ProviderError(
                f"no EXL2 model in {self.model_dir} (config.json missing)", retryable=False
            )
        try:
            import exllamav2 as exl
            from exllamav2.generator import ExLlamaV2DynamicGenerator
            from lmformatenforcer.integrations.exllamav2 import (
                build_token_enforcer_tokenizer_data,
            )
        except Exception as exc:  # the CUDA extension failed to build or load
            raise ProviderError(
                f"exllamav2 failed to load ({type(exc).__name__}: {exc})"[:400], retryable=False
            ) from exc
        config = exl.ExLlamaV2Config(self.model_dir)
        config.max_seq_len = min(config.max_seq_len, self.max_seq_len)
        model = exl.ExLlamaV2(config)
        cache_class = {
            "fp16": exl.ExLlamaV2Cache,
            "q8": exl.ExLlamaV2Cache_Q8,
            "q6": exl.ExLlamaV2Cache_Q6,
            "q4": exl.ExLlamaV2Cache_Q4,
        }[self.cache_quant]
        if self.gpu_split:
            model.load(self.gpu_split)
            cache = cache_class(model, max_seq_len=config.max_seq_len)
        else:
            # A lazy cache is allocated layer by layer as autosplit fills the GPUs.
            cache = cache_class(model, max_seq_len=config.max_seq_len, lazy=True)
            model.load_autosplit(cache)
        tokenizer = exl.ExLlamaV2Tokenizer(config)
        generator = ExLlamaV2DynamicGenerator(model=model, cache=cache, tokenizer=tokenizer)
        # Built once per tokenizer: a pass over the whole vocabulary.
        data = build_token_enforcer_tokenizer_data(tokenizer)
        self._loaded = (model, tokenizer, generator, data)
        return self._loaded

    def complete(
        self,
        prompt: str,
        schema: dict[str, Any] | None,
        *,
        max_new_tokens: int,
        temperature: float,
        seed: int | None,
        stop: list[str],
    ) -> Completion:
        with self._lock:
            model, tokenizer, generator, data = self._load()
            from exllamav2.generator import ExLlamaV2DynamicJob, ExLlamaV2Sampler

            ids = tokenizer.encode(prompt, add_bos=True, encode_special_tokens=True)
            room = self.max_seq_len - max_new_tokens - 8
            if ids.shape[-1] > room:
                # Keep the tail of an over-long prompt: the latest turn matters most.
                ids = ids[:, -max(16, room) :]
            filters = (
                [schema_filter(model, tokenizer, SchemaConstraint(data, schema))]
                if schema is not None
                else None
            )
            # Temperature 0 means greedy; exllamav2 spells that top_k=1.
            settings = (
                ExLlamaV2Sampler.Settings.greedy()
                if temperature <= 0
                else ExLlamaV2Sampler.Settings(temperature=temperature)
            )
            job = ExLlamaV2DynamicJob(
                input_ids=ids,
                max_new_tokens=max_new_tokens,
                gen_settings=settings,
                seed=seed if seed is not None else 0,
                stop_conditions=[tokenizer.eos_token_id, *stop],
                filters=filters,
                filter_prefer_eos=True,
            )
            generator.enqueue(job)
            text: list[str] = []
            final: dict[str, Any] = {}
            while generator.num_remaining_jobs():
                for result in generator.iterate():
                    if result.get("stage") != "streaming":
                        continue
                    text.append(result.get("text", ""))
                    if result.get("eos"):
                        final = result
        return Completion(
            text="".join(text),
            prompt_tokens=int(ids.shape[-1]),
            new_tokens=int(final.get("new_tokens", 0)),
            eos_reason=final.get("eos_reason"),
        )


class ExLlamaV2Provider:
    def __init__(
        self,
        model_dir: str,
        *,
        max_seq_len: int = 8192,
        cache_quant: CacheQuant = "fp16",
        gpu_split: list[float] | None = None,
        prompt_format: PromptFormat = "chatml",
        name: str = "exllamav2-inproc",
        backend: Backend | None = None,
    ) -> None:
        self.name = name
        self.model_dir = model_dir
        self.prompt_format = prompt_format
        self.backend: Backend = backend or ExLlamaV2Backend(
            model_dir, max_seq_len, cache_quant, gpu_split
        )

    async def generate(
        self,
        messages: list[Message],
        tools: list[ToolSpec] | None,
        schema: dict[str, Any] | None,
        params: GenParams,
    ) -> LLMResponse:
        offered = list(tools or [])
        constraint = call_schema(offered, schema) if offered else schema
        prompt = render(messages, offered, self.prompt_format)
        stop = ["<|im_end|>"] if self.prompt_format == "chatml" else ["\n### "]
        started = time.monotonic()
        try:
            completion = await asyncio.to_thread(
                self.backend.complete,
                prompt,
                constraint,
                max_new_tokens=params.max_tokens,
                temperature=params.temperature,
                seed=params.seed,
                stop=stop,
            )
        except ProviderError:
            raise
        except (ValueError, RuntimeError, AssertionError) as exc:
            # CUDA out of memory is a RuntimeError; an over-long job trips an assertion.
            raise ProviderError(f"exllamav2 failed: {exc}"[:400], retryable=False) from exc
        response = LLMResponse(
            text=completion.text,
            usage=Usage(input_tokens=completion.prompt_tokens, output_tokens=completion.new_tokens),
            latency_s=time.monotonic() - started,
            provider=self.name,
            model=Path(self.model_dir).name,
            finish_reason="length" if completion.eos_reason == "max_new_tokens" else "stop",
        )
        text = completion.text
        if schema is not None or offered:
            text = drop_trailing_commas(text)
        return read_constrained(response, text, offered)
