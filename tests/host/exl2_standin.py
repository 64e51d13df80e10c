"""A stand-in for the exllamav2 0.3.2 surface the in-process provider uses (`Runtime`), for
machines without a CUDA GPU. The model is random: each step it scores every token at random
and samples the way exllamav2's sampler does, through the job's filters exactly as
`ExLlamaV2Sampler.sample` and `ExLlamaV2DynamicJob.receive_sample` call them (begin on the
first token, get_next's (pass, end) sets intersected, a single passed token taken as is, the
end-of-sequence token taken as soon as it passes with filter_prefer_eos, every sampled token
fed back as a (1, 1) tensor, next() scheduled on a background pool). Its text streams the way
exllamav2's does: one piece per token, text held back while it may begin a stop string or
ends in part of a character, and at a stop token the held text reported under "held" rather
than "text". The tokenizer is a real `tokenizers` tokenizer read from the model folder."""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from silicon_agent.host.llm.exllamav2_inproc import Runtime
from silicon_agent.host.llm.types import LLMResponse, ToolSpec

if TYPE_CHECKING:
    import torch

LINT = ToolSpec(
    name="check_draft",
    description="Lint a draft",
    input_schema={
        "type": "object",
        "properties": {"code": {"type": "string", "maxLength": 40}},
        "required": ["code"],
    },
)


class SimArgs(BaseModel):
    top: str = Field(max_length=12)
    cycles: int
    mode: Literal["fast", "full"]
    flags: list[bool] = []


SIMULATE = ToolSpec(
    name="simulate", description="Run the testbench", input_schema=SimArgs.model_json_schema()
)


def check_reply(reply: LLMResponse, answer: type[BaseModel]) -> None:
    """Raise unless the reply is one of LINT and SIMULATE with valid arguments, or the answer
    (validated strictly: a float where an integer goes fails)."""
    if reply.tool_calls:
        call = reply.tool_calls[0]
        assert call.name in (LINT.name, SIMULATE.name), reply.text
        if call.name == SIMULATE.name:
            SimArgs.model_validate(call.arguments, strict=True)
        else:
            code = call.arguments["code"]
            assert isinstance(code, str) and len(code) <= 40, reply.text
    else:
        assert reply.structured is not None, reply.text
        answer.model_validate(reply.structured, strict=True)


CORPUS = [
    '{"tool": "check_draft", "arguments": {"code": "module m; endmodule", "top": "m"}}',
    '{"hypotheses": [{"cause": "the increment", "evidence": "q stays 0"}], "fix_plan": "p"}',
    '{"cycles": 1200, "mode": "fast", "flags": [true, false, null], "ratio": -0.25e-3}',
    "module counter(input clk, output reg [3:0] q); always @(posedge clk) q <= q + 1; endmodule",
    "The quick brown fox jumps over the lazy dog 0123456789 !#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
    "Résumé naïve café — größer ü é 日本語 ✓",
]


SPECIALS = ["<unk>", "<s>", "</s>"]


def train_tokenizer(kind: str, folder: Path, size: int = 384) -> Path:
    """A tiny tokenizer.json of the kind a model brings, both read by exllamav2 0.3 (which
    reads nothing else): byte-level BPE (GPT-2, Llama 3, Qwen), or a SentencePiece model as
    `transformers` converts it (Llama 2, Mistral, Gemma): BPE with byte fallback over a
    Metaspace pre-tokenizer, `<unk>`, `<s>`, `</s>` then the 256 byte tokens `<0x00>`..`<0xFF>`
    first in the vocabulary, and the decoders Replace("▁" -> " "), ByteFallback, Fuse, Strip.
    `size` counts the trained tokens (the SentencePiece kind adds the 259 above)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    if kind == "bpe":
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer: Any = trainers.BpeTrainer(
            vocab_size=size,
            special_tokens=SPECIALS[1:],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        )
        tok.train_from_iterator(CORPUS * 8, trainer)
    else:
        tok = sentencepiece_bpe(size)
    folder.mkdir(parents=True, exist_ok=True)
    tok.save(str(folder / "tokenizer.json"))
    bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    config = {"bos_token_id": bos, "eos_token_id": eos, "max_position_embeddings": 8192}
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def sentencepiece_bpe(size: int) -> Any:
    """A converted SentencePiece tokenizer: merges trained on Metaspace words, then the
    vocabulary laid out as Llama 2's (specials 0-2, bytes 3-258, then the pieces)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers

    metaspace = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    trainer = Tokenizer(models.BPE())
    trainer.pre_tokenizer = metaspace
    trainer.train_from_iterator(CORPUS * 8, trainers.BpeTrainer(vocab_size=size))
    trained = json.loads(trainer.to_str())["model"]
    vocab = {piece: i for i, piece in enumerate([*SPECIALS, *(f"<0x{b:02X}>" for b in range(256))])}
    for piece in sorted(trained["vocab"], key=trained["vocab"].get):
        vocab.setdefault(piece, len(vocab))
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in trained["merges"]]
    tok = Tokenizer(
        models.BPE(vocab=vocab, merges=merges, unk_token="<unk>", byte_fallback=True, fuse_unk=True)
    )
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIALS])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(
        replacement="▁", prepend_scheme="first", split=False
    )
    tok.decoder = decoders.Sequence(
        [
            decoders.Replace("▁", " "),
            decoders.ByteFallback(),
            decoders.Fuse(),
            decoders.Strip(" ", 1, 0),
        ]
    )
    return tok


