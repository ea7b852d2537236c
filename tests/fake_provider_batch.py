"""The loopback fake provider with the batch endpoints of both SDKs, for batch-mode tests.

OpenAI: file upload (multipart), batch create, retrieve, file content (output and error files).
Anthropic: message batches create, retrieve, results (JSONL). Both list endpoints as the providers document them,
newest first: OpenAI ``GET /v1/batches`` (``after``, ``limit``; ``data``, ``first_id``, ``last_id``, ``has_more``),
Anthropic ``GET /v1/messages/batches`` (``after_id``, ``before_id``, ``limit``; the same fields). A batch ends after
``polls_needed`` retrievals; ``fail_next(kind, n)`` makes the first n requests of the next batch come back errored
or expired, ``fail_fraction(rate, seed)`` a random share of every later batch's requests. With ``echo_headers``
the results quote the create request's headers, as the live replies quote theirs. Live chat/messages calls still
work (the parent's routes), for retries sent live.
"""

from __future__ import annotations

import itertools
import json
import random
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, Literal

from tests.fake_provider import FakeProvider, FakeRequest, FakeResponse, _json

Outcome = Literal["succeeded", "errored", "expired"]
_IDS = itertools.count(1)


@dataclass
class FakeBatch:
    batch_id: str
    provider: Literal["openai", "anthropic"]
    requests: list[tuple[str, dict[str, Any]]]  # (custom id, body)
    outcomes: list[Outcome]
    polls_left: int
    input_file_id: str | None = None
    created_at: float = field(default_factory=time.time)
    metadata: dict[str, str] | None = None
    headers: dict[str, str] = field(default_factory=dict)  # of the create request (echoed in results)
    results: list[dict[str, Any]] = field(default_factory=list)
    output_file_id: str | None = None
    error_file_id: str | None = None

    @property
    def ended(self) -> bool:
        return self.polls_left <= 0


