"""The one interface every judge client implements, and the helpers they share (keys, redaction)."""

from __future__ import annotations

import os
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from judgebias_core.errors import InvalidArgument, MissingApiKey
from judgebias_core.judges.redact import remember_secret, scrub_text
from judgebias_core.protocols.plans import PlannedCall
from judgebias_core.providers import get_provider
from judgebias_core.providers.endpoints import NO_KEY, stored_key_allowed

_KEY_LIKE = re.compile(r"(sk|key|ak)-[A-Za-z0-9_\-*]{6,}")


@dataclass(frozen=True)
class JudgeReply:
    """What came back from one call: the reply text and the provider's usage (None when not reported)."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    score_logprobs: dict[str, float] | None = None  # top log-probabilities at the score token (G-Eval)


class JudgeClient(ABC):
    """A judge: turns a planned call into provider request parameters and sends them.

    ``paid`` judges go through the response cache and the spending cap; ``parser`` overrides the template's
    parser when the judge's replies have their own format (replayed recordings).
    """

    provider: str
    model: str
    name: str
    simulated: bool = False
    paid: bool = True
    parser: str | None = None

    @abstractmethod
    def request_params(self, call: PlannedCall) -> dict[str, Any]:
        """The provider request for one call (also what a batch request would carry)."""

    @abstractmethod
    async def send(self, params: dict[str, Any]) -> JudgeReply:
        """Send one request; raises ``JudgeCallError`` (retryable or not) when no reply came back."""

    async def aclose(self) -> None:  # noqa: B027 - optional: clients without connections keep it
        """Release connections."""

    def describe(self) -> str:
        return f"{self.provider} {self.model}"


def api_key(provider: str, given: str | None = None, base_url: str | None = None) -> str:
    """The key to send to ``base_url``: ``given`` (a key given for this endpoint, never stored), else the stored
    key from the environment variable the provider declares when it may go there (its official endpoint or one
    the operator listed: ``providers/endpoints.py``), else ``NO_KEY`` (nothing of the operator's is sent)."""
    variable = get_provider(provider).key_variable
    if variable is None:
        raise InvalidArgument(f"provider {provider!r} takes no API key")
    if not given and not stored_key_allowed(provider, base_url):
        return NO_KEY
    key = given or os.environ.get(variable)
    if not key:
        raise MissingApiKey(variable)
    remember_secret(key)  # scrubbed from every stored reply (judges/redact.py)
    return key


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """The text with every secret and anything shaped like an API key replaced (SDK errors quote key prefixes)."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[redacted]")
    return _KEY_LIKE.sub("[redacted]", scrub_text(text))
