"""Read-your-writes: what a recall does not reflect yet, and waiting until it does.

A retain is accepted before it is consolidated (a worker takes it from the queue), so
a recall right after it may not see it. The redelivery ledger (worker/ledger.py) holds
every accepted event until a worker has handled it, so it says, per bank, what is
still pending; a caller passes the event ids its retain answered as `wait_for`, and
the recall runs once they are handled (or the timeout is up, and the answer names
those still pending). Where events are consolidated before the retain answers
(embedded, in-process), nothing is ever pending.
"""

import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import anyio
import anyio.to_thread

from contracts.recall import RecallRequest, RecallResponse
from worker.ledger import Kind, Ledger

POLL_S = 0.05


@dataclass(frozen=True)
class PendingWrites:
    """`ledger` None: events are consolidated before a retain answers."""

    ledger: Ledger | None = None
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    pause: Callable[[float], Awaitable[None]] | None = None
    """The async wait's sleep (`anyio.sleep` when None)."""

    def count(self, bank_id: str) -> int:
        return self.ledger.pending_count(Kind.RETAIN, bank_id) if self.ledger else 0

    def oldest(self, bank_id: str) -> datetime | None:
        """When the oldest event still pending was accepted (last published)."""
        found = self.ledger.pending(Kind.RETAIN, bank_id) if self.ledger else {}
        return datetime.fromtimestamp(min(found.values()), UTC) if found else None

    def outstanding(self, bank_id: str, event_ids: Sequence[uuid.UUID]) -> list[uuid.UUID]:
        if self.ledger is None:
            return []
        owed = self.ledger.owed(Kind.RETAIN, bank_id, event_ids)
        return [e for e, o in zip(event_ids, owed, strict=True) if o]

    def wait(self, bank_id: str, event_ids: Sequence[uuid.UUID], timeout_s: float) -> None:
        """Until none of `event_ids` is pending, or `timeout_s` has passed."""
        deadline = self.clock() + timeout_s
        waiting = list(event_ids)
        while waiting:
            waiting = self.outstanding(bank_id, waiting)
            if not waiting or self.clock() >= deadline:
                return
            self.sleep(POLL_S)

    async def wait_async(
        self, bank_id: str, event_ids: Sequence[uuid.UUID], timeout_s: float
    ) -> None:
        """`wait` for an event loop: each look at the ledger in a worker thread, the
        pauses between them in the loop, so a waiting recall holds no thread."""
        pause = self.pause or anyio.sleep
        deadline = self.clock() + timeout_s
        waiting = list(event_ids)
        while waiting:
            waiting = await anyio.to_thread.run_sync(self.outstanding, bank_id, waiting)
            if not waiting or self.clock() >= deadline:
                return
            await pause(POLL_S)


def with_pending(
    response: RecallResponse, pending: PendingWrites, bank_id: str, request: RecallRequest
) -> RecallResponse:
    """The answer with what the bank still owes, and which of `wait_for` is not in it."""
    if pending.ledger is None:
        return response
    return response.model_copy(
        update={
            "pending": pending.count(bank_id),
            "pending_events": pending.outstanding(bank_id, request.wait_for),
        }
    )


def recall_with_pending(
    recall: Callable[[str, RecallRequest], RecallResponse],
    pending: PendingWrites,
    bank_id: str,
    request: RecallRequest,
) -> RecallResponse:
    """What every surface calls to recall: `recall` over the read model, after waiting
    for the request's `wait_for` events, answered with what is still pending."""
    if request.wait_for:
        pending.wait(bank_id, request.wait_for, request.wait_timeout_s)
    return with_pending(recall(bank_id, request), pending, bank_id, request)
