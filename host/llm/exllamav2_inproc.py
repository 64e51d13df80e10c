"""ExLlamaV2 in-process (the optional `exl2` extra; needs a CUDA GPU): an EXL2-quantised model
driven by exllamav2's dynamic generator, every answer held to its JSON schema by a sampling
filter (`exl2_constraint`: lm-format-enforcer's parser over the model's vocabulary, wrapped in
exllamav2's filter interface). Tool calls are constrained as in `llamacpp_inproc`: the reply
must be one of {"tool": NAME, "arguments": <that tool's schema>} or {"tool": "final_answer",
"arguments": <answer schema>}.

exllamav2 is imported on first use: its import builds a CUDA extension (minutes, once per
machine; progress is logged). The generator is paged where flash-attn >= 2.5.7 is installed
and unpaged (one job at a time) otherwise. The model boundary is `Backend.complete` (prompt
text in, completion text and token counts out); the exllamav2 surface it uses is a `Runtime`,
so everything above the CUDA kernels runs without a GPU in the tests."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from .exl2_constraint import (
    ConstraintBroken,
    ConstraintFilter,
    SchemaConstraint,
    Vocabulary,
    clean_reply,
)
from .llamacpp_inproc import call_schema, read_constrained, render_prompt, tool_listing, turn_body
from .types import GenParams, LLMResponse, Message, ProviderError, ToolSpec, Usage

EXTRA = "exl2"
INSTALL = f"pip install 'silicon-agent[{EXTRA}]'"
PromptFormat = Literal["chatml", "plain"]
log = logging.getLogger(__name__)
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


@dataclass(frozen=True)
class Runtime:
    """The exllamav2 surface the backend uses, imported once (`load_runtime`)."""

    config: Any  # ExLlamaV2Config
    model: Any  # ExLlamaV2
    caches: dict[str, Any]  # the cache class per CacheQuant
    tokenizer: Any  # ExLlamaV2Tokenizer
    generator: Any  # ExLlamaV2DynamicGenerator
    job: Any  # ExLlamaV2DynamicJob
    sampler: Any  # ExLlamaV2Sampler
    paged_attention: bool  # flash-attn >= 2.5.7 present: paged mode works


def extension_state() -> tuple[str, Path | None]:
    """Where exllamav2's CUDA extension stands before its import: 'prebuilt' (a wheel that
    ships it), 'cached' (built by an earlier run) or 'build' (its import compiles it now)."""
    if importlib.util.find_spec("exllamav2_ext") is not None:
        return "prebuilt", None
    try:
        from torch.utils.cpp_extension import _get_build_directory

        folder = Path(_get_build_directory("exllamav2_ext", False))
    except Exception:  # a private torch helper: without it, no progress count
        return "build", None
    return ("cached" if any(folder.glob("exllamav2_ext*.so")) else "build"), folder


class BuildProgress:
    """Log lines while exllamav2's import compiles its extension: one at the start (what it
    needs, how long it takes), one every `every` seconds (objects compiled so far), one with
    the time it took."""

    def __init__(self, folder: Path | None, every: float = 20.0) -> None:
        self.folder = folder
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._report, daemon=True)
        self.started = 0.0

    def _objects(self) -> int:
        return len(list(self.folder.glob("*.o"))) if self.folder is not None else 0

    def _report(self) -> None:
        while not self._stop.wait(self.every):
            log.warning(
                "exllamav2: building its CUDA extension, %.0f s, %d objects compiled",
                time.monotonic() - self.started,
                self._objects(),
            )

    def __enter__(self) -> BuildProgress:
        self.started = time.monotonic()
        log.warning(
            "exllamav2: building its CUDA extension on first use (needs nvcc and ninja; "
            "about 3 min on 16 cores, once per machine, cached under %s)",
            self.folder or "torch's extension folder",
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        outcome = "failed after" if exc[0] is not None else "built in"
        log.warning("exllamav2: CUDA extension %s %.0f s", outcome, time.monotonic() - self.started)


def load_runtime() -> Runtime:
    """Import exllamav2 (and with it build or load its CUDA extension, with progress lines
    while it builds); a typed error naming the extra where it cannot run."""
    reason = unavailable_reason()
    if reason is not None:
        raise ProviderError(reason, retryable=False)
    state, folder = extension_state()
    started = time.monotonic()
    try:
        if state == "build":
            with BuildProgress(folder):
                import exllamav2 as exl
        else:
            import exllamav2 as exl
        from exllamav2.attn import has_flash_attn_with_paged
        from exllamav2.generator import (
            ExLlamaV2DynamicGenerator,
            ExLlamaV2DynamicJob,
            ExLlamaV2Sampler,
        )
    except Exception as exc:  # the CUDA extension failed to build or load
        raise ProviderError(
            f"exllamav2 failed to load ({type(exc).__name__}: {exc})"[:400], retryable=False
        ) from exc
    log.info("exllamav2 imported in %.1f s (extension %s)", time.monotonic() - started, state)
    return Runtime(
        config=exl.ExLlamaV2Config,
        model=exl.ExLlamaV2,
        caches={
            "fp16": exl.ExLlamaV2Cache,
            "q8": exl.ExLlamaV2Cache_Q8,
            "q6": exl.ExLlamaV2Cache_Q6,
            "q4": exl.ExLlamaV2Cache_Q4,
        },
        tokenizer=exl.ExLlamaV2Tokenizer,
        generator=ExLlamaV2DynamicGenerator,
        job=ExLlamaV2DynamicJob,
        sampler=ExLlamaV2Sampler,
        paged_attention=bool(has_flash_attn_with_paged),
    )


def make_generator(runtime: Runtime, model: Any, cache: Any, tokenizer: Any) -> Any:
    """Paged (batched jobs) where flash-attn >= 2.5.7 is installed; otherwise exllamav2's
    unpaged mode, one job at a time, said once when the model loads."""
    if not runtime.paged_attention:
        log.warning(
            "exllamav2: flash-attn >= 2.5.7 is not installed, so the generator runs unpaged "
            "(one job at a time); install flash-attn for paged, batched generation"
        )
    return runtime.generator(
        model=model, cache=cache, tokenizer=tokenizer, paged=runtime.paged_attention
    )


def vocabulary_of(tokenizer: Any, config: Any) -> Vocabulary:
    """The constraint's vocabulary from an ExLlamaV2Tokenizer: exllamav2 0.3 reads every
    model's tokenizer.json with the `tokenizers` library, whose tokenizer it keeps."""
    eos = {int(tokenizer.eos_token_id)}
    generation = getattr(config, "generation_config", None) or {}
    eos |= {int(t) for t in generation.get("eos_token_id") or []}
    special = {tokenizer.bos_token_id, tokenizer.pad_token_id, tokenizer.unk_token_id}
    special |= set(getattr(tokenizer, "extended_id_to_piece", {}))
    return Vocabulary.from_hf(
        tokenizer.tokenizer_model.hf_tokenizer,
        eos,
        {int(t) for t in special if t is not None and int(t) >= 0},
    )


