"""Anthropic Message Batches through the official SDK: create with custom ids, poll, stream the results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anthropic

from judgebias_core.engine.batch_types import BatchRequest, BatchResult, BatchState, SubmittedBatch
from judgebias_core.judges.base import api_key
from judgebias_core.judges.sdk_errors import call_error
from judgebias_core.protocols.spec import RunSettings, RunSpec


def batch_params(params: dict[str, Any]) -> dict[str, Any]:
    """A live request's parameters as a batch entry's ``params``: what travels in ``extra_body`` joins the body."""
    merged = {k: v for k, v in params.items() if k != "extra_body"}
    return merged | dict(params.get("extra_body") or {})


def _result_of(entry: Any) -> BatchResult:
    result = entry.result
    if result.type == "succeeded":
        message = result.message
        text = "".join(block.text for block in message.content if getattr(block, "type", "") == "text")
        usage = message.usage
        return BatchResult(entry.custom_id, text, usage.input_tokens if usage else None,
                           usage.output_tokens if usage else None)
    detail = getattr(getattr(getattr(result, "error", None), "error", None), "message", None)
    return BatchResult(entry.custom_id, None, error=f"batch request {result.type}" + (f": {detail}" if detail else ""))


class AnthropicBatches:
    """Message Batches of one Anthropic endpoint. Limit: 100,000 requests and 256 MB per batch."""

    provider = "anthropic"
    max_requests = 100_000
    max_bytes = 250_000_000

    def __init__(self, spec: RunSpec, settings: RunSettings, key: str | None = None) -> None:
        self._key = api_key("anthropic", key)
        self._client = anthropic.AsyncAnthropic(api_key=self._key, base_url=spec.base_url,
                                                timeout=settings.timeout_s, max_retries=settings.sdk_max_retries)

    def request_bytes(self, request: BatchRequest) -> bytes:
        import json  # noqa: PLC0415 - only for the size estimate

        return json.dumps({"custom_id": request.call_id, "params": batch_params(request.params)}).encode("utf-8")

    async def submit(self, requests: Sequence[BatchRequest], run_id: str) -> SubmittedBatch:
        entries = [{"custom_id": r.call_id, "params": batch_params(r.params)} for r in requests]
        try:
            batch = await self._client.messages.batches.create(requests=entries)  # type: ignore[arg-type]
        except Exception as error:  # noqa: BLE001 - classified, key redacted
            raise call_error(error, anthropic, self._key) from None
        return SubmittedBatch(batch.id, None)

    async def state(self, batch_id: str) -> BatchState:
        try:
            batch = await self._client.messages.batches.retrieve(batch_id)
        except Exception as error:  # noqa: BLE001
            raise call_error(error, anthropic, self._key) from None
        c = batch.request_counts
        done = c.succeeded + c.errored + c.canceled + c.expired
        return BatchState(batch.processing_status == "ended", batch.processing_status, done, done + c.processing)

    async def results(self, batch_id: str) -> list[BatchResult]:
        try:
            decoder = await self._client.messages.batches.results(batch_id)
            return [_result_of(entry) async for entry in decoder]
        except Exception as error:  # noqa: BLE001
            raise call_error(error, anthropic, self._key) from None

    async def aclose(self) -> None:
        await self._client.close()
