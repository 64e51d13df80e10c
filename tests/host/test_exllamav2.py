"""The ExLlamaV2 in-process provider. What runs here for real: the unavailability checks (no
exllamav2 in this venv, no CUDA on this machine), config and preset selection, the prompt /
schema / tool-call adaptation, real byte-level BPE and SentencePiece-style tokenizers (trained
here with `tokenizers`), and the JSON-schema constraint (lm-format-enforcer) wrapped as
exllamav2's sampling filter. What is faked: the model behind `Backend.complete` in the
adaptation tests, and in the constraint tests exllamav2's generator and sampler with a random
model (tests/host/exl2_standin.py), which call the filter the way exllamav2 0.3.2 does.
exllamav2's own generation needs a CUDA GPU: bench/exllamav2_gpu_check.py runs it there."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import json
import logging
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from silicon_agent.host.config import ExLlamaV2Config, load_config
from silicon_agent.host.llm.exl2_constraint import (
    ConstraintBroken,
    clean_reply,
    drop_trailing_commas,
)
from silicon_agent.host.llm.exllamav2_inproc import (
    BuildProgress,
    Completion,
    ExLlamaV2Backend,
    ExLlamaV2Provider,
    extension_state,
    render,
    unavailable_reason,
)
from silicon_agent.host.llm.gateway import Gateway, Ledger, build_provider
from silicon_agent.host.llm.types import GenParams, Message, ProviderError, ToolCall
from silicon_agent.host.roles.schemas import Reflection, rtl_submission_model
from tests.host.exl2_standin import LINT, SIMULATE, SimArgs, check_reply

PARAMS = GenParams(model="qwen-exl2", max_tokens=400, temperature=0.0)


class ScriptedBackend:
    """Stands in for the model: replies in order and records what the provider sent."""

    def __init__(self, replies: list[str | Exception], cut: int | None = None) -> None:
        self.replies = list(replies)
        self.cut = cut  # the reply (index) that runs into max_new_tokens
        self.calls: list[dict[str, Any]] = []

    def complete(self, prompt: str, schema: dict[str, Any] | None, **kw: Any) -> Completion:
        index = len(self.calls)
        self.calls.append({"prompt": prompt, "schema": schema, **kw})
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return Completion(
            text=reply,
            prompt_tokens=len(prompt.split()),
            new_tokens=max(1, len(reply) // 3),
            eos_reason="max_new_tokens" if index == self.cut else "stop_token",
        )


def config_with(provider: dict[str, Any]) -> Any:
    from silicon_agent.host.config import HostConfig

    return HostConfig.model_validate(
        {
            "providers": {"exl2": provider},
            "roles": {"default": {"model": {"provider": "exl2", "model": "qwen-exl2"}}},
            "retry": {"attempts": 1},
        }
    )


def test_unavailable_names_the_extra_and_the_reason() -> None:
    if importlib.util.find_spec("exllamav2") is not None:
        pytest.skip("the exl2 extra is installed here")
    reason = unavailable_reason()
    assert reason is not None and "exllamav2 is not installed" in reason
    assert "silicon-agent[exl2]" in reason
    provider = build_provider(
        config_with({"kind": "exllamav2_inproc", "model_dir": "/nowhere"}), "exl2"
    )
    assert isinstance(provider, ExLlamaV2Provider)  # built lazily: nothing loaded yet
    with pytest.raises(ProviderError, match=r"optional extra 'exl2'") as caught:
        asyncio.run(provider.generate([Message(role="user", content="hi")], None, None, PARAMS))
    assert caught.value.retryable is False


def test_no_cuda_is_found_before_exllamav2_is_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("lmformatenforcer")
    # An installed exllamav2 whose import would fail the way the real one does on a machine
    # without CUDA (its extension build breaks); the check must not import it.
    package = tmp_path / "exllamav2"
    package.mkdir()
    (package / "__init__.py").write_text("raise IndexError('list index out of range')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is present")
    reason = unavailable_reason()
    assert reason is not None and "needs a CUDA GPU" in reason
    assert "torch.cuda.is_available() is False" in reason
    assert "exllamav2" not in sys.modules


def test_preset_selects_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXL2_MODEL_DIR", "/models/qwen-exl2")
    config = load_config("local-exl2")
    spec = config.providers["exl2"]
    assert isinstance(spec, ExLlamaV2Config) and spec.model_dir == "/models/qwen-exl2"
    for role in ("rtl_engineer", "reflection_debug", "verification_engineer"):
        assert config.role(role).model.provider == "exl2"
        assert config.role(role).fallback is not None  # a GPU-less host falls back
    provider = build_provider(config, "exl2")
    assert isinstance(provider, ExLlamaV2Provider) and provider.prompt_format == "chatml"


def test_chatml_prompt_carries_tools_and_results() -> None:
    call = ToolCall(id="c1", name="check_draft", arguments={"code": "module m; endmodule"})
    messages = [
        Message(role="system", content="You are the RTL Engineer."),
        Message(role="user", content="Write m."),
        Message(role="assistant", tool_calls=[call]),
        Message(role="tool", content='{"status": "PASS"}', tool_call_id="c1", name="check_draft"),
    ]
    text = render(messages, [LINT], "chatml")
    assert text.startswith("<|im_start|>system\n### Tools")
    assert "- check_draft: Lint a draft" in text
    assert '<|im_start|>assistant\n[{"tool": "check_draft"' in text
    assert '<|im_start|>user\nResult of tool check_draft:\n{"status": "PASS"}<|im_end|>' in text
    assert text.endswith("<|im_start|>assistant\n")
    assert render(messages, [LINT], "plain").endswith("### Assistant\n")


def test_tool_call_then_structured_answer_through_the_gateway() -> None:
    model = rtl_submission_model(200)
    code = "module m; endmodule"
    backend = ScriptedBackend(
        [
            json.dumps({"tool": "check_draft", "arguments": {"code": code}}),
            json.dumps({"tool": "final_answer", "arguments": {"code": code, "notes": "ok"}}),
        ]
    )
    provider = ExLlamaV2Provider("/models/qwen-exl2", backend=backend, name="exl2")
    gateway = Gateway(
        config_with({"kind": "exllamav2_inproc", "model_dir": "/m"}), {"exl2": provider}
    )
    seen: list[ToolCall] = []

    async def execute(call: ToolCall) -> str:
        seen.append(call)
        return json.dumps({"status": "PASS", "diagnostics": []})

    ledger = Ledger()
    answer = asyncio.run(
        gateway.structured(
            "rtl_engineer",
            [Message(role="user", content="Write m.")],
            model,
            correlation_id="m/0",
            ledger=ledger,
            tools=[LINT],
            execute=execute,
        )
    )
    assert answer.code == code and answer.notes == "ok"
    assert [c.name for c in seen] == ["check_draft"] and seen[0].arguments == {"code": code}
    # The constraint offered the tool or the final answer, each with its own schema.
    first = backend.calls[0]["schema"]
    choices = {c["properties"]["tool"]["const"]: c for c in first["anyOf"]}
    assert set(choices) == {"check_draft", "final_answer"}
    assert choices["final_answer"]["properties"]["arguments"] == model.model_json_schema()
    assert choices["check_draft"]["properties"]["arguments"] == LINT.input_schema
    assert "Result of tool check_draft" in backend.calls[1]["prompt"]
    assert backend.calls[0]["stop"] == ["<|im_end|>"]
    # Tokens and latency are counted like every provider's.
    events = ledger.events
    assert len(events) == 2 and all(e.ok for e in events)
    assert all(e.input_tokens > 0 and e.output_tokens > 0 for e in events)
    assert all(e.latency_s > 0 for e in events) and events[0].provider == "exl2"


def test_cut_answer_is_repaired_and_failures_are_typed() -> None:
    valid = {"hypotheses": [{"cause": "c", "evidence": "e"}], "fix_plan": "p"}
    backend = ScriptedBackend(['{"hypotheses": [{"cause": "the incr', json.dumps(valid)], cut=0)
    provider = ExLlamaV2Provider("/m", backend=backend, name="exl2")
    gateway = Gateway(
        config_with({"kind": "exllamav2_inproc", "model_dir": "/m"}), {"exl2": provider}
    )
    ledger = Ledger()
    answer = asyncio.run(
        gateway.structured(
            "reflection_debug",
            [Message(role="user", content="x")],
            Reflection,
            correlation_id="b/1",
            ledger=ledger,
        )
    )
    assert answer.fix_plan == "p"
    first = ledger.exchanges[0].response
    assert first is not None and first.finish_reason == "length" and first.structured is None
    assert backend.calls[0]["schema"] == Reflection.model_json_schema()
    assert backend.calls[0]["max_new_tokens"] == 2048  # the role's max_tokens
    assert "does not match the required JSON schema" in backend.calls[1]["prompt"]
    broken = ExLlamaV2Provider("/m", backend=ScriptedBackend([RuntimeError("CUDA out of memory")]))
    with pytest.raises(ProviderError, match="CUDA out of memory") as caught:
        asyncio.run(broken.generate([Message(role="user", content="x")], None, None, PARAMS))
    assert caught.value.retryable is False


def test_broken_constraint_is_a_provider_error() -> None:
    broken = ConstraintBroken("no token may follow '{\"a\"'")
    provider = ExLlamaV2Provider("/m", backend=ScriptedBackend([broken]))
    with pytest.raises(ProviderError, match=r"schema constraint: no token may follow") as caught:
        asyncio.run(
            provider.generate(
                [Message(role="user", content="x")], None, Reflection.model_json_schema(), PARAMS
            )
        )
    assert caught.value.retryable is False


def test_trailing_commas_the_constraint_lets_through_are_dropped() -> None:
    text = '{"code": "a,} \\",]", "list": [1, 2 ,\n], "x": {"y": 1, },\n}'
    assert json.loads(drop_trailing_commas(text)) == {
        "code": 'a,} ",]',
        "list": [1, 2],
        "x": {"y": 1},
    }
    # A lone surrogate escape is JSON but no character: it reads as U+FFFD.
    assert json.loads(clean_reply('{"a": ["x\\ud83dy", "\\ud83d\\ude00",]}')) == {
        "a": ["x\ufffdy", "\U0001f600"]
    }


# --- the constraint, on real tokenizers, through exllamav2's filter path -------------------


@pytest.fixture(scope="module", params=["bpe", "spm"])
def model_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("tokenizers")
    pytest.importorskip("lmformatenforcer")
    from tests.host.exl2_standin import train_tokenizer

    return train_tokenizer(request.param, tmp_path_factory.mktemp(request.param))


def standin_backend(model_dir: Path, paged_attention: bool = False) -> ExLlamaV2Backend:
    from tests.host import exl2_standin

    return ExLlamaV2Backend(
        str(model_dir), 8192, "q8", None, runtime=lambda: exl2_standin.runtime(paged_attention)
    )


def test_vocabulary_gives_each_token_the_text_it_adds(model_dir: Path) -> None:
    from tokenizers import Tokenizer

    from silicon_agent.host.llm.exl2_constraint import Vocabulary

    hf = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    config = json.loads((model_dir / "config.json").read_text())
    vocabulary = Vocabulary.from_hf(hf, [config["eos_token_id"]])
    offered = [t for t, p in enumerate(vocabulary.pieces) if p]
    assert len(offered) > 100
    # Never offered: the specials (end included), nothing-adding and part-character tokens.
    specials = {hf.token_to_id(s) for s in ("<s>", "</s>", "<unk>")} - {None}
    assert not specials & set(offered)
    assert all("\ufffd" not in vocabulary.pieces[t] for t in offered)  # type: ignore[operator]
    # Any run of offered tokens reads as the tokenizer decodes it (SentencePiece drops the
    # leading spaces of a whole text).
    rng = random.Random(7)
    for _ in range(300):
        run = [rng.choice(offered) for _ in range(rng.randint(1, 12))]
        assert vocabulary.text(run).lstrip(" ") == hf.decode(run).lstrip(" ")
    model = json.loads((model_dir / "tokenizer.json").read_text())["model"]
    assert model["type"] == "BPE"  # the only model exllamav2 0.3 loads
    if model_dir.name.startswith("spm"):
        # Converted SentencePiece: byte fallback over the 256 byte tokens, after the specials.
        assert model["byte_fallback"] is True
        assert [hf.id_to_token(i) for i in (0, 1, 2, 3, 258)] == [
            "<unk>",
            "<s>",
            "</s>",
            "<0x00>",
            "<0xFF>",
        ]
        piece = {b: vocabulary.pieces[hf.token_to_id(f"<0x{b:02X}>")] for b in range(256)}
        assert piece[0x0A] == "\n" and piece[0x41] == "A" and piece[0x7B] == "{"
        assert all(piece[b] == chr(b) for b in range(128))  # ASCII bytes add their character
        assert all(piece[b] is None for b in range(128, 256))  # part of a character: left out
        # A character the pieces lack is spelled in bytes, and reads back whole.
        ids = hf.encode("\U0001f600\n", add_special_tokens=False).ids
        assert hf.id_to_token(ids[-1]) == "<0x0A>" and hf.decode(ids).strip() == "\U0001f600"


def unigram_or_wordpiece(kind: str, folder: Path) -> Path:
    """A tokenizer.json exllamav2 0.3 cannot read (its HF wrapper assumes BPE)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    from tests.host.exl2_standin import CORPUS, SPECIALS

    if kind == "Unigram":
        tok = Tokenizer(models.Unigram())
        trainer: Any = trainers.UnigramTrainer(
            vocab_size=200, special_tokens=SPECIALS, unk_token="<unk>"
        )
    else:
        tok = Tokenizer(models.WordPiece(unk_token="<unk>"))
        trainer = trainers.WordPieceTrainer(vocab_size=200, special_tokens=SPECIALS)
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.train_from_iterator(CORPUS * 4, trainer)
    folder.mkdir(parents=True, exist_ok=True)
    tok.save(str(folder / "tokenizer.json"))
    config = {"bos_token_id": 1, "eos_token_id": 2, "max_position_embeddings": 8192}
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def generate_once(backend: ExLlamaV2Backend) -> None:
    provider = ExLlamaV2Provider(backend.model_dir, backend=backend, name="exl2")
    asyncio.run(
        provider.generate(
            [Message(role="user", content="hi")], None, Reflection.model_json_schema(), PARAMS
        )
    )


