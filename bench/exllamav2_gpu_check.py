"""ExLlamaV2 on a CUDA GPU, end to end through the in-process provider (not run by the test
suite: it needs a GPU). On the GPU machine, from the checkout's root:

    python bench/exllamav2_gpu_check.py [--wheels DIR] [--calls 20] [--kinds bpe,spm]
        [--max-tokens 2500] [--profile]

--wheels installs the carried wheels first (pip --no-index --find-links DIR: exllamav2 0.3.2
without its dependencies, then lm-format-enforcer 0.11.3, tokenizers, ninja, rich, pillow,
safetensors, numpy and their dependencies where the machine lacks them; a CUDA torch and
nvcc must be there already: exllamav2 compiles its extension on first import). On an image
with torch but no pydantic, the folder held exllamav2 0.3.2, lm-format-enforcer 0.11.3,
interegular 0.3.3, pydantic 2.14.4, pydantic-core 2.50.5 (cp312), annotated-types,
typing-inspection 0.4.5 and typing-extensions 4.16.0: 4.2 MB (what it measured on an H100:
docs/host.md). Then, per
tokenizer kind (byte-level BPE; SentencePiece as converted to tokenizer.json: BPE with byte
fallback), it trains a tiny tokenizer, builds a tiny random Llama (2 layers, hidden 256, fp16
safetensors) around it, and runs the provider's schema call (the Reflection role's schema)
and tool call (two tools and a final answer) --calls times each with random seeds at
temperature 1, at most --max-tokens each. It prints one line per call as it finishes (kind,
seed, call, tokens, seconds, parsed or the error), then per kind how many replies parse to
their schema, how many tokens were generated and the tokens per second, and exits non-zero
if any reply does not parse. Budget: ~3 min for the extension build on 16 cores (once per
machine), then per kind the model load and the calls. --profile adds one schema call per kind
under cProfile (the functions taking the most time), to tell per-token overhead from compute."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def install(wheels: Path) -> None:
    """exllamav2 without its conversion/server dependencies (pandas, fastparquet, websockets),
    then what its runtime imports (tokenizers undeclared, ninja for the extension build)."""
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--find-links", str(wheels)]
    subprocess.run([*pip, "--no-deps", "exllamav2==0.3.2"], check=True)
    runtime = ["lm-format-enforcer==0.11.3", "tokenizers", "ninja", "rich", "pillow"]
    subprocess.run([*pip, *runtime, "safetensors", "numpy"], check=True)


def tiny_llama(folder: Path, kind: str) -> Path:
    """A random Llama around a freshly trained tokenizer: the provider's whole path, from
    config.json and tokenizer.json to exllamav2's kernels, without downloading a model."""
    import torch
    from safetensors.torch import save_file
    from tokenizers import Tokenizer

    from tests.host.exl2_standin import train_tokenizer

    train_tokenizer(kind, folder)
    tokens = Tokenizer.from_file(str(folder / "tokenizer.json")).get_vocab_size()
    vocab = -(-tokens // 128) * 128  # the head padded, as real models do; the rest is masked
    config = json.loads((folder / "config.json").read_text())
    hidden, inner, layers, heads = 256, 512, 2, 4
    config.update(
        {
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
            "hidden_size": hidden,
            "intermediate_size": inner,
            "num_hidden_layers": layers,
            "num_attention_heads": heads,
            "num_key_value_heads": heads,
            "vocab_size": vocab,
            "max_position_embeddings": 4096,
            "rms_norm_eps": 1e-5,
            "rope_theta": 10000.0,
            "torch_dtype": "float16",
            "tie_word_embeddings": False,
        }
    )
    (folder / "config.json").write_text(json.dumps(config))
    generator = torch.Generator().manual_seed(0)

    def rand(*shape: int) -> torch.Tensor:
        return (torch.randn(*shape, generator=generator) * 0.02).half()

    tensors = {
        "model.embed_tokens.weight": rand(vocab, hidden),
        "model.norm.weight": torch.ones(hidden).half(),
        "lm_head.weight": rand(vocab, hidden),
    }
    for i in range(layers):
        p = f"model.layers.{i}."
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            tensors[p + f"self_attn.{name}.weight"] = rand(hidden, hidden)
        tensors[p + "mlp.gate_proj.weight"] = rand(inner, hidden)
        tensors[p + "mlp.up_proj.weight"] = rand(inner, hidden)
        tensors[p + "mlp.down_proj.weight"] = rand(hidden, inner)
        tensors[p + "input_layernorm.weight"] = torch.ones(hidden).half()
        tensors[p + "post_attention_layernorm.weight"] = torch.ones(hidden).half()
    save_file(tensors, str(folder / "model.safetensors"))
    return folder


def check(
    folder: Path, kind: str, calls: int, max_tokens: int, profile: bool = False
) -> tuple[int, int, int, float]:
    """(replies that parse, replies, tokens generated, seconds generating); one line per call
    as it finishes, so a run cut short still shows how far it got."""
    from silicon_agent.host.llm.exllamav2_inproc import ExLlamaV2Backend, ExLlamaV2Provider
    from silicon_agent.host.llm.types import GenParams, Message, ProviderError
    from silicon_agent.host.roles.schemas import Reflection, rtl_submission_model
    from tests.host.exl2_standin import LINT, SIMULATE, check_reply

    answer = rtl_submission_model(60)
    backend = ExLlamaV2Backend(str(folder), 4096, "fp16", None)
    provider = ExLlamaV2Provider(str(folder), backend=backend)
    started = time.monotonic()
    backend.load()
    print(f"  {kind}: model loaded in {time.monotonic() - started:.1f} s", flush=True)
    good = total = tokens = 0
    seconds = 0.0
    for seed in range(calls):
        params = GenParams(model="tiny", max_tokens=max_tokens, temperature=1.0, seed=seed)
        for label, tools, schema in (
            ("schema", [], Reflection),
            ("tool", [LINT, SIMULATE], answer),
        ):
            total += 1
            started = time.monotonic()
            try:
                reply = asyncio.run(
                    provider.generate(
                        [Message(role="user", content=f"call {seed}")],
                        tools,
                        schema.model_json_schema(),
                        params,
                    )
                )
            except ProviderError as exc:
                took = time.monotonic() - started
                seconds += took
                print(
                    f"  {kind} seed {seed} {label}: {took:.1f} s, error: {exc!s:.300}", flush=True
                )
                continue
            took = time.monotonic() - started
            seconds += took
            tokens += reply.usage.output_tokens
            head = f"  {kind} seed {seed} {label}: {reply.usage.output_tokens} tokens, {took:.1f} s"
            try:
                check_reply(reply, schema)
            except Exception as exc:
                why = f"{type(exc).__name__}: {exc!s:.200} <- {reply.text!r:.200}"
                print(f"{head}, NOT parsed: {why}", flush=True)
                continue
            good += 1
            print(f"{head}, parsed", flush=True)
    if profile:
        profile_call(backend, Reflection.model_json_schema(), max_tokens)
    return good, total, tokens, seconds


def profile_call(backend: Any, schema: dict[str, Any], max_tokens: int) -> None:
    """One schema call on this thread under cProfile: where a token's time goes (the forward
    pass waits in the logits copy, the filter in its future's result, the sampler apart)."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    started = time.monotonic()
    done = profiler.runcall(
        backend.complete,
        "profile",
        schema,
        max_new_tokens=max_tokens,
        temperature=1.0,
        seed=1000,
        stop=[],
    )
    took = time.monotonic() - started
    print(f"  profiled call: {done.new_tokens} tokens in {took:.2f} s", flush=True)
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(25)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheels", type=Path, help="folder of carried wheels to install first")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--kinds", default="bpe,spm")
    parser.add_argument("--max-tokens", type=int, default=2500, help="per call")
    parser.add_argument(
        "--profile", action="store_true", help="then one call per kind under cProfile"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if args.wheels:
        install(args.wheels)
    import torch

    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, ", end="")
    print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU")
    failed = 0
    for kind in args.kinds.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            started = time.monotonic()
            folder = tiny_llama(Path(tmp), kind)
            good, total, tokens, seconds = check(
                folder, kind, args.calls, args.max_tokens, args.profile
            )
            print(
                f"{kind}: {good}/{total} replies parse to their schema; {tokens} tokens in "
                f"{seconds:.1f} s = {tokens / max(seconds, 1e-9):.0f} tokens/s "
                f"(the model loaded apart; whole kind {time.monotonic() - started:.0f} s)"
            )
            failed += total - good
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
