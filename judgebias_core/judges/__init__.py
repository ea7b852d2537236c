"""Judge clients: Anthropic and OpenAI(-compatible) through their official SDKs, simulated, and replay.
Which client a provider uses is declared in its ``judgebias_core/providers/<name>.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import get_provider
from judgebias_core.run_types import JudgeClient, JudgeReply

if TYPE_CHECKING:
    from judgebias_core.store.handle import Store


def make_client(store: Store, spec: RunSpec, settings: RunSettings,
                key: str | None = None) -> JudgeClient:
    """The judge client a run spec names (raises ``MissingApiKey`` when a provider's key is not set); ``store``:
    where a client that answers from recorded replies (replay) reads them."""
    return get_provider(spec.provider).client(store, spec, settings, key)


__all__ = ["JudgeClient", "JudgeReply", "make_client"]