@pytest.mark.parametrize("kind", ["Unigram", "WordPiece"])
def test_tokenizer_exllamav2_cannot_read_is_refused_by_name(kind: str, tmp_path: Path) -> None:
    """exllamav2 0.3 loads a tokenizer.json with a BPE model only; any other model is refused
    before loading, with the file, its model type and what exllamav2 reads."""
    pytest.importorskip("tokenizers")
    folder = unigram_or_wordpiece(kind, tmp_path / "model")
    with pytest.raises(ProviderError) as caught:
        generate_once(standin_backend(folder))
    message = str(caught.value)
    assert str(folder / "tokenizer.json") in message and f"{kind} tokenizer model" in message
    assert "reads only tokenizer.json" in message and "BPE" in message
    assert "SentencePiece converted with byte fallback" in message
    assert caught.value.retryable is False
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ProviderError, match=r"no tokenizer.json in .*model: exllamav2 0.3"):
        generate_once(standin_backend(folder))
    (folder / "tokenizer.json").write_text("[1, 2]")
    with pytest.raises(ProviderError, match=r"tokenizer.json is not a tokenizer file"):
        generate_once(standin_backend(folder))


def test_any_load_failure_is_a_provider_error(model_dir: Path) -> None:
    """Whatever exllamav2 raises while it loads (here its tokenizer's AttributeError, as
    0.3.2 raises on a model it misreads) reaches the caller as a ProviderError naming the
    model folder and the exception; the provider's own errors pass through as they are."""
    from tests.host import exl2_standin

    class BrokenTokenizer(exl2_standin.ExlTokenizer):
        def __init__(self, config: Any) -> None:
            raise AttributeError("'Unigram' object has no attribute 'unk_token'")

    def broken(**parts: Any) -> Any:
        return lambda: dataclasses.replace(exl2_standin.runtime(), **parts)

    for parts, raised in (
        ({"tokenizer": BrokenTokenizer}, "AttributeError: 'Unigram' object"),
        ({"caches": {}}, "KeyError: 'q8'"),
    ):
        backend = ExLlamaV2Backend(str(model_dir), 8192, "q8", None, runtime=broken(**parts))
        with pytest.raises(ProviderError) as caught:
            generate_once(backend)
        message = str(caught.value)
        assert f"could not load the model in {model_dir}" in message and raised in message
        assert caught.value.retryable is False
        assert backend._loaded is None  # the next call tries again
        with pytest.raises(ProviderError, match=raised):
            backend.load()  # loading ahead of the first call fails the same way
    backend = standin_backend(model_dir)
    backend.load()
    assert backend._loaded is not None


