"""Judge through the official ``openai`` SDK (chat completions); ``base_url`` serves vLLM, Ollama, LM Studio."""

from __future__ import annotations

from typing import Any

import openai
from openai.types.chat import ChatCompletion

from judgebias_core.errors import JudgeCallError
from judgebias_core.judges.base import JudgeClient, JudgeReply, api_key
from judgebias_core.judges.geval import JSON_SCORE_MARKER, RESULT_MARKER, score_token_logprobs
from judgebias_core.judges.sdk_errors import call_error, malformed
from judgebias_core.protocols.plans import PlannedCall
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import get_provider

TOP_LOGPROBS = 10
# The SDK needs some key; a local server started without one (vLLM, Ollama) accepts any.
KEYLESS_SERVER_KEY = "no-key"


def reply_schema(call: PlannedCall) -> dict[str, Any]:
    """The JSON schema a structured reply follows: feedback and score, or explanation and verdict."""
    if call.kind == "rubric":
        properties: dict[str, Any] = {"feedback": {"type": "string"},
                                      "score": {"type": "integer", "enum": list(call.scores)}}
    else:
        letters = ["A", "B", "C"] if call.options == 3 else ["A", "B"]
        properties = {"explanation": {"type": "string"}, "verdict": {"type": "string", "enum": letters}}
    schema = {"type": "object", "properties": properties, "required": list(properties),
              "additionalProperties": False}
    return {"type": "json_schema", "json_schema": {"name": f"{call.kind}_verdict", "strict": True, "schema": schema}}


class OpenAIJudge(JudgeClient):
    """One ``AsyncOpenAI`` client per judge; the SDK retries 429 (honouring Retry-After), 5xx and timeouts.
    Serves every provider of the OpenAI API: ``openai`` and the local-server presets (``vllm``, ``ollama``),
    which take their default endpoint, key variable (none) and price (free) from the registry.

    Requests go through the client's ``post`` with the plain JSON body, parsed into the SDK's ``ChatCompletion``:
    ``chat.completions.create`` would first walk the body through its typed-dict transform, about 2 ms of CPU
    per call, which is what limits throughput on a small machine (see bench/bench_engine.py).
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
        self._key = api_key(spec.provider, key) if entry.key_variable else KEYLESS_SERVER_KEY
        self._client = openai.AsyncOpenAI(api_key=self._key, base_url=self._base_url, timeout=settings.timeout_s,
                                          max_retries=settings.sdk_max_retries)

    def request_params(self, call: PlannedCall) -> dict[str, Any]:
        messages = ([{"role": "system", "content": call.system}] if call.system else []) + [
            {"role": "user", "content": call.user}
        ]
        params: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": self._spec.temperature,
                                  "max_tokens": self._spec.max_tokens}
        if self._spec.seed is not None:
            params["seed"] = self._spec.seed
        if self._spec.structured_output:
            params["response_format"] = reply_schema(call)
        if self._spec.logprobs:
            params |= {"logprobs": True, "top_logprobs": TOP_LOGPROBS}
        return params

    async def send(self, params: dict[str, Any]) -> JudgeReply:
        try:
            completion = await self._client.post("/chat/completions", cast_to=ChatCompletion, body=params)
        except Exception as error:  # noqa: BLE001 - classified, and the key is redacted
            raise call_error(error, openai, self._key) from None
        try:
            text = completion.choices[0].message.content
        except (AttributeError, IndexError, TypeError) as error:
            raise malformed(error) from None
        if text is None:
            raise JudgeCallError("malformed reply body: the completion has no message content", retryable=True)
        usage = completion.usage
        return JudgeReply(text=text, input_tokens=usage.prompt_tokens if usage else None,
                          output_tokens=usage.completion_tokens if usage else None,
                          score_logprobs=self._score_logprobs(completion))

    def _score_logprobs(self, completion: ChatCompletion) -> dict[str, float] | None:
        logprobs = completion.choices[0].logprobs if self._spec.logprobs else None
        if logprobs is None or not logprobs.content:
            return None
        tokens = [(t.token, [(alt.token, alt.logprob) for alt in t.top_logprobs]) for t in logprobs.content]
        return score_token_logprobs(tokens, JSON_SCORE_MARKER if self._spec.structured_output else RESULT_MARKER)

    async def aclose(self) -> None:
        await self._client.close()

    def describe(self) -> str:
        where = f" at {self._base_url}" if self._base_url else ""
        return f"{self._api}, model {self.model}{where}"
