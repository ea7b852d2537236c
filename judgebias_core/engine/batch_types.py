"""What the batch runner and the provider batch backends exchange."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from judgebias_core.store.batch_queries import BatchIntent

# Adoption of a batch whose create a crashed session may or may not have sent: the providers list their batches
# newest first, so the listing stops at the first batch older than the intent (less this allowance for the
# provider's clock); Anthropic batches are matched by creation time up to CREATE_WINDOW_S after the intent.
CLOCK_SKEW_S = 120.0
CREATE_WINDOW_S = 900.0
LIST_PAGE_SIZE = 100


@dataclass(frozen=True)
class BatchRequest:
    """One judgment as a batch entry: its call id is the custom id that maps the result back."""

    call_id: str
    params: dict[str, Any]


@dataclass(frozen=True)
class BatchTags:
    """What a batch is tagged with at the provider (OpenAI ``metadata``): the run, its intent and chunk."""

    run_id: str
    intent_id: str
    round: int
    chunk: int

    def metadata(self) -> dict[str, str]:
        # OpenAI metadata: at most 16 keys, values up to 512 characters
        return {"judgebias_run": self.run_id[:500], "judgebias_intent": self.intent_id,
                "judgebias_chunk": f"round {self.round} chunk {self.chunk}"}


@dataclass(frozen=True)
class AdoptionCandidate:
    """A batch at the provider that answers to an intent, and what matched."""

    batch_id: str
    matched_by: str  # metadata | input file | window


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
    cause: str | None = None  # no reply: errored | expired | canceled (for the run's summary)


class BatchBackend(Protocol):
    provider: str
    max_requests: int
    max_bytes: int

    def request_bytes(self, request: BatchRequest) -> bytes: ...

    async def prepare(self, requests: Sequence[BatchRequest]) -> str | None:
        """What must exist before create: OpenAI uploads the input file (its id); Anthropic needs nothing."""
        ...

    async def create(self, requests: Sequence[BatchRequest], input_file_id: str | None, tags: BatchTags) -> str:
        """Create the batch; returns its id."""
        ...

    async def candidates(self, intent: BatchIntent, known: set[str]) -> list[AdoptionCandidate]:
        """The provider's batches (not in ``known``) that may be the one ``intent`` was written for."""
        ...

    async def state(self, batch_id: str) -> BatchState: ...

    async def results(self, batch_id: str) -> list[BatchResult]: ...

    async def aclose(self) -> None: ...