@pytest.mark.parametrize("temperature", [1.0, 0.0])
def test_random_model_through_the_filter_answers_every_schema(
    model_dir: Path, temperature: float
) -> None:
    """A model that proposes random tokens, sampled through the filter as exllamav2 does:
    every schema reply parses to its schema, every tool reply is an offered tool with valid
    arguments, and every reply ends at end-of-sequence, never cut or stopped early."""
    backend = standin_backend(model_dir)
    provider = ExLlamaV2Provider(str(model_dir), backend=backend, name="exl2")
    answer = rtl_submission_model(60)
    calls = 10 if temperature else 2  # greedy: one reply per prompt
    replies = []
    for seed in range(calls):
        params = GenParams(model="tiny", max_tokens=3000, temperature=temperature, seed=seed)
        reflect = asyncio.run(
            provider.generate(
                [Message(role="user", content=f"reflect {seed}")],
                None,
                Reflection.model_json_schema(),
                params,
            )
        )
        check_reply(reflect, Reflection)
        tool = asyncio.run(
            provider.generate(
                [Message(role="user", content=f"write {seed}")],
                [LINT, SIMULATE],
                answer.model_json_schema(),
                params,
            )
        )
        check_reply(tool, answer)
        replies += [reflect, tool]
    assert all(r.finish_reason == "stop" for r in replies)
    generator = backend._loaded.generator  # type: ignore[union-attr]
    eos = backend._loaded.vocabulary.eos_ids  # type: ignore[union-attr]
    assert all(tokens[-1] in eos for tokens in generator.sampled)
    assert sum(len(tokens) for tokens in generator.sampled) > 10 * len(replies)