class Config:
    def __init__(self, model_dir: str) -> None:
        data = json.loads((Path(model_dir) / "config.json").read_text())
        self.model_dir = model_dir
        self.max_seq_len = int(data.get("max_position_embeddings", 2048))
        self.eos_token_id = data.get("eos_token_id")
        self.bos_token_id = data.get("bos_token_id")
        self.generation_config: dict[str, Any] = {}


class Model:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.loaded: Any = None

    def load(self, split: list[float]) -> None:
        self.loaded = split

    def load_autosplit(self, cache: Any) -> None:
        self.loaded = "autosplit"


class Cache:
    def __init__(self, model: Model, max_seq_len: int, lazy: bool = False) -> None:
        self.max_seq_len = max_seq_len


class HFModel:
    def __init__(self, hf: Any) -> None:
        self.hf_tokenizer = hf


class ExlTokenizer:
    """The attributes of ExLlamaV2Tokenizer the provider and the generator read."""

    def __init__(self, config: Config) -> None:
        from tokenizers import Tokenizer

        path = Path(config.model_dir) / "tokenizer.json"
        hf = Tokenizer.from_file(str(path))
        self.tokenizer_model = HFModel(hf)
        added = json.loads(path.read_text()).get("added_tokens", [])
        self.extended_id_to_piece = {t["id"]: t["content"] for t in added if t["special"]}
        self.eos_token_id = config.eos_token_id
        self.bos_token_id = config.bos_token_id
        self.pad_token_id = self.eos_token_id
        # As exllamav2's HF wrapper reads it: only a BPE model has an unk_token.
        unk = hf.model.unk_token
        self.unk_token_id = None if unk is None else hf.token_to_id(unk)
        # exllamav2's piece list: each token decoded after a space token, the space cut off.
        prefix = hf.encode(" ", add_special_tokens=False).ids[0]
        cut = len(hf.decode([prefix]))
        self.pieces = [hf.decode([prefix, i])[cut:] for i in range(hf.get_vocab_size())]
        self.hf = hf

    def encode(self, text: str, add_bos: bool = False, **_: Any) -> torch.Tensor:
        import torch

        ids = self.hf.encode(text, add_special_tokens=False).ids
        return torch.tensor([[self.bos_token_id, *ids] if add_bos else ids], dtype=torch.long)

    def decode(self, ids: list[int]) -> str:
        return self.hf.decode([i for i in ids if i != self.eos_token_id])


class Settings:
    def __init__(self, temperature: float = 1.0, top_k: int = 50) -> None:
        self.temperature = temperature
        self.top_k = top_k

    @staticmethod
    def greedy() -> Settings:
        return Settings(temperature=1.0, top_k=1)


class Sampler:
    Settings = Settings


class Job:
    def __init__(self, **kw: Any) -> None:
        self.input_ids = kw["input_ids"]
        self.max_new_tokens: int = kw["max_new_tokens"]
        self.settings: Settings = kw["gen_settings"]
        self.rng = random.Random(kw.get("seed"))
        conditions = kw.get("stop_conditions") or []
        self.stop_tokens = {c for c in conditions if isinstance(c, int)}
        self.stop_strings = [c for c in conditions if isinstance(c, str)]
        self.filters = kw.get("filters") or []
        self.prefer_eos = kw.get("filter_prefer_eos", False)
        self.new_tokens = 0
        self.held_text = ""
        self.held_tokens: list[int] = []
        self.tokens: list[int] = []


