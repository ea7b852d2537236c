"""Judge clients: Anthropic and OpenAI(-compatible) through their official SDKs, simulated, and replay.
Which client a provider uses is declared in its ``judgebias_core/providers/<name>.py``."""

from __future__ import annotations

import os

from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import get_provider
from judgebias_core.run_types import JudgeClient, JudgeReply


def make_client(path: str | os.PathLike[str], spec: RunSpec, settings: RunSettings,
                key: str | None = None) -> JudgeClient:
    """The judge client a run spec names (raises ``MissingApiKey`` when a provider's key is not set)."""
    return get_provider(spec.provider).client(path, spec, settings, key)


__all__ = ["JudgeClient", "JudgeReply", "make_client"]