def test_filter_refuses_a_fraction_where_an_integer_goes(model_dir: Path) -> None:
    from silicon_agent.host.llm.exl2_constraint import SchemaConstraint

    backend = standin_backend(model_dir)
    vocabulary = backend._load().vocabulary
    constraint = SchemaConstraint(vocabulary, SimArgs.model_json_schema())
    hf = backend._load().tokenizer.hf
    for token in hf.encode('{"cycles": 12', add_special_tokens=False).ids:
        assert token in constraint.allowed()
        constraint.feed(token)
    after = {vocabulary.pieces[t][:1] for t in constraint.allowed() if t not in vocabulary.eos_ids}
    assert after and not after & {".", "e", "E"}
    assert after & set("0123456789")


def test_string_takes_every_character_a_token_adds(model_dir: Path) -> None:
    """Verilog in a string with a minimum length: "~" and "|" are characters like any other,
    not the end of the answer."""
    from silicon_agent.host.llm.exl2_constraint import SchemaConstraint

    backend = standin_backend(model_dir)
    vocabulary = backend._load().vocabulary
    model = rtl_submission_model(60)
    constraint = SchemaConstraint(vocabulary, model.model_json_schema())
    text = '{"code": "~a | b;", "notes": "~ok"}'
    for token in backend._load().tokenizer.hf.encode(text, add_special_tokens=False).ids:
        allowed = constraint.allowed()
        assert token in allowed and not allowed & vocabulary.eos_ids, constraint.text()
        constraint.feed(token)
    assert constraint.allowed() & vocabulary.eos_ids
    assert json.loads(constraint.text()) == json.loads(text)