class Generator:
    built: list[dict[str, Any]] = []  # one entry per construction, for the tests

    def __init__(self, model: Model, cache: Cache, tokenizer: ExlTokenizer, paged: bool = True):
        Generator.built.append({"paged": paged})
        self.tokenizer = tokenizer
        self.jobs: list[Job] = []
        self.pool = ThreadPoolExecutor(max_workers=2)
        self.queue: list[Any] = []
        self.sampled: list[list[int]] = []  # each finished job's tokens, for the tests

    def enqueue(self, job: Job) -> None:
        self.jobs.append(job)

    def num_remaining_jobs(self) -> int:
        return len(self.jobs)

    def iterate(self) -> list[dict[str, Any]]:
        job = self.jobs[0]
        # The "forward pass": random scores; the queued filters run meanwhile, as on a GPU.
        scores = [job.rng.random() for _ in self.tokenizer.pieces]
        for f in self.queue:
            f.background_next(self.pool)
        self.queue.clear()
        token, end_filter = self.sample(job, scores)
        results: list[dict[str, Any]] = []
        if self.receive(job, token, end_filter, results):
            self.jobs.pop(0)
        return results

    def sample(self, job: Job, scores: list[float]) -> tuple[int, bool]:
        if job.new_tokens == 0:
            for f in job.filters:
                f.background_drop()
                f.begin("")
        passed: Any = None
        ends: Any = None
        for f in job.filters:
            pt, et = f.get_next()
            passed = pt if passed is None else passed & pt
            ends = et if ends is None else ends | et
        eos = self.tokenizer.eos_token_id
        if passed is not None:
            assert len(passed), "Filter excluded all tokens"
            if len(passed) == 1:
                token = next(iter(passed))
                return token, token in ends
            if job.prefer_eos and eos in passed:
                passed = {eos}
        allowed = sorted(passed) if passed is not None else range(len(scores))
        if job.settings.top_k == 1:
            token = max(allowed, key=lambda t: scores[t])
        else:
            token = job.rng.choice(list(allowed))
        return token, ends is not None and token in ends

    def receive(self, job: Job, token: int, end_filter: bool, results: list[Any]) -> bool:
        import torch

        for f in job.filters:
            f.feed(torch.tensor([[token]], dtype=torch.long))
            if f.use_background_worker():
                self.queue.append(f)
        job.new_tokens += 1
        job.tokens.append(token)
        job.held_tokens.append(token)
        job.held_text += self.tokenizer.pieces[token]

        def emit(eos: bool = False, reason: str | None = None, held: bool = False) -> bool:
            r: dict[str, Any] = {"stage": "streaming", "eos": eos}
            if reason is not None:
                r["eos_reason"] = reason
            if held:
                if job.held_text:
                    r["text"] = job.held_text
                job.held_text = ""
                job.held_tokens = []
            if eos:
                r["new_tokens"] = job.new_tokens
                if job.held_text:
                    r["held"] = {"text": job.held_text}
                self.sampled.append(job.tokens)
            results.append(r)
            return eos

        if token in job.stop_tokens:
            return emit(True, "stop_token")
        if job.new_tokens >= job.max_new_tokens:
            return emit(True, "max_new_tokens", held=True)
        if end_filter:
            return emit(True, "end_filter", held=True)
        if "\ufffd" in job.held_text:
            decoded = self.tokenizer.decode(job.held_tokens)
            if "\ufffd" in decoded:
                return emit()
            job.held_text = decoded
        for stop in job.stop_strings:
            at = job.held_text.find(stop)
            if at >= 0:
                job.held_text = job.held_text[:at]
                return emit(True, "stop_string", held=True)
            if any(job.held_text.endswith(stop[:n]) for n in range(1, len(stop))):
                return emit()
        return emit(held=True)


def runtime(paged_attention: bool = False) -> Runtime:
    return Runtime(
        config=Config,
        model=Model,
        caches={"fp16": Cache, "q8": Cache, "q6": Cache, "q4": Cache},
        tokenizer=ExlTokenizer,
        generator=Generator,
        job=Job,
        sampler=Sampler,
        paged_attention=paged_attention,
    )
