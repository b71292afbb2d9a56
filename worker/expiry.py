"""The expiry sweep: expired memories are forgotten through the forget machinery.

Recall skips an expired memory from the instant it expires (the store filter's
`live_at`); the sweep makes expiry final. It finds each bank's raw memories whose
`expires_at` has passed (an indexed range, so a sweep that finds nothing costs one
query per bank) and hands forget events for them to `send`, the process's one retain
path: the memories are tombstoned and deleted, and what they touched (observations,
supersession chains, edges) is re-derived exactly as for any forget, so the read model
becomes the one the unexpired events alone give.

Forget event ids are derived from the bank and the expired ids, so two processes that
sweep the same state publish the same event; a Redis lock keeps it to one sweep at a
time anyway.
"""

import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from itertools import islice

import redis

from contracts.forget import MAX_FORGET_IDS, ForgetEvent
from readmodel.store import Filter, MemoryStore
from worker.consolidation.neighbourhood import RAW_KINDS

EXPIRY_NAMESPACE = uuid.UUID("5d0c7a8e-2f4b-5e61-9c3a-7b1e4f2d8a90")
EXPIRY_LOCK = "sediment:expiry:sweep"
EXPIRY_LOCK_TTL_S = 120
MAX_PER_BANK = 10_000
"""Expired memories taken per bank and sweep; the rest are found by the next sweep."""

Send = Callable[[Sequence[ForgetEvent]], object]


@dataclass
class ExpiryReport:
    """`expired`: memories handed on to be forgotten, per bank; `swept` is false when
    another process held the sweep."""

    swept: bool = True
    expired: dict[str, int] = field(default_factory=dict)
    events: int = 0


def expiry_event(bank_id: str, memory_ids: Sequence[uuid.UUID], at: datetime) -> ForgetEvent:
    seed = "\x1f".join([bank_id, *sorted(str(i) for i in memory_ids)])
    return ForgetEvent(
        event_id=uuid.uuid5(EXPIRY_NAMESPACE, seed),
        bank_id=bank_id,
        memory_ids=list(memory_ids),
        requested_at=at,
    )


def _chunks(ids: Sequence[uuid.UUID], size: int) -> Iterator[Sequence[uuid.UUID]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


class ExpirySweep:
    """`store` is called on each sweep (the store may be opened on first use, in the
    sweeping thread); see the module doc."""

    def __init__(
        self,
        store: Callable[[], MemoryStore],
        send: Send,
        client: redis.Redis | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        per_bank: int = MAX_PER_BANK,
    ) -> None:
        self._store = cache(store)
        self._send = send
        self._client = client
        self._clock = clock
        self._per_bank = per_bank

    def sweep(self, banks: Sequence[str] | None = None) -> ExpiryReport:
        """Forget what has expired in `banks` (default: every bank)."""
        if self._client is None:
            return self._sweep(banks)
        lock = self._client.lock(EXPIRY_LOCK, timeout=EXPIRY_LOCK_TTL_S)
        if not lock.acquire(blocking=False):
            return ExpiryReport(swept=False)
        try:
            return self._sweep(banks)
        finally:
            with suppress(redis.exceptions.LockError):
                lock.release()

    def _sweep(self, banks: Sequence[str] | None) -> ExpiryReport:
        now = self._clock()
        report = ExpiryReport()
        store = self._store()
        for bank in banks if banks is not None else store.banks():
            due = Filter(bank, kinds=RAW_KINDS, expired_at=now)
            ids = [p.record.id for p in islice(store.scroll(due), self._per_bank)]
            if not ids:
                continue
            events = [expiry_event(bank, chunk, now) for chunk in _chunks(ids, MAX_FORGET_IDS)]
            self._send(events)
            report.expired[bank] = len(ids)
            report.events += len(events)
        return report
