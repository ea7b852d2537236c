"""Judge clients: Anthropic and OpenAI(-compatible) through their official SDKs, simulated, and replay."""

from __future__ import annotations

import os

from judgebias_core.errors import InvalidArgument
from judgebias_core.judges.base import JudgeClient, JudgeReply
from judgebias_core.protocols.spec import RunSettings, RunSpec


def make_client(path: str | os.PathLike[str], spec: RunSpec, settings: RunSettings,
                key: str | None = None) -> JudgeClient:
    """The judge client a run spec names (raises ``MissingApiKey`` when a provider's key is not set)."""
    if spec.provider == "openai":
        from judgebias_core.judges.openai_client import OpenAIJudge  # noqa: PLC0415 - SDK import on demand

        return OpenAIJudge(spec, settings, key)
    if spec.provider == "anthropic":
        from judgebias_core.judges.anthropic_client import AnthropicJudge  # noqa: PLC0415

        return AnthropicJudge(spec, settings, key)
    if spec.provider == "simulated":
        from judgebias_core.judges.simulated import SimulatedJudge  # noqa: PLC0415

        return SimulatedJudge(spec)
    if spec.provider == "replay":
        from judgebias_core.judges.replay import ReplayJudge  # noqa: PLC0415

        return ReplayJudge(path, spec)
    raise InvalidArgument(f"unknown provider {spec.provider!r}")


__all__ = ["JudgeClient", "JudgeReply", "make_client"]