def test_unpaged_without_flash_attn_said_once(
    model_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from tests.host.exl2_standin import Generator

    params = dict(max_new_tokens=40, temperature=1.0, seed=1, stop=["<|im_end|>"])
    for paged in (False, True):
        Generator.built.clear()
        caplog.clear()
        backend = standin_backend(model_dir, paged_attention=paged)
        with caplog.at_level(logging.WARNING):
            for _ in range(2):
                backend.complete("hi", Reflection.model_json_schema(), **params)  # type: ignore[arg-type]
        assert Generator.built == [{"paged": paged}]
        notes = [r.getMessage() for r in caplog.records if "unpaged" in r.getMessage()]
        assert len(notes) == (0 if paged else 1), notes
        if not paged:
            assert "flash-attn" in notes[0] and "one job at a time" in notes[0]


def test_unconstrained_reply_keeps_the_text_held_at_the_stop_token(model_dir: Path) -> None:
    """exllamav2 holds text back while it may begin a stop string and, when the reply ends
    at end-of-sequence, reports that text apart: the reply must still carry it."""
    from tests.host import exl2_standin

    backend = standin_backend(model_dir)
    loaded = backend._load()
    eos = next(iter(loaded.vocabulary.eos_ids))
    pieces = loaded.tokenizer.pieces
    word = next(t for t, p in enumerate(pieces) if p.strip().isalpha())
    script = [word, pieces.index("<"), eos]

    class Scripted(exl2_standin.Generator):
        def sample(self, job: Any, scores: list[float]) -> tuple[int, bool]:
            return script[job.new_tokens], False

    loaded.generator.__class__ = Scripted
    done = backend.complete(
        "hi", None, max_new_tokens=10, temperature=1.0, seed=0, stop=["<|im_end|>"]
    )
    assert done.text == pieces[word] + "<" and done.eos_reason == "stop_token"


def test_build_progress_is_logged_with_its_time(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Where exllamav2's extension stands decides whether its import compiles it.
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path))
    state, folder = extension_state()
    assert state == "build" and folder == tmp_path / "exllamav2_ext"
    folder.mkdir(exist_ok=True)
    with caplog.at_level(logging.WARNING), BuildProgress(folder, every=0.01) as progress:
        (folder / "a.o").write_bytes(b"")
        while not any("1 objects compiled" in r.getMessage() for r in caplog.records):
            progress._stop.wait(0.01)
    lines = [r.getMessage() for r in caplog.records]
    assert "needs nvcc" in lines[0] and "about 3 min" in lines[0]
    assert "CUDA extension built in" in lines[-1]
    (folder / "exllamav2_ext.so").write_bytes(b"")
    assert extension_state() == ("cached", folder)
