"""The host's configuration (one YAML file): providers, per-role models and limits, pricing,
budget. Presets ship for a cloud stack and a local single-GPU stack."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from silicon_agent.suite.yaml_file import read_yaml

PRESETS_DIR = Path(__file__).resolve().parent / "presets"

ROLE_NAMES = (
    "orchestrator",
    "spec_librarian",
    "rtl_engineer",
    "verification_engineer",
    "judge",
    "reflection_debug",
    "pnr_lead",
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OllamaConfig(_Strict):
    kind: Literal["ollama"]
    host: str = "http://127.0.0.1:11434"


class OpenAICompatConfig(_Strict):
    kind: Literal["openai_compat"]
    base_url: str
    dialect: Literal["openai", "llamacpp", "llama-cpp-python", "vllm", "tabby"] = "openai"
    api_key_env: str | None = Field(None, description="Name of the env variable with the key")


class AnthropicConfig(_Strict):
    kind: Literal["anthropic"]
    base_url: str = "https://api.anthropic.com"
    api_key_env: str = "ANTHROPIC_API_KEY"


class LlamaCppConfig(_Strict):
    kind: Literal["llamacpp_inproc"]
    model_path: str = Field(description="A GGUF file, or 'gemma3-270m' for the packaged model")
    n_ctx: int = 4096
    n_threads: int = 2


class ExLlamaV2Config(_Strict):
    kind: Literal["exllamav2_inproc"]
    model_dir: str = Field(description="An EXL2-quantised model folder (~ and $VARS expand)")
    max_seq_len: int = 8192
    cache_quant: Literal["fp16", "q8", "q6", "q4"] = "q8"
    gpu_split: list[float] | None = Field(None, description="GB per GPU; default: autosplit")
    prompt_format: Literal["chatml", "plain"] = "chatml"


class ScriptedConfig(_Strict):
    kind: Literal["scripted"]
    script: str = Field(description="YAML file of rules (tests and benchmarks only)")


ProviderConfig = Annotated[
    OllamaConfig
    | OpenAICompatConfig
    | AnthropicConfig
    | LlamaCppConfig
    | ExLlamaV2Config
    | ScriptedConfig,
    Field(discriminator="kind"),
]


class ModelRef(_Strict):
    provider: str
    model: str


class RoleConfig(_Strict):
    model: ModelRef
    fallback: ModelRef | None = Field(None, description="Used when the model keeps failing")
    cheap: ModelRef | None = Field(None, description="Used once the budget runs low")
    temperature: float = 0.2
    max_tokens: int = 2048
    timeout_s: float = 180.0
    max_tool_calls: int = 4
    max_code_chars: int | None = Field(
        None, description="Longest code answer (default: 2 characters per max_tokens)"
    )


class Price(_Strict):
    input_per_mtok: float = 0.0
    output_per_mtok: float = 0.0


class Budget(_Strict):
    max_tokens: int = 2_000_000
    max_cost_usd: float | None = None
    cheap_when_left: float = Field(0.2, description="Fraction left at which roles go cheap")


class Limits(_Strict):
    max_iterations: int = 8
    stagnation_repeats: int = 3
    parallel_blocks: int = 2
    tool_timeout_s: float = 120.0
    judge_review: bool = Field(False, description="Judge reviews each passing block (advice)")
    smoke_testbench: bool = Field(
        True,
        description="The Verification Engineer writes a visible smoke testbench per block; "
        "each attempt runs it before the hidden testbench",
    )
    smoke_repairs: int = Field(1, description="VE repairs of a broken or wrong smoke testbench")
    smoke_failures: int = Field(
        2,
        description="Failed attempts after which the smoke testbench is set aside and the "
        "hidden testbench judges (kept below stagnation_repeats)",
    )
    dependency_reworks: int = Field(
        1, description="Times a block may be sent back by its dependents for an interface change"
    )
    timing_returns: int = Field(
        1, description="Times the PnR Lead sends a block that misses its clock back to RTL"
    )


class RetryPolicy(_Strict):
    attempts: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0


class MemoryConfig(_Strict):
    enabled: bool = Field(False, description="Task memory: notes of failures and fixes")
    project: bool = Field(
        False, description="Also the workspace's store, shared by its runs (.silicon-agent/memory)"
    )
    top_k: int = Field(3, ge=1, le=10, description="Notes offered to a Debug or RTL prompt")


class HostConfig(_Strict):
    providers: dict[str, ProviderConfig]
    roles: dict[str, RoleConfig]
    pricing: dict[str, Price] = Field(default_factory=dict)
    budget: Budget = Field(default_factory=Budget)
    limits: Limits = Field(default_factory=Limits)
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    mcp_config: str | None = Field(None, description="mcp.json path (default: repo root)")

    def role(self, name: str) -> RoleConfig:
        if name in self.roles:
            return self.roles[name]
        if "default" in self.roles:
            return self.roles["default"]
        raise KeyError(f"no model configured for role '{name}' and no 'default' role")


def load_config(path: str | Path | None) -> HostConfig:
    """A path, a preset name ('cloud', 'local', 'local-exl2'), or None for the local preset."""
    if path is None:
        path = "local"
    candidate = Path(path)
    if not candidate.exists() and (PRESETS_DIR / f"{path}.yaml").exists():
        candidate = PRESETS_DIR / f"{path}.yaml"
    data: Any = read_yaml(candidate)
    config = HostConfig.model_validate(data)
    base = candidate.resolve().parent
    # Relative file paths in the config are relative to the config file.
    for provider in config.providers.values():
        if isinstance(provider, ScriptedConfig) and not Path(provider.script).is_absolute():
            provider.script = str(base / provider.script)
        if isinstance(provider, ExLlamaV2Config):
            provider.model_dir = os.path.expandvars(os.path.expanduser(provider.model_dir))
    if config.mcp_config and not Path(config.mcp_config).is_absolute():
        config.mcp_config = str(base / config.mcp_config)
    return config
