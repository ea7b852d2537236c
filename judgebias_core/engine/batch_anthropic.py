"""Anthropic Message Batches through the official SDK: create with custom ids, poll, stream the results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anthropic

from judgebias_core.engine import batch_types
from judgebias_core.engine.batch_types import AdoptionCandidate, BatchRequest, BatchResult, BatchState, BatchTags
from judgebias_core.judges.sdk_errors import call_error
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers.keys import api_key
from judgebias_core.store.batch_queries import BatchIntent


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
    return BatchResult(entry.custom_id, None, error=f"batch request {result.type}" + (f": {detail}" if detail else ""),
                       cause=result.type)


class AnthropicBatches:
    """Message Batches of one Anthropic endpoint. Limit: 100,000 requests and 256 MB per batch."""

    provider = "anthropic"
    max_requests = 100_000
    max_bytes = 250_000_000

    def __init__(self, spec: RunSpec, settings: RunSettings, key: str | None = None) -> None:
        self._key = api_key("anthropic", key, spec.base_url)
        self._client = anthropic.AsyncAnthropic(api_key=self._key, base_url=spec.base_url,
                                                timeout=settings.timeout_s, max_retries=settings.sdk_max_retries)

    def request_bytes(self, request: BatchRequest) -> bytes:
        import json  # noqa: PLC0415 - only for the size estimate

        return json.dumps({"custom_id": request.call_id, "params": batch_params(request.params)}).encode("utf-8")

    async def prepare(self, requests: Sequence[BatchRequest]) -> None:
        return None  # the requests travel in the create call itself

    async def create(self, requests: Sequence[BatchRequest], input_file_id: str | None, tags: BatchTags) -> str:
        """Message Batches take no metadata: a resume finds the batch by creation time and request count."""
        entries = [{"custom_id": r.call_id, "params": batch_params(r.params)} for r in requests]
        try:
            # no SDK retry: a create that timed out may exist, and the runner looks for it before trying again
            batch = await self._client.with_options(max_retries=0).messages.batches.create(
                requests=entries)  # type: ignore[arg-type]
        except Exception as error:  # noqa: BLE001 - classified, key redacted
            raise call_error(error, anthropic, self._key) from None
        return batch.id

    async def candidates(self, intent: BatchIntent, known: set[str]) -> list[AdoptionCandidate]:
        """Batches created in the intent's window with its request count (``GET /v1/messages/batches``, newest
        first); the runner checks an adopted batch's custom ids against the intent when its results arrive."""
        earliest, latest = intent.intent_at - batch_types.CLOCK_SKEW_S, intent.intent_at + batch_types.CREATE_WINDOW_S
        found: list[AdoptionCandidate] = []
        try:
            async for batch in self._client.messages.batches.list(limit=batch_types.LIST_PAGE_SIZE):
                created = batch.created_at.timestamp()
                if created < earliest:
                    break
                c = batch.request_counts
                count = c.processing + c.succeeded + c.errored + c.canceled + c.expired
                if batch.id not in known and created <= latest and count == len(intent.call_ids):
                    found.append(AdoptionCandidate(batch.id, "window"))
        except Exception as error:  # noqa: BLE001
            raise call_error(error, anthropic, self._key) from None
        return found

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
