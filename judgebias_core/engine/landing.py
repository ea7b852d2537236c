"""The one path a reply takes, live or batch: its journal line first (what a resume trusts), then the store
writer, then the session's counts. Also where a request is marked as sent (the send ledger, engine/in_flight.py)
and where senders wait while the store writer cannot write."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Set
from dataclasses import dataclass, field

from judgebias_core.engine.in_flight import SendLedger
from judgebias_core.engine.journal import Journal
from judgebias_core.engine.records import ReplyRecord
from judgebias_core.engine.writer import StoreWriter
from judgebias_core.judges.redact import scrub_record


@dataclass
class SessionCounts:
    """Counts of this session, updated on the event loop as replies land."""

    sent: int = 0  # calls sent to the judge (cache hits and calls the spending cap held back are not)
    received: int = 0  # replies (parsed or not)
    failed: int = 0  # no reply after every retry
    cached: int = 0
    retried_earlier_failures: int = 0  # calls stored with no reply by an earlier session and sent again now
    cost_usd: float = 0.0  # the priced replies' cost
    unpriced: int = 0  # replies whose cost is unknown (no price for the model)
    started: float = field(default_factory=time.monotonic)


class ReplyLanding:
    """Lands every reply of one session; ``earlier_failures`` are calls an earlier session stored with no reply."""

    def __init__(self, journal: Journal, writer: StoreWriter, earlier_failures: Set[str] = frozenset(),
                 ledger: SendLedger | None = None) -> None:
        self.journal = journal
        self.writer = writer
        self.earlier_failures = earlier_failures
        self.ledger = ledger
        self.counts = SessionCounts()

    def mark_sent(self, call_id: str) -> None:
        """A request for ``call_id`` is about to go out: counted, and its ledger line flushed first."""
        self.counts.sent += 1
        if self.ledger is not None:
            self.ledger.append(call_id)

    async def store_ready(self) -> bool:
        """Wait while the store writer's last write was refused (it retries with backoff; sending more would only
        pile replies up); False once it gave up, and the run must stop."""
        while self.writer.stalled and self.writer.failure is None:
            await asyncio.sleep(0.05)
        return self.writer.failure is None

    def land(self, record: ReplyRecord) -> None:
        record = scrub_record(record)  # no key reaches the journal, the store or the cache (judges/redact.py)
        self.journal.append(record)
        self.writer.put(record)
        counts = self.counts
        if record.text is None:
            counts.failed += 1
        else:
            counts.received += 1
        counts.cached += record.cached
        counts.retried_earlier_failures += record.call_id in self.earlier_failures
        counts.cost_usd += record.cost_usd or 0.0
        counts.unpriced += record.text is not None and record.cost_usd is None
