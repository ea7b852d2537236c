"""OpenAI Batch API through the official SDK: upload a JSONL file of chat requests, create, poll, read files."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

import openai

from judgebias_core.engine import batch_types
from judgebias_core.engine.batch_types import AdoptionCandidate, BatchRequest, BatchResult, BatchState, BatchTags
from judgebias_core.judges.sdk_errors import call_error
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers.keys import api_key
from judgebias_core.store.batch_queries import BatchIntent

ENDPOINT: Literal["/v1/chat/completions"] = "/v1/chat/completions"
ENDED = ("completed", "failed", "expired", "cancelled")


def _result_of(line: dict[str, Any]) -> BatchResult:
    """One line of an output or error file."""
    custom_id = str(line.get("custom_id"))
    response = line.get("response") or {}
    body = response.get("body") or {}
    if response.get("status_code") == 200:
        try:
            text = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            text = None
        usage = body.get("usage") or {}
        if text is not None:
            return BatchResult(custom_id, text, usage.get("prompt_tokens"), usage.get("completion_tokens"))
    error = line.get("error") or body.get("error") or {}
    reason = error.get("message") if isinstance(error, dict) else str(error)
    code = error.get("code") if isinstance(error, dict) else None
    return BatchResult(custom_id, None, error=f"batch request failed ({code or response.get('status_code')}): "
                                              f"{reason or 'no reply in the batch output'}",
                       cause="expired" if code == "batch_expired" else "errored")


class OpenAIBatches:
    """The Batch API of one OpenAI(-compatible) endpoint. Limit: 50,000 requests and 200 MB per input file."""

    provider = "openai"
    max_requests = 50_000
    max_bytes = 190_000_000

    def __init__(self, spec: RunSpec, settings: RunSettings, key: str | None = None) -> None:
        self._key = api_key("openai", key, spec.base_url)
        self._client = openai.AsyncOpenAI(api_key=self._key, base_url=spec.base_url, timeout=settings.timeout_s,
                                          max_retries=settings.sdk_max_retries)

    def request_bytes(self, request: BatchRequest) -> bytes:
        return (json.dumps({"custom_id": request.call_id, "method": "POST", "url": ENDPOINT, "body": request.params},
                           ensure_ascii=False) + "\n").encode("utf-8")

    async def prepare(self, requests: Sequence[BatchRequest]) -> str:
        """Upload the JSONL input file (a file alone is not billed); returns its id."""
        data = b"".join(self.request_bytes(r) for r in requests)
        try:
            uploaded = await self._client.files.create(file=("judgebias-batch.jsonl", data, "application/jsonl"),
                                                       purpose="batch")
        except Exception as error:  # noqa: BLE001 - classified, key redacted
            raise call_error(error, openai, self._key) from None
        return uploaded.id

    async def create(self, requests: Sequence[BatchRequest], input_file_id: str | None, tags: BatchTags) -> str:
        if input_file_id is None:
            raise ValueError("an OpenAI batch needs its uploaded input file")
        try:
            # no SDK retry: a create that timed out may exist, and the runner looks for it before trying again
            batch = await self._client.with_options(max_retries=0).batches.create(
                input_file_id=input_file_id, endpoint=ENDPOINT, completion_window="24h", metadata=tags.metadata())
        except Exception as error:  # noqa: BLE001 - classified, key redacted
            raise call_error(error, openai, self._key) from None
        return batch.id

    async def candidates(self, intent: BatchIntent, known: set[str]) -> list[AdoptionCandidate]:
        """Batches tagged with the intent's id, or made from its input file (``GET /v1/batches``, newest first)."""
        found: list[AdoptionCandidate] = []
        try:
            async for batch in self._client.batches.list(limit=batch_types.LIST_PAGE_SIZE):
                if batch.created_at < intent.intent_at - batch_types.CLOCK_SKEW_S:
                    break  # older than the intent: every later page is older still
                if batch.id in known:
                    continue
                if (batch.metadata or {}).get("judgebias_intent") == intent.intent_id:
                    found.append(AdoptionCandidate(batch.id, "metadata"))
                elif intent.input_file_id and batch.input_file_id == intent.input_file_id:
                    found.append(AdoptionCandidate(batch.id, "input file"))
        except Exception as error:  # noqa: BLE001
            raise call_error(error, openai, self._key) from None
        return found

    async def state(self, batch_id: str) -> BatchState:
        try:
            batch = await self._client.batches.retrieve(batch_id)
        except Exception as error:  # noqa: BLE001
            raise call_error(error, openai, self._key) from None
        counts = batch.request_counts
        done = (counts.completed + counts.failed) if counts else 0
        return BatchState(batch.status in ENDED, batch.status, done, counts.total if counts else 0)

    async def results(self, batch_id: str) -> list[BatchResult]:
        try:
            batch = await self._client.batches.retrieve(batch_id)
            lines: list[dict[str, Any]] = []
            for file_id in (batch.output_file_id, batch.error_file_id):
                if file_id:
                    content = await self._client.files.content(file_id)
                    lines += [json.loads(line) for line in content.text.splitlines() if line.strip()]
        except Exception as error:  # noqa: BLE001
            raise call_error(error, openai, self._key) from None
        return [_result_of(line) for line in lines]

    async def aclose(self) -> None:
        await self._client.close()
