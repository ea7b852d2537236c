"""What the batch runner and the provider batch backends exchange."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class BatchRequest:
    """One judgment as a batch entry: its call id is the custom id that maps the result back."""

    call_id: str
    params: dict[str, Any]


@dataclass(frozen=True)
class SubmittedBatch:
    batch_id: str
    input_file_id: str | None


@dataclass(frozen=True)
class BatchState:
    """A batch as the provider reports it: ended or not, its status word, requests done of total."""

    ended: bool
    status: str
    done: int
    total: int


@dataclass(frozen=True)
class BatchResult:
    """One entry of a finished batch: the reply text, or why there is none (errored, expired, cancelled)."""

    call_id: str
    text: str | None
    input_tokens: int | None = None
    output_tokens: int | None = None
    error: str | None = None


class BatchBackend(Protocol):
    provider: str
    max_requests: int
    max_bytes: int

    def request_bytes(self, request: BatchRequest) -> bytes: ...

    async def submit(self, requests: Sequence[BatchRequest], run_id: str) -> SubmittedBatch: ...

    async def state(self, batch_id: str) -> BatchState: ...

    async def results(self, batch_id: str) -> list[BatchResult]: ...

    async def aclose(self) -> None: ...
