"""Each provider against a loopback server speaking its real wire format: tool calls,
structured output, errors, 429/5xx with retry, fallback, budget downgrade, key hygiene."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from silicon_agent.host.config import HostConfig
from silicon_agent.host.llm.gateway import Gateway, Ledger
from silicon_agent.host.llm.openai_compat import OpenAICompatProvider
from silicon_agent.host.llm.types import (
    FINAL_TOOL,
    GenParams,
    Message,
    ProviderError,
    StructuredOutputError,
    ToolCall,
    ToolSpec,
)

from .loopback import Loopback, Reply

pytestmark = pytest.mark.anyio

SECRET = "sk-test-7a1f-SECRET-never-logged"


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: str = Field(max_length=20)
    score: int


LINT = ToolSpec(
    name="lint",
    description="Lint sources",
    input_schema={
        "type": "object",
        "properties": {"sources": {"type": "array", "items": {"type": "string"}}},
        "required": ["sources"],
    },
)


def config(providers: dict[str, Any], role: dict[str, Any], **extra: Any) -> HostConfig:
    return HostConfig.model_validate(
        {
            "providers": providers,
            "roles": {"judge": role},
            "pricing": {
                "big": {"input_per_mtok": 2.0, "output_per_mtok": 10.0},
                "small": {"input_per_mtok": 0.1, "output_per_mtok": 0.2},
            },
            "retry": {"attempts": 3, "base_delay_s": 0.01, "max_delay_s": 0.05},
            **extra,
        }
    )


def openai_reply(content: str = "", calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "big",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


MESSAGES = [
    Message(role="system", content="You are the Judge."),
    Message(role="user", content="Judge this block."),
]


async def test_openai_compat_structured_retry_and_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_LLM_KEY", SECRET)
    with Loopback() as server:
        server.replies = [
            Reply({"error": {"message": "rate limited"}}, 429, {"retry-after": "0"}),
            Reply({"error": {"message": "busy"}}, 503),
            Reply(openai_reply('{"verdict": "pass", "score": 9}')),
        ]
        cfg = config(
            {
                "llama": {
                    "kind": "openai_compat",
                    "base_url": server.url + "/v1",
                    "dialect": "llamacpp",
                    "api_key_env": "TEST_LLM_KEY",
                }
            },
            {"model": {"provider": "llama", "model": "big"}},
        )
        gateway = Gateway(cfg)
        ledger = Ledger()
        answer = await gateway.structured(
            "judge", MESSAGES, Verdict, correlation_id="blk/1", ledger=ledger
        )
    assert answer == Verdict(verdict="pass", score=9)
    assert len(server.requests) == 3
    request = server.requests[-1]
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == f"Bearer {SECRET}"
    # llama.cpp's server takes the schema as a top-level json_schema.
    assert request["body"]["json_schema"]["properties"]["verdict"]["maxLength"] == 20
    assert "response_format" not in request["body"]
    assert [e.ok for e in ledger.events] == [False, False, True]
    last = ledger.events[-1]
    assert (last.input_tokens, last.output_tokens) == (100, 20)
    assert last.cost_usd == pytest.approx((100 * 2.0 + 20 * 10.0) / 1e6)
    assert last.correlation_id == "blk/1" and last.component == "judge" and last.model == "big"
    assert gateway.tokens_spent == 120
    dumped = json.dumps([e.model_dump() for e in ledger.events]) + "".join(
        x.model_dump_json() for x in ledger.exchanges
    )
    assert SECRET not in dumped


@pytest.mark.parametrize(
    ("dialect", "where"),
    [
        ("openai", ("response_format", "json_schema", "schema")),
        ("llamacpp", ("json_schema",)),
        ("llama-cpp-python", ("response_format", "schema")),
        ("vllm", ("structured_outputs", "json")),
        ("tabby", ("json_schema",)),
    ],
)
async def test_structured_output_dialects(dialect: str, where: tuple[str, ...]) -> None:
    with Loopback() as server:
        server.replies = [Reply(openai_reply('{"verdict": "fail", "score": 1}'))]
        provider = OpenAICompatProvider(server.url, dialect=dialect)  # type: ignore[arg-type]
        schema = Verdict.model_json_schema()
        response = await provider.generate(MESSAGES, None, schema, GenParams(model="big"))
    assert response.structured == {"verdict": "fail", "score": 1}
    node: Any = server.requests[0]["body"]
    for key in where:
        node = node[key]
    assert node == schema
    if dialect == "llama-cpp-python":
        # Its server rejects type json_schema; json_object with a schema is what works.
        assert server.requests[0]["body"]["response_format"]["type"] == "json_object"


async def test_openai_compat_tool_calls_then_final_answer() -> None:
    with Loopback() as server:
        server.replies = [
            Reply(
                openai_reply(
                    calls=[
                        {
                            "id": "call_a",
                            "type": "function",
                            "function": {"name": "lint", "arguments": '{"sources": ["a.sv"]}'},
                        }
                    ]
                )
            ),
            Reply(
                openai_reply(
                    calls=[
                        {
                            "id": "call_b",
                            "type": "function",
                            "function": {
                                "name": FINAL_TOOL,
                                "arguments": '{"verdict": "pass", "score": 7}',
                            },
                        }
                    ]
                )
            ),
        ]
        cfg = config(
            {"v": {"kind": "openai_compat", "base_url": server.url, "dialect": "vllm"}},
            {"model": {"provider": "v", "model": "big"}},
        )
        executed: list[ToolCall] = []

        async def execute(call: ToolCall) -> str:
            executed.append(call)
            return json.dumps({"status": "PASS", "diagnostics": []})

        ledger = Ledger()
        answer = await Gateway(cfg).structured(
            "judge",
            MESSAGES,
            Verdict,
            correlation_id="c",
            ledger=ledger,
            tools=[LINT],
            execute=execute,
        )
    assert answer.score == 7
    assert executed == [ToolCall(id="call_a", name="lint", arguments={"sources": ["a.sv"]})]
    first, second = (r["body"] for r in server.requests)
    assert [t["function"]["name"] for t in first["tools"]] == ["lint", FINAL_TOOL]
    assert first["tool_choice"] == "required"
    # The tool's result goes back as a tool message tied to the call id.
    assert second["messages"][-1] == {
        "role": "tool",
        "content": json.dumps({"status": "PASS", "diagnostics": []}),
        "tool_call_id": "call_a",
    }
    assert second["messages"][-2]["tool_calls"][0]["id"] == "call_a"
    assert ledger.tool_calls[0]["tool"] == "lint"


async def test_structured_repair_then_typed_failure() -> None:
    with Loopback() as server:
        server.replies = [
            Reply(openai_reply('{"verdict": "pass"}')),
            Reply(openai_reply('{"verdict": "pass", "score": 3}')),
            Reply(openai_reply("not json at all")),
            Reply(openai_reply('{"verdict": "a verdict far longer than twenty", "score": 1}')),
        ]
        cfg = config(
            {"o": {"kind": "openai_compat", "base_url": server.url}},
            {"model": {"provider": "o", "model": "big"}},
        )
        gateway = Gateway(cfg)
        repaired = await gateway.structured(
            "judge", MESSAGES, Verdict, correlation_id="c", ledger=Ledger()
        )
        assert repaired.score == 3
        repair_turn = server.requests[1]["body"]["messages"][-1]["content"]
        assert "score" in repair_turn and "does not match" in repair_turn
        with pytest.raises(StructuredOutputError) as failure:
            await gateway.structured(
                "judge", MESSAGES, Verdict, correlation_id="c", ledger=Ledger()
            )
    assert "verdict" in failure.value.errors
    assert len(server.requests) == 4


async def test_fallback_model_after_retries() -> None:
    with Loopback() as bad, Loopback() as good:
        bad.replies = [Reply({"error": "down"}, 502) for _ in range(3)]
        good.replies = [Reply(openai_reply('{"verdict": "ok", "score": 5}'))]
        cfg = config(
            {
                "bad": {"kind": "openai_compat", "base_url": bad.url},
                "good": {"kind": "openai_compat", "base_url": good.url},
            },
            {
                "model": {"provider": "bad", "model": "big"},
                "fallback": {"provider": "good", "model": "small"},
            },
        )
        ledger = Ledger()
        answer = await Gateway(cfg).structured(
            "judge", MESSAGES, Verdict, correlation_id="c", ledger=ledger
        )
    assert answer.score == 5
    assert len(bad.requests) == 3 and len(good.requests) == 1
    assert good.requests[0]["body"]["model"] == "small"
    assert [e.model for e in ledger.events] == ["big", "big", "big", "small"]


async def test_client_error_is_not_retried() -> None:
    with Loopback() as server:
        server.replies = [Reply({"error": {"message": "bad request"}}, 400)]
        cfg = config(
            {"o": {"kind": "openai_compat", "base_url": server.url}},
            {"model": {"provider": "o", "model": "big"}},
        )
        with pytest.raises(ProviderError) as failure:
            await Gateway(cfg).generate("judge", MESSAGES, correlation_id="c", ledger=Ledger())
    assert failure.value.status == 400 and not failure.value.retryable
    assert len(server.requests) == 1


async def test_budget_low_moves_role_to_cheap_model() -> None:
    with Loopback() as server:
        server.replies = [Reply(openai_reply('{"verdict": "ok", "score": 1}')) for _ in range(2)]
        cfg = config(
            {"o": {"kind": "openai_compat", "base_url": server.url}},
            {
                "model": {"provider": "o", "model": "big"},
                "cheap": {"provider": "o", "model": "small"},
            },
            budget={"max_tokens": 1000, "cheap_when_left": 0.2},
        )
        gateway = Gateway(cfg, tokens_spent=700)
        await gateway.structured("judge", MESSAGES, Verdict, correlation_id="c", ledger=Ledger())
        # 700 + 120 spent: 18 % left, under the 20 % line.
        await gateway.structured("judge", MESSAGES, Verdict, correlation_id="c", ledger=Ledger())
    assert [r["body"]["model"] for r in server.requests] == ["big", "small"]


def ollama_reply(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": "qwen3:4b",
        "created_at": "2026-01-01T00:00:00Z",
        "message": {"role": "assistant", **message},
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 42,
        "eval_count": 8,
    }


async def test_ollama_tools_format_and_retry() -> None:
    with Loopback() as server:
        server.replies = [
            Reply({"error": "model is loading"}, 503),
            Reply(
                ollama_reply(
                    {
                        "content": "",
                        "thinking": "lint first",
                        "tool_calls": [
                            {"function": {"name": "lint", "arguments": {"sources": ["a.sv"]}}}
                        ],
                    }
                )
            ),
            Reply(ollama_reply({"content": '{"verdict": "pass", "score": 4}'})),
        ]
        cfg = config(
            {"ol": {"kind": "ollama", "host": server.url}},
            {"model": {"provider": "ol", "model": "qwen3:4b"}, "max_tool_calls": 1},
        )
        calls: list[ToolCall] = []

        async def execute(call: ToolCall) -> str:
            calls.append(call)
            return '{"status": "PASS"}'

        ledger = Ledger()
        answer = await Gateway(cfg).structured(
            "judge",
            MESSAGES,
            Verdict,
            correlation_id="c",
            ledger=ledger,
            tools=[LINT],
            execute=execute,
        )
    assert answer.score == 4
    assert calls[0].name == "lint" and calls[0].arguments == {"sources": ["a.sv"]}
    assert calls[0].id.startswith("call_")  # Ollama gives none; the gateway makes one
    with_tools, after_tool = server.requests[1]["body"], server.requests[2]["body"]
    assert server.requests[1]["path"] == "/api/chat"
    assert [t["function"]["name"] for t in with_tools["tools"]] == ["lint", FINAL_TOOL]
    # The tool budget is spent: the last call is held to the schema with format=.
    assert after_tool["format"] == Verdict.model_json_schema()
    assert after_tool["messages"][-1] == {
        "role": "tool",
        "content": '{"status": "PASS"}',
        "tool_name": "lint",
    }
    assert ledger.exchanges[1].response is not None
    assert ledger.exchanges[1].response.reasoning == "lint first"
    assert ledger.events[-1].input_tokens == 42


def anthropic_reply(content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "big",
        "content": content,
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 300, "output_tokens": 40},
    }


async def test_anthropic_tool_use_forced_json_and_overload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_ANTHROPIC_KEY", SECRET)
    with Loopback() as server:
        server.replies = [
            Reply({"type": "error", "error": {"type": "overloaded_error", "message": "x"}}, 529),
            Reply(
                anthropic_reply(
                    [
                        {"type": "thinking", "thinking": "check lint"},
                        {"type": "text", "text": "Linting."},
                        {
                            "type": "tool_use",
                            "id": "toolu_1",
                            "name": "lint",
                            "input": {"sources": ["b.sv"]},
                        },
                    ]
                )
            ),
            Reply(
                anthropic_reply(
                    [
                        {
                            "type": "tool_use",
                            "id": "toolu_2",
                            "name": FINAL_TOOL,
                            "input": {"verdict": "pass", "score": 8},
                        }
                    ]
                )
            ),
        ]
        cfg = config(
            {
                "an": {
                    "kind": "anthropic",
                    "base_url": server.url,
                    "api_key_env": "TEST_ANTHROPIC_KEY",
                }
            },
            {"model": {"provider": "an", "model": "big"}},
        )

        async def execute(call: ToolCall) -> str:
            return '{"status": "PASS"}'

        ledger = Ledger()
        answer = await Gateway(cfg).structured(
            "judge",
            MESSAGES,
            Verdict,
            correlation_id="c",
            ledger=ledger,
            tools=[LINT],
            execute=execute,
        )
    assert answer.score == 8
    first = server.requests[1]
    assert first["path"] == "/v1/messages"
    assert first["headers"]["x-api-key"] == SECRET
    assert first["headers"]["anthropic-version"] == "2023-06-01"
    body = first["body"]
    assert body["system"] == "You are the Judge."
    assert body["tools"][0] == {
        "name": "lint",
        "description": "Lint sources",
        "input_schema": LINT.input_schema,
    }
    assert body["tool_choice"] == {"type": "any"}
    followup = server.requests[2]["body"]["messages"]
    assert followup[-2]["content"][-1]["type"] == "tool_use"
    assert followup[-1] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"status": "PASS"}'}
        ],
    }
    assert ledger.exchanges[1].response.reasoning == "check lint"  # type: ignore[union-attr]
    assert SECRET not in "".join(e.model_dump_json() for e in ledger.exchanges)


async def test_anthropic_forces_answer_tool_without_other_tools() -> None:
    with Loopback() as server:
        server.replies = [
            Reply(
                anthropic_reply(
                    [
                        {
                            "type": "tool_use",
                            "id": "t",
                            "name": FINAL_TOOL,
                            "input": {"verdict": "fail", "score": 0},
                        }
                    ]
                )
            )
        ]
        cfg = config(
            {"an": {"kind": "anthropic", "base_url": server.url, "api_key_env": "NO_SUCH_KEY"}},
            {"model": {"provider": "an", "model": "big"}},
        )
        answer = await Gateway(cfg).structured(
            "judge", MESSAGES, Verdict, correlation_id="c", ledger=Ledger()
        )
    assert answer.verdict == "fail"
    assert server.requests[0]["body"]["tool_choice"] == {"type": "tool", "name": FINAL_TOOL}