class BatchFakeProvider(FakeProvider):
    """FakeProvider plus the batch APIs. ``batches`` lists every batch created, in order."""

    def __init__(self, polls_needed: int = 3, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.polls_needed = polls_needed
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, FakeBatch] = {}
        self._planned_failures: list[Outcome] = []
        self._failure_rate = 0.0
        self._slow_creates: list[float] = []
        self._rng = random.Random(0)
        self._ids = _IDS  # ids unique across fakes, like a provider's: tests share stores between fakes
        self._batch_lock = threading.Lock()

    def fail_next(self, kind: Outcome, count: int) -> None:
        """The first ``count`` requests of the next batch created come back as ``kind``."""
        self._planned_failures = [kind] * count

    def fail_fraction(self, rate: float, seed: int = 0) -> None:
        """From now on each request of a batch comes back errored or expired (half each) with probability ``rate``."""
        self._failure_rate, self._rng = rate, random.Random(seed)

    def slow_creates(self, count: int, delay_s: float) -> None:
        """The next ``count`` creates make their batch but answer only after ``delay_s`` (a client timeout)."""
        self._slow_creates = [delay_s] * count

    def _late(self, response: FakeResponse) -> FakeResponse:
        with self._batch_lock:
            delay = self._slow_creates.pop(0) if self._slow_creates else 0.0
        return FakeResponse(response.status, response.body, response.headers, delay_s=delay)

    @property
    def created(self) -> list[FakeBatch]:
        return list(self.batches.values())

    def plant(self, provider: Literal["openai", "anthropic"], custom_ids: list[str]) -> FakeBatch:
        """A batch someone else created (another tool on the same account), to test adoption."""
        return self._new_batch(provider, [(c, {}) for c in custom_ids], "batch_" if provider == "openai" else
                               "msgbatch_", {})

    # ---- shared ----
    def _outcome(self, index: int, planned: list[Outcome]) -> Outcome:
        if index < len(planned):
            return planned[index]
        if self._failure_rate and self._rng.random() < self._failure_rate:
            return self._rng.choice(["errored", "expired"])
        return "succeeded"

    def _new_batch(self, provider: Literal["openai", "anthropic"], requests: list[tuple[str, dict[str, Any]]],
                   prefix: str, headers: dict[str, str]) -> FakeBatch:
        with self._batch_lock:
            planned, self._planned_failures = self._planned_failures, []
            outcomes = [self._outcome(i, planned) for i in range(len(requests))]
            batch = FakeBatch(f"{prefix}{next(self._ids):04d}", provider, requests, outcomes, self.polls_needed,
                              headers=headers)
            self.batches[batch.batch_id] = batch
        return batch

    def _page(self, after: str | None, before: str | None, limit: str | None) -> tuple[list[FakeBatch], bool]:
        """Batches newest first: the page after (or before) a cursor id, and whether more follow it."""
        newest_first = list(reversed(self.batches.values()))
        ids = [b.batch_id for b in newest_first]
        size = max(1, min(int(limit or 20), 1000))
        if before:
            end = ids.index(before)
            return newest_first[max(0, end - size):end], end - size > 0
        start = ids.index(after) + 1 if after else 0
        return newest_first[start:start + size], start + size < len(newest_first)

    def _poll(self, batch: FakeBatch) -> None:
        with self._batch_lock:
            batch.polls_left -= 1

    def _message_text(self, body: dict[str, Any]) -> str:
        system = body.get("system") or ""
        return "\n".join([system] + [str(m.get("content", "")) for m in body.get("messages", [])])

    # ---- OpenAI ----
    def _upload(self, request: FakeRequest) -> FakeResponse:
        message = BytesParser(policy=HTTP).parsebytes(
            f"content-type: {request.headers.get('content-type', '')}\r\n\r\n".encode() + request.raw)
        content = next(part.get_payload(decode=True) for part in message.iter_parts()
                       if part.get_param("name", header="content-disposition") == "file")
        file_id = f"file-{next(self._ids):04d}"
        self.files[file_id] = content
        return _json({"id": file_id, "object": "file", "bytes": len(content), "created_at": int(time.time()),
                      "filename": "batch.jsonl", "purpose": "batch", "status": "processed"})

    def _openai_batch_json(self, batch: FakeBatch) -> dict[str, Any]:
        done = len(batch.requests) if batch.ended else len(batch.requests) // 2
        failed = sum(o != "succeeded" for o in batch.outcomes) if batch.ended else 0
        status = "in_progress" if not batch.ended else (
            "expired" if "expired" in batch.outcomes else "completed")
        return {"id": batch.batch_id, "object": "batch", "endpoint": "/v1/chat/completions",
                "input_file_id": batch.input_file_id, "completion_window": "24h", "status": status,
                "created_at": int(batch.created_at), "output_file_id": batch.output_file_id,
                "error_file_id": batch.error_file_id, "metadata": batch.metadata,
                "request_counts": {"total": len(batch.requests), "completed": done - failed, "failed": failed}}

    def _openai_create(self, request: FakeRequest) -> FakeResponse:
        body = request.body or {}
        lines = [json.loads(line) for line in self.files[body["input_file_id"]].decode().splitlines() if line]
        batch = self._new_batch("openai", [(line["custom_id"], line["body"]) for line in lines], "batch_",
                                request.headers)
        batch.input_file_id, batch.metadata = body["input_file_id"], body.get("metadata")
        return self._late(_json(self._openai_batch_json(batch)))

    def _openai_finish(self, batch: FakeBatch) -> None:
        output, errors = [], []
        for (custom_id, body), outcome in zip(batch.requests, batch.outcomes, strict=True):
            if outcome == "succeeded":
                reply = json.loads(self._openai_chat(FakeRequest("POST", "/v1/chat/completions", batch.headers,
                                                                 body)).body)
                output.append({"id": f"req_{custom_id}", "custom_id": custom_id, "error": None,
                               "response": {"status_code": 200, "request_id": custom_id, "body": reply}})
            else:
                code = "batch_expired" if outcome == "expired" else "server_error"
                errors.append({"id": f"req_{custom_id}", "custom_id": custom_id, "response": None,
                               "error": {"code": code, "message": f"request {outcome} (fake)"}})
        for rows, attribute in ((output, "output_file_id"), (errors, "error_file_id")):
            if rows:
                file_id = f"file-{next(self._ids):04d}"
                self.files[file_id] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                setattr(batch, attribute, file_id)

    def _openai_list(self, request: FakeRequest) -> FakeResponse:
        page, more = self._page(request.query.get("after"), None, request.query.get("limit"))
        return _json({"object": "list", "data": [self._openai_batch_json(b) for b in page],
                      "first_id": page[0].batch_id if page else None, "last_id": page[-1].batch_id if page else None,
                      "has_more": more})

    def _openai_retrieve(self, batch: FakeBatch) -> FakeResponse:
        self._poll(batch)
        if batch.ended and batch.output_file_id is None and batch.error_file_id is None:
            self._openai_finish(batch)
        return _json(self._openai_batch_json(batch))

    # ---- Anthropic ----
    def _anthropic_batch_json(self, batch: FakeBatch) -> dict[str, Any]:
        total = len(batch.requests)
        counts = {"processing": total, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if batch.ended:
            counts = {"processing": 0, "canceled": 0, "succeeded": batch.outcomes.count("succeeded"),
                      "errored": batch.outcomes.count("errored"), "expired": batch.outcomes.count("expired")}
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        created = datetime.fromtimestamp(batch.created_at, UTC).isoformat().replace("+00:00", "Z")
        return {"id": batch.batch_id, "type": "message_batch",
                "processing_status": "ended" if batch.ended else "in_progress", "request_counts": counts,
                "created_at": created, "expires_at": now, "ended_at": now if batch.ended else None,
                "archived_at": None, "cancel_initiated_at": None,
                "results_url": f"{self.anthropic_url}/v1/messages/batches/{batch.batch_id}/results"
                if batch.ended else None}

    def _anthropic_create(self, request: FakeRequest) -> FakeResponse:
        requests = [(r["custom_id"], r["params"]) for r in (request.body or {}).get("requests", [])]
        return self._late(_json(self._anthropic_batch_json(self._new_batch("anthropic", requests, "msgbatch_",
                                                                           request.headers))))

    def _anthropic_list(self, request: FakeRequest) -> FakeResponse:
        page, more = self._page(request.query.get("after_id"), request.query.get("before_id"),
                                request.query.get("limit"))
        return _json({"data": [self._anthropic_batch_json(b) for b in page], "has_more": more,
                      "first_id": page[0].batch_id if page else None, "last_id": page[-1].batch_id if page else None})

    def _anthropic_results(self, batch: FakeBatch) -> FakeResponse:
        lines = []
        for (custom_id, params), outcome in zip(batch.requests, batch.outcomes, strict=True):
            if outcome == "succeeded":
                message = json.loads(self._anthropic_messages(FakeRequest("POST", "/v1/messages", batch.headers,
                                                                          params)).body)
                result: dict[str, Any] = {"type": "succeeded", "message": message}
            elif outcome == "errored":
                result = {"type": "errored", "error": {"type": "error", "error": {
                    "type": "api_error", "message": "request errored (fake)"}}}
            else:
                result = {"type": "expired"}
            lines.append(json.dumps({"custom_id": custom_id, "result": result}))
        return FakeResponse(200, ("\n".join(lines) + "\n").encode(), {"content-type": "application/binary"})

    # ---- dispatch ----
    def respond(self, request: FakeRequest) -> FakeResponse:
        """The batch endpoints first; everything else (live calls) as the parent answers it."""
        method, parts = request.method, request.path.strip("/").split("/")
        exact = {("POST", "/v1/files"): self._upload, ("POST", "/v1/batches"): self._openai_create,
                 ("POST", "/v1/messages/batches"): self._anthropic_create,
                 ("GET", "/v1/batches"): self._openai_list, ("GET", "/v1/messages/batches"): self._anthropic_list}
        if (method, request.path) in exact:
            self._record(request)
            return exact[(method, request.path)](request)
        if method == "GET" and parts[:2] == ["v1", "files"] and parts[-1] == "content":
            self._record(request)
            return FakeResponse(200, self.files[parts[2]], {"content-type": "application/octet-stream"})
        if method == "GET" and parts[:2] == ["v1", "batches"] and len(parts) == 3:
            self._record(request)
            if self.next_fault() is not None:  # an injected fault answers this poll with a server error
                return _json({"error": {"type": "server_error", "message": "internal error"}}, 500)
            return self._openai_retrieve(self.batches[parts[2]])
        if method == "GET" and parts[:3] == ["v1", "messages", "batches"] and len(parts) >= 4:
            self._record(request)
            batch = self.batches[parts[3]]
            if parts[-1] == "results":
                return self._anthropic_results(batch)
            self._poll(batch)
            return _json(self._anthropic_batch_json(batch))
        return super().respond(request)

    def _record(self, request: FakeRequest) -> None:
        with self._lock:
            self.requests.append(request)