TOKENIZERS_READ = (
    "exllamav2 0.3 reads only tokenizer.json, and only with a BPE model: byte-level (GPT-2, "
    "Llama 3, Qwen) or SentencePiece converted with byte fallback (Llama 2, Mistral, Gemma)"
)


def check_tokenizer(model_dir: Path) -> None:
    """Refuse, before exllamav2 loads anything, a tokenizer it cannot read: it never reads
    tokenizer.model, and its tokenizer.json wrapper assumes a BPE model (it reads the model's
    unk_token, which Unigram and WordPiece models lack)."""
    path = model_dir / "tokenizer.json"
    if not path.is_file():
        raise ProviderError(f"no tokenizer.json in {model_dir}: {TOKENIZERS_READ}", retryable=False)
    try:
        model = json.loads(path.read_text(encoding="utf-8")).get("model")
        kind = model.get("type") if isinstance(model, dict) else None
    except (OSError, ValueError, AttributeError) as exc:
        raise ProviderError(
            f"{path} is not a tokenizer file ({exc})"[:400], retryable=False
        ) from exc
    if kind != "BPE":
        raise ProviderError(
            f"{path} holds a {kind or 'typeless'} tokenizer model, which exllamav2 cannot load; "
            f"{TOKENIZERS_READ}",
            retryable=False,
        )


@dataclass(frozen=True)
class Loaded:
    runtime: Runtime
    tokenizer: Any
    generator: Any
    vocabulary: Vocabulary


