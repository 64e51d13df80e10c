"""The ExLlamaV2 in-process provider. What runs here for real: the unavailability checks (no
exllamav2 in this venv, no CUDA on this machine), config and preset selection, the prompt /
schema / tool-call adaptation, and the JSON-schema constraint (lm-format-enforcer) driving a
stand-in model over a tiny vocabulary. The one thing faked is the model behind
`Backend.complete`; exllamav2's own generation needs a CUDA GPU and is not run here."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from silicon_agent.host.config import ExLlamaV2Config, load_config
from silicon_agent.host.llm.exllamav2_inproc import (
    Completion,
    ExLlamaV2Provider,
    drop_trailing_commas,
    render,
    unavailable_reason,
)
from silicon_agent.host.llm.gateway import Gateway, Ledger, build_provider
from silicon_agent.host.llm.types import GenParams, Message, ProviderError, ToolCall, ToolSpec
from silicon_agent.host.roles.schemas import Reflection, rtl_submission_model

PARAMS = GenParams(model="qwen-exl2", max_tokens=400, temperature=0.0)
LINT = ToolSpec(
    name="check_draft",
    description="Lint a draft",
    input_schema={
        "type": "object",
        "properties": {"code": {"type": "string", "maxLength": 40}},
        "required": ["code"],
    },
)


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


def test_trailing_commas_the_constraint_lets_through_are_dropped() -> None:
    text = '{"code": "a,} \\",]", "list": [1, 2 ,\n], "x": {"y": 1, },\n}'
    assert json.loads(drop_trailing_commas(text)) == {
        "code": 'a,} ",]',
        "list": [1, 2],
        "x": {"y": 1},
    }


class TinyVocabModel:
    """A stand-in model over a tiny vocabulary that picks any token the constraint allows:
    whatever it emits must still be valid JSON for the schema."""

    PIECES = [chr(c) for c in range(32, 127)] + ["\n", '"tool"', '"arguments"', "final_answer"]

    def __init__(self, seed: int) -> None:
        from lmformatenforcer import TokenEnforcerTokenizerData

        self.rng = random.Random(seed)
        self.eos = len(self.PIECES)
        regular = [(i, p, p.startswith(" ")) for i, p in enumerate(self.PIECES)]
        self.data = TokenEnforcerTokenizerData(
            regular, self.decode, self.eos, False, len(self.PIECES) + 1
        )

    def decode(self, tokens: list[int]) -> str:
        return "".join(self.PIECES[t] for t in tokens if t != self.eos)

    def complete(self, prompt: str, schema: dict[str, Any] | None, **kw: Any) -> Completion:
        from silicon_agent.host.llm.exllamav2_inproc import SchemaConstraint

        assert schema is not None
        constraint = SchemaConstraint(self.data, schema)
        constraint.begin()
        emitted: list[int] = []
        for _ in range(kw["max_new_tokens"]):
            allowed = sorted(constraint.allowed())  # the enforcer's order is a set's
            # Prefer closing the answer once that is allowed, as filter_prefer_eos does.
            if self.eos in allowed and self.rng.random() < 0.7:
                break
            token = self.rng.choice([t for t in allowed if t != self.eos] or [self.eos])
            if token == self.eos:
                break
            constraint.feed(token)
            emitted.append(token)
        return Completion(
            text=self.decode(emitted), prompt_tokens=len(prompt), new_tokens=len(emitted)
        )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_schema_constraint_holds_any_model_to_the_schema(seed: int) -> None:
    pytest.importorskip("lmformatenforcer")
    provider = ExLlamaV2Provider("/m", backend=TinyVocabModel(seed))
    params = GenParams(model="tiny", max_tokens=1500)
    # A structured answer with nested definitions ($defs / $ref), as the roles ask for.
    reply = asyncio.run(
        provider.generate(
            [Message(role="user", content="reflect")], None, Reflection.model_json_schema(), params
        )
    )
    assert reply.structured is not None, reply.text
    Reflection.model_validate(reply.structured)
    # A tool call or the final answer, never anything else.
    model = rtl_submission_model(60)
    reply = asyncio.run(
        provider.generate(
            [Message(role="user", content="write")], [LINT], model.model_json_schema(), params
        )
    )
    if reply.tool_calls:
        assert reply.tool_calls[0].name == "check_draft"
        assert len(reply.tool_calls[0].arguments["code"]) <= 40
    else:
        assert reply.structured is not None, reply.text
        model.model_validate(reply.structured)
