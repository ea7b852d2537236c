"""Judge through the official ``anthropic`` SDK (Messages API)."""

from __future__ import annotations

from typing import Any

import anthropic
from anthropic.types import Message, TextBlock

from judgebias_core.errors import JudgeCallError
from judgebias_core.judges.sdk_errors import call_error, malformed
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers.keys import api_key
from judgebias_core.run_types import JudgeClient, JudgeReply, PlannedCall


class AnthropicJudge(JudgeClient):
    """One ``AsyncAnthropic`` client per judge; the SDK retries 429 (honouring Retry-After), 5xx and timeouts.
    The Messages API takes no seed: a run's seed is stored but not sent. Requests go through the client's ``post``
    with the plain JSON body (parsed into the SDK's ``Message``): it skips ``messages.create``'s per-call typed
    transform, and carries ``temperature``, which SDK 1.x and later dropped from ``create``'s arguments (the API
    still takes it on models that allow sampling)."""

    provider = "anthropic"

    def __init__(self, spec: RunSpec, settings: RunSettings, key: str | None = None) -> None:
        self.model = spec.model
        self.name = spec.judge_name()
        self._spec = spec
        self._key = api_key("anthropic", key, spec.base_url)
        self._client = anthropic.AsyncAnthropic(api_key=self._key, base_url=spec.base_url,
                                                timeout=settings.timeout_s, max_retries=settings.sdk_max_retries)

    def request_params(self, call: PlannedCall) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model, "max_tokens": self._spec.max_tokens,
                                  "messages": [{"role": "user", "content": call.user}],
                                  "temperature": self._spec.temperature}
        if call.system:
            params["system"] = call.system
        return params

    async def send(self, params: dict[str, Any]) -> JudgeReply:
        try:
            message = await self._client.post("/v1/messages", cast_to=Message, body=params)
        except Exception as error:  # noqa: BLE001 - classified, and the key is redacted
            raise call_error(error, anthropic, self._key) from None
        try:
            text = "".join(block.text for block in message.content if isinstance(block, TextBlock))
        except (AttributeError, TypeError) as error:
            raise malformed(error) from None
        if not message.content:
            raise JudgeCallError("malformed reply body: the message has no content", retryable=True)
        usage = message.usage
        return JudgeReply(text=text, input_tokens=usage.input_tokens if usage else None,
                          output_tokens=usage.output_tokens if usage else None)

    async def aclose(self) -> None:
        await self._client.close()

    def describe(self) -> str:
        where = f" at {self._spec.base_url}" if self._spec.base_url else ""
        return f"Anthropic Messages API, model {self.model}{where}"
