"""Judge through the official ``openai`` SDK (chat completions); ``base_url`` serves vLLM, Ollama, LM Studio."""

from __future__ import annotations

import json
from typing import Any

import openai
from openai._models import FinalRequestOptions

from judgebias_core.errors import JudgeCallError
from judgebias_core.judges.constraints import constraint_fields, extra_fields
from judgebias_core.judges.geval import JSON_SCORE_MARKER, RESULT_MARKER, score_token_logprobs
from judgebias_core.judges.sdk_errors import call_error, malformed
from judgebias_core.judges.sdk_transport import DirectPost
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import get_provider
from judgebias_core.providers.endpoints import NO_KEY  # a local server started without a key (vLLM) takes any
from judgebias_core.providers.keys import api_key
from judgebias_core.run_types import JudgeClient, JudgeReply, PlannedCall

TOP_LOGPROBS = 10


def reply_schema(call: PlannedCall) -> dict[str, Any]:
    """The JSON schema a structured reply follows: score and feedback, or verdict and explanation. The answer comes
    first: a model that runs out of tokens while explaining has given it already."""
    if call.call_kind == "rubric":
        properties: dict[str, Any] = {"score": {"type": "integer", "enum": list(call.scores)},
                                      "feedback": {"type": "string"}}
    else:
        letters = ["A", "B", "C"] if call.options == 3 else ["A", "B"]
        properties = {"verdict": {"type": "string", "enum": letters}, "explanation": {"type": "string"}}
    schema = {"type": "object", "properties": properties, "required": list(properties),
              "additionalProperties": False}
    return {"type": "json_schema", "json_schema": {"name": f"{call.call_kind}_verdict", "strict": True, "schema": schema}}


class OpenAIJudge(JudgeClient):
    """One ``AsyncOpenAI`` client per judge; the SDK retries 429 (honouring Retry-After), 5xx and timeouts.
    Serves every provider of the OpenAI API: ``openai`` and the local-server presets (``vllm``, ``ollama``),
    which take their default endpoint, key variable (none) and price (free) from the registry.

    Requests go out through ``DirectPost`` (the SDK's connection pool, headers and retry rules, without its
    per-call request building and typed response objects) and the reply is read as plain JSON: the SDK's
    per-call Python work is what kept the engine below the raw-HTTP ceiling (see bench/bench_engine.py).
    """

    provider = "openai"

    def __init__(self, spec: RunSpec, settings: RunSettings, key: str | None = None) -> None:
        entry = get_provider(spec.provider)
        self.provider, self.paid = spec.provider, entry.paid
        self.model = spec.model
        self.name = spec.judge_name()
        self._spec = spec
        self._api = ("OpenAI chat completions" if entry.default_base_url is None
                     else f"OpenAI-compatible chat completions ({entry.label})")
        self._base_url = spec.base_url or entry.default_base_url
        self._key = api_key(spec.provider, key, self._base_url) if entry.key_variable else NO_KEY
        self._client = openai.AsyncOpenAI(api_key=self._key, base_url=self._base_url, timeout=settings.timeout_s,
                                          max_retries=settings.sdk_max_retries)
        self._post = DirectPost(self._client, "/chat/completions", openai, FinalRequestOptions)

    def request_params(self, call: PlannedCall) -> dict[str, Any]:
        messages = ([{"role": "system", "content": call.system}] if call.system else []) + [
            {"role": "user", "content": call.user}
        ]
        params: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": self._spec.temperature,
                                  "max_tokens": self._spec.max_tokens}
        if self._spec.seed is not None:
            params["seed"] = self._spec.seed
        if self._spec.json_reply():
            params["response_format"] = reply_schema(call)
        if self._spec.logprobs:
            params |= {"logprobs": True, "top_logprobs": TOP_LOGPROBS}
        # the server's own constraint fields, then --extra-body over everything (as the SDK's extra_body merges)
        return params | constraint_fields(self._spec, call) | extra_fields(self._spec)

    async def send(self, params: dict[str, Any]) -> JudgeReply:
        try:
            body = await self._post.send(params)
        except Exception as error:  # noqa: BLE001 - classified, and the key is redacted
            raise call_error(error, openai, self._key) from None
        try:
            completion = json.loads(body)
            choice = completion["choices"][0]
            text = choice["message"]["content"]
            usage = completion.get("usage") or {}
            score_logprobs = self._score_logprobs(choice.get("logprobs"))
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as error:
            raise malformed(error) from None
        if not isinstance(text, str):
            raise JudgeCallError("malformed reply body: the completion has no message content", retryable=True)
        return JudgeReply(text=text, input_tokens=_count(usage.get("prompt_tokens")),
                          output_tokens=_count(usage.get("completion_tokens")), score_logprobs=score_logprobs)

    def _score_logprobs(self, logprobs: dict[str, Any] | None) -> dict[str, float] | None:
        if not self._spec.logprobs or not logprobs or not logprobs.get("content"):
            return None
        tokens = [(t["token"], [(alt["token"], float(alt["logprob"])) for alt in t.get("top_logprobs") or []])
                  for t in logprobs["content"]]
        return score_token_logprobs(tokens, JSON_SCORE_MARKER if self._spec.json_reply() else RESULT_MARKER)

    async def aclose(self) -> None:
        await self._client.close()

    def describe(self) -> str:
        where = f" at {self._base_url}" if self._base_url else ""
        return f"{self._api}, model {self.model}{where}"


def _count(value: object) -> int | None:
    """A usage count as the SDK would type it (an int, or None when missing)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
