"""OpenAI chat completions through the official SDK; ``base_url`` serves OpenAI-compatible servers (vLLM, Ollama,
LM Studio). Batch mode: the OpenAI Batch API."""

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
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4-0613": (30.00, 60.00),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-3.5-turbo-0125": (0.50, 1.50),
}


def openai_api_client(store: Store, spec: RunSpec, settings: RunSettings,
                      key: str | None) -> JudgeClient:
    """The OpenAI API client, for ``openai`` and every OpenAI-compatible preset."""
    from judgebias_core.judges.openai_client import OpenAIJudge  # noqa: PLC0415 - SDK import on demand

    return OpenAIJudge(spec, settings, key)


def _batches(spec: RunSpec, settings: RunSettings, key: str | None) -> BatchBackend:
    from judgebias_core.engine.batch_openai import OpenAIBatches  # noqa: PLC0415 - SDK import on demand

    return OpenAIBatches(spec, settings, key)


PROVIDER = Provider(
    name="openai", label="OpenAI or OpenAI-compatible (vLLM, Ollama)", default_models=("gpt-4o-mini",),
    key_variable="OPENAI_API_KEY",
    capabilities=Capabilities(batch=True, structured_output=True, logprobs=True, base_url=True),
    client=openai_api_client, batch_backend=_batches, prices=PRICES,
    official_base_urls=("https://api.openai.com/v1",),
    missing_key_hint="A local OpenAI-compatible server (vLLM, Ollama, LM Studio) needs no key: give its base URL "
    "(the stored OPENAI_API_KEY is never sent there unless the URL is listed in key_endpoints).",
)
