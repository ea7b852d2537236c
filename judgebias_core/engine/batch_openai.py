"""OpenAI Batch API through the official SDK: upload a JSONL file of chat requests, create, poll, read files."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import openai

from judgebias_core.engine.batch_types import BatchRequest, BatchResult, BatchState, SubmittedBatch
from judgebias_core.judges.base import api_key
from judgebias_core.judges.sdk_errors import call_error
from judgebias_core.protocols.spec import RunSettings, RunSpec

ENDPOINT = "/v1/chat/completions"
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
                                              f"{reason or 'no reply in the batch output'}")


class OpenAIBatches:
    """The Batch API of one OpenAI(-compatible) endpoint. Limit: 50,000 requests and 200 MB per input file."""

    provider = "openai"
    max_requests = 50_000
    max_bytes = 190_000_000

    def __init__(self, spec: RunSpec, settings: RunSettings, key: str | None = None) -> None:
        self._key = api_key("openai", key)
        self._client = openai.AsyncOpenAI(api_key=self._key, base_url=spec.base_url, timeout=settings.timeout_s,
                                          max_retries=settings.sdk_max_retries)

    def request_bytes(self, request: BatchRequest) -> bytes:
        return (json.dumps({"custom_id": request.call_id, "method": "POST", "url": ENDPOINT, "body": request.params},
                           ensure_ascii=False) + "\n").encode("utf-8")

    async def submit(self, requests: Sequence[BatchRequest], run_id: str) -> SubmittedBatch:
        data = b"".join(self.request_bytes(r) for r in requests)
        try:
            uploaded = await self._client.files.create(file=("judgebias-batch.jsonl", data, "application/jsonl"),
                                                       purpose="batch")
            batch = await self._client.batches.create(input_file_id=uploaded.id, endpoint=ENDPOINT,
                                                      completion_window="24h", metadata={"judgebias_run": run_id[:500]})
        except Exception as error:  # noqa: BLE001 - classified, key redacted
            raise call_error(error, openai, self._key) from None
        return SubmittedBatch(batch.id, uploaded.id)

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
