"""Anthropic Messages API through the official SDK. Batch mode: Message Batches."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judgebias_core.providers import Capabilities, Provider

if TYPE_CHECKING:
    from judgebias_core.engine.batch_types import BatchBackend
    from judgebias_core.protocols.spec import RunSettings, RunSpec
    from judgebias_core.run_types import JudgeClient
    from judgebias_core.store.handle import Store

# (input, output) USD per million tokens, list prices as published; edit when they change.
PRICES: dict[str, tuple[float, float]] = {
    "claude-3-haiku-20240307": (0.25, 1.25),
    "claude-3-5-haiku-latest": (0.80, 4.00),
    "claude-3-5-sonnet-latest": (3.00, 15.00),
    "claude-3-7-sonnet-latest": (3.00, 15.00),
    "claude-sonnet-4-0": (3.00, 15.00),
    "claude-opus-4-0": (15.00, 75.00),
    "claude-3-opus-20240229": (15.00, 75.00),
}


def _client(store: Store, spec: RunSpec, settings: RunSettings, key: str | None) -> JudgeClient:
    from judgebias_core.judges.anthropic_client import AnthropicJudge  # noqa: PLC0415 - SDK import on demand

    return AnthropicJudge(spec, settings, key)


def _batches(spec: RunSpec, settings: RunSettings, key: str | None) -> BatchBackend:
    from judgebias_core.engine.batch_anthropic import AnthropicBatches  # noqa: PLC0415 - SDK import on demand

    return AnthropicBatches(spec, settings, key)


# The Messages API takes no response schema or log-probabilities. The CLI's --base-url still reaches a proxy of
# the same API; the page offers an endpoint only for OpenAI-compatible servers.
PROVIDER = Provider(
    name="anthropic", label="Anthropic", default_models=("claude-3-5-haiku-latest",),
    key_variable="ANTHROPIC_API_KEY", capabilities=Capabilities(batch=True),
    client=_client, batch_backend=_batches, prices=PRICES, official_base_urls=("https://api.anthropic.com",),
)