class ExLlamaV2Backend:
    """The real model: loaded on first use, one generator shared under a lock."""

    def __init__(
        self,
        model_dir: str,
        max_seq_len: int,
        cache_quant: CacheQuant,
        gpu_split: list[float] | None,
        runtime: Callable[[], Runtime] = load_runtime,
    ) -> None:
        self.model_dir = model_dir
        self.max_seq_len = max_seq_len
        self.cache_quant = cache_quant
        self.gpu_split = gpu_split
        self.runtime = runtime
        self._loaded: Loaded | None = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Load the model now (otherwise the first call does)."""
        with self._lock:
            self._load()

    def _load(self) -> Loaded:
        if self._loaded is not None:
            return self._loaded
        rt = self.runtime()
        if not (Path(self.model_dir) / "config.json").is_file():
            raise ProviderError(
                f"no EXL2 model in {self.model_dir} (config.json missing)", retryable=False
            )
        check_tokenizer(Path(self.model_dir))
        try:
            self._loaded = self._build(rt)
        except (ProviderError, ConstraintBroken):
            raise
        except Exception as exc:  # exllamav2's loaders raise whatever they meet
            raise ProviderError(
                f"exllamav2 could not load the model in {self.model_dir} "
                f"({type(exc).__name__}: {exc})"[:400],
                retryable=False,
            ) from exc
        return self._loaded

    def _build(self, rt: Runtime) -> Loaded:
        config = rt.config(self.model_dir)
        config.max_seq_len = min(config.max_seq_len, self.max_seq_len)
        model = rt.model(config)
        cache_class = rt.caches[self.cache_quant]
        if self.gpu_split:
            model.load(self.gpu_split)
            cache = cache_class(model, max_seq_len=config.max_seq_len)
        else:
            # A lazy cache is allocated layer by layer as autosplit fills the GPUs.
            cache = cache_class(model, max_seq_len=config.max_seq_len, lazy=True)
            model.load_autosplit(cache)
        tokenizer = rt.tokenizer(config)
        generator = make_generator(rt, model, cache, tokenizer)
        vocabulary = vocabulary_of(tokenizer, config)
        vocabulary.enforcer_data()  # a pass over the vocabulary: once, before any job
        return Loaded(runtime=rt, tokenizer=tokenizer, generator=generator, vocabulary=vocabulary)

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
            loaded = self._load()
            rt, tokenizer, generator = loaded.runtime, loaded.tokenizer, loaded.generator
            ids = tokenizer.encode(prompt, add_bos=True, encode_special_tokens=True)
            room = self.max_seq_len - max_new_tokens - 8
            if ids.shape[-1] > room:
                # Keep the tail of an over-long prompt: the latest turn matters most.
                ids = ids[:, -max(16, room) :]
            eos = sorted(loaded.vocabulary.eos_ids)
            constraint = None
            if schema is not None:
                constraint = SchemaConstraint(loaded.vocabulary, schema)
            # Temperature 0 means greedy; exllamav2 spells that top_k=1.
            settings = (
                rt.sampler.Settings.greedy()
                if temperature <= 0
                else rt.sampler.Settings(temperature=temperature)
            )
            job = rt.job(
                input_ids=ids,
                max_new_tokens=max_new_tokens,
                gen_settings=settings,
                seed=seed if seed is not None else 0,
                # A held reply ends where its schema is complete, never at a stop string
                # (one may sit inside a JSON string).
                stop_conditions=[*eos, *(stop if constraint is None else [])],
                filters=[ConstraintFilter(constraint, None, tokenizer)] if constraint else None,
                filter_prefer_eos=True,
            )
            generator.enqueue(job)
            streamed: list[str] = []
            final: dict[str, Any] = {}
            while generator.num_remaining_jobs():
                for result in generator.iterate():
                    if result.get("stage") != "streaming":
                        continue
                    streamed.append(result.get("text", ""))
                    if result.get("eos"):
                        final = result
        if constraint is not None:
            # Exactly the text the constraint checked, token by token.
            text = constraint.text()
        else:
            # At a stop token exllamav2 reports the text it was still holding apart.
            text = "".join(streamed) + (final.get("held") or {}).get("text", "")
        return Completion(
            text=text,
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
        except ConstraintBroken as exc:
            # A bug or a tokenizer the constraint cannot serve: the same again would fail.
            raise ProviderError(
                f"exllamav2: schema constraint: {exc}"[:400], retryable=False
            ) from exc
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
            text = clean_reply(text)
        return read_constrained(response, text, offered)
